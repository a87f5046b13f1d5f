# Nothing is enabled or started: Slurm's HealthCheckProgram, nhc-run.timer or nhc-daemon is the
# admin's choice. systemd only learns that the units are there.
# State is root's alone, whatever made /var/lib/nhc before the package (a run of nhc from a build tree).
if [ -d /var/lib/nhc ] && [ ! -L /var/lib/nhc ]; then chmod 0700 /var/lib/nhc; fi
if [ -d /run/systemd/system ]; then systemctl daemon-reload >/dev/null 2>&1 || :; fi
exit 0
