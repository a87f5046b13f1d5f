#!/bin/bash
# Runs LBNL NHC and nhc on the same fake node, in a mount and UTS namespace of their own
# (started by LbnlSideBySideIT as: unshare -m -u --propagation private bash lbnl-side-by-side.sh ...).
#
#   lbnl-side-by-side.sh STAGE LBNL_TREE NHC_APP OUT [nhc run arguments...]
#
# STAGE holds what FakeRoot wrote: root/ (the node's /proc, /sys, /etc and files), mounts.tsv (the
# filesystems to mount as sized tmpfs, and how full), standins/ (programs put over /usr/bin for
# both), ps (LBNL NHC's ps: the real one cannot read a written /proc), hostname. The fake root is a
# tmpfs of its own: LBNL NHC runs chrooted into it (so its /proc/mounts, /proc/cpuinfo, /sys/class,
# df and ps see the node), nhc runs beside it with settings.root pointing at it (its YAML says so),
# and both measure the same mounted filesystems. Nothing outside the namespace changes.
set -euo pipefail
stage=$1 lbnl=$2 app=$3 out=$4
shift 4
mkdir -p "$out"

hostname "$(cat "$stage/hostname")"

root=$stage/mnt
mkdir -p "$root"
# / of the node: a tmpfs, so that its df figures are the node's
mount -t tmpfs -o size=262144k,nr_inodes=20000,mode=0755 nhc-fake-root "$root"   # FakeNodeBuilder.ROOT_KB, ROOT_INODES

# the programs the command checks run, over /usr/bin and /usr/sbin for LBNL NHC and nhc alike
for d in bin sbin; do
  mkdir -p "$stage/ovl/$d/upper" "$stage/ovl/$d/work" "$stage/standins/$d"
  cp -a "$stage/standins/$d/." "$stage/ovl/$d/upper/"
  mount -t overlay nhc-stand-ins -o "lowerdir=/usr/$d,upperdir=$stage/ovl/$d/upper,workdir=$stage/ovl/$d/work" "/usr/$d"
done

# the node's other filesystems: sized tmpfs; filled as the variant says once the node's files are in
while IFS=$'\t' read -r point size inodes used files; do
  if [ -n "$point" ] && [ "$point" != / ]; then
    mkdir -p "$root$point"
    mount -t tmpfs -o "size=${size}k,nr_inodes=$inodes,mode=0755" nhc-fake "$root$point"
  fi
done < "$stage/mounts.tsv"
cp -a "$stage/root/." "$root/"
mkdir -p "$root/opt/lbnl-nhc" "$root/etc/nhc/scripts"
cp "$lbnl/nhc" "$root/opt/lbnl-nhc/nhc"
cp "$lbnl"/scripts/*.nhc "$root/etc/nhc/scripts/"
cp "$out/lbnl.conf" "$root/etc/nhc/nhc.conf"
while IFS=$'\t' read -r point size inodes used files; do
  [ -n "$point" ] || continue
  dir=$root$point
  if [ "$used" -gt 0 ]; then
    have=$(df -k --output=avail "$dir" | tail -n 1)
    want=$((size - used))
    # fill until df shows what the variant wants available, whatever the files already take
    [ "$have" -gt "$want" ] && dd if=/dev/zero of="$dir/.nhc-fill" bs=1k count=$((have - want)) status=none 2>/dev/null || true
  fi
  if [ "$files" -gt 0 ]; then
    mkdir -p "$dir/.nhc-inodes"
    have=$(df --output=iavail "$dir" | tail -n 1)
    want=$((inodes - files))
    [ "$have" -gt "$want" ] && (cd "$dir/.nhc-inodes" && seq 1 $((have - want)) | xargs touch) 2>/dev/null || true
  fi
done < "$stage/mounts.tsv"

# what a chroot needs to run bash, LBNL NHC and its tools
mkdir -p "$root/usr" "$root/dev" "$root/etc/alternatives"
mount --rbind /usr "$root/usr"
mount --rbind /dev "$root/dev"
mount --bind /etc/alternatives "$root/etc/alternatives"   # awk, and other tools Debian links through it
mount --bind "$stage/ps" "$root/usr/bin/ps"

# df takes a mount whose device is not its mount point's for one hidden under another: give each its real one
while IFS= read -r line; do
  read -r _ _ _ _ point _ <<< "$line"
  echo "${line/@DEV@/$(stat -c '%Hd:%Ld' "$root$point" 2>/dev/null || echo 0:0)}"
done < "$root/proc/self/mountinfo" > "$stage/mountinfo"
cp "$stage/mountinfo" "$root/proc/self/mountinfo"

# what df shows each of them, for reading after a disagreement
chroot "$root" /usr/bin/df -Tka > "$out/df.txt" 2>&1 || true
chroot "$root" /usr/bin/df -Tia >> "$out/df.txt" 2>&1 || true

# LBNL NHC: every check (-a), each named as it runs (-v), to stdout (-l -), nothing marked offline
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin SHELL=/bin/bash \
  /bin/bash /opt/lbnl-nhc/nhc -D /etc/nhc -c /etc/nhc/nhc.conf -l - -a -v MARK_OFFLINE=0 > "$out/lbnl.out" 2>&1 || true

# nhc, on the same node
"$app/bin/nhc" run --json -c "$out/nhc.yaml" "$@" > "$out/nhc.json" 2> "$out/nhc.err" || true
