# On erase (not on upgrade): the class-data archives the launcher made for other Java runtimes
# (NHC_JAVA) are nhc's own cache and would keep /opt/nhc from going away.
if [ "$1" = 0 ]; then rm -f /opt/nhc/lib/cds/nhc-*.jsa* /opt/nhc/lib/cds/nhc-*.aot*; fi
exit 0
