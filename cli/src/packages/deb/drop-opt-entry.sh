#!/bin/sh
# Takes the entry of /opt itself out of the .deb's data (mvn -Ppackages runs this after jdeb):
#
#   drop-opt-entry.sh DEB
#
# jdeb lists every parent directory of what a package installs. /opt is the system's (the FHS's),
# but listed by nhc alone it is nhc's to dpkg, which then tries to remove it when nhc is purged and
# warns that it is not empty. Without the entry dpkg unpacks /opt/nhc into the /opt that is there
# (the preinst makes one on a system without it). Nothing else changes: GNU tar deletes the one
# member in place.
set -eu
die() { echo "drop-opt-entry.sh: $*" >&2; exit 1; }
[ $# -eq 1 ] && [ -f "$1" ] || die "usage: drop-opt-entry.sh DEB"
deb=$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cd "$w"
ar x "$deb"
members=$(ar t "$deb" | tr '\n' ' ')
[ "$members" = "debian-binary control.tar.gz data.tar.gz " ] || die "$deb: unexpected members: $members"
gzip -dc data.tar.gz > data.tar
tar --delete --no-recursion -f data.tar ./opt/
! tar -tf data.tar | grep -qx './opt/' || die "./opt/ is still in $deb"
gzip -9n < data.tar > data.tar.gz
# D: no member times or owners, so the same tree gives the same package.
ar rcD "$deb.new" debian-binary control.tar.gz data.tar.gz
mv "$deb.new" "$deb"
