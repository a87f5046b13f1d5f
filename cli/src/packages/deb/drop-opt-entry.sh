#!/bin/sh
# Takes the entry of /opt itself out of the .deb's data (mvn -Ppackages runs this after jdeb):
#
#   drop-opt-entry.sh DEB
#
# jdeb lists every parent directory of what a package installs. /opt is the system's (the FHS's),
# but listed by nhc alone it is nhc's to dpkg, which then tries to remove it when nhc is purged and
# warns that it is not empty. Without the entry dpkg unpacks /opt/nhc into the /opt that is there
# (the preinst makes one on a system without it).
#
# GNU tar deletes the one member in place, with 512-byte records (-b 1): jdeb's archive is not a
# multiple of tar's default 10 KiB, and with that tar shifts the members after the deleted one.
# What is left is checked: the same listing less /opt, and every file against the md5sums.
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
tar -tvf data.tar | grep -v ' \./opt/$' > before
tar --delete --no-recursion -b 1 -f data.tar ./opt/
tar -tvf data.tar > after
cmp -s before after || { diff before after | head -5 >&2; die "$deb: deleting ./opt/ changed other members"; }
mkdir root control
tar -xf data.tar -C root
tar -xzf control.tar.gz -C control
(cd root && md5sum -c --quiet ../control/md5sums) || die "$deb: its files no longer match its md5sums"
gzip -9n < data.tar > data.tar.gz
# D: no member times or owners, so the same tree gives the same package.
ar rcD "$deb.new" debian-binary control.tar.gz data.tar.gz
mv "$deb.new" "$deb"
