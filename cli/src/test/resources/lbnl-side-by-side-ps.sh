#!/bin/bash
# LBNL NHC's "ps axo user:32,uid,pid,ppid,pcpu,pmem,rss,vsz,bsdtime,args" over the /proc that
# LbnlSideBySideIT wrote: procps's ps cannot read a /proc of plain files. The columns LBNL NHC
# reads are the user (its name, from /etc/passwd, else the uid), the pid and the command line: its
# NULs as blanks, "[comm]" when it is empty, as procps prints it.
echo "USER                             UID     PID    PPID %CPU %MEM   RSS    VSZ   TIME COMMAND"
for dir in /proc/[0-9]*; do
  [ -r "$dir/status" ] || continue
  pid=${dir#/proc/}
  uid=$(awk '/^Uid:/ { print $2; exit }' "$dir/status")
  user=$(awk -F: -v u="$uid" '$3 == u { print $1; exit }' /etc/passwd)
  args=$(tr '\0' ' ' < "$dir/cmdline" | sed 's/ *$//')
  [ -n "$args" ] || args="[$(cat "$dir/comm")]"
  printf '%-32s %5s %7s %7s %4s %4s %5s %6s %6s %s\n' "${user:-$uid}" "$uid" "$pid" 1 0.0 0.0 1000 2000 0:00 "$args"
done
