# Fault rows (issue 17 item 3): a latch is never lost to state damage. Sourced by ../fault-suite.sh.
#
# Each row: a passing run, then a run that latches XID 79 and has nhc FAIL the node in Slurm (a
# recording stand-in scontrol that keeps the node's state), then the kernel log is rotated so that
# only the state remembers the XID, and the state is damaged as an attack or a crash leaves it:
#   - the current generation cut (0 bytes, 1 byte, half, all but the last two bytes);
#   - a crash between the two renames of the latching write: no current file, the pre-latch file as
#     .prev, the latching generation in an orphaned temp file;
#   - both generations deleted (and then the journal too) while nhc holds the node.
# Two runs after each: neither may pass, and scontrol must never be asked for State=RESUME.

# latch_setup DIR: config DIR/nhc.yaml (gpu.xid on a log file, slurm: with the stand-in), system root
# DIR/root, state DIR/state; saves the state after the passing run in DIR/before and after the
# latching run in DIR/latched, and rotates the log. Fails (miss) when the latching run did not FAIL the node.
latch_setup() {
  local d=$1
  mkdir -p "$d/state" "$d/root/proc/sys/kernel/random" "$d/root/var/log"
  chmod 0700 "$d/state"
  echo "boot-1" >"$d/root/proc/sys/kernel/random/boot_id"
  echo "State=IDLE ThreadsPerCore=1 Reason=(null)" >"$d/node"
  slurm_stand_in "$d"   # the suite's recording scontrol, which keeps the node's state
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $d/state, root: $d/root, deadline: 30s }
slurm: { scontrol: $d/bin/scontrol, sinfo: $d/bin/sinfo, resume_after: 1 }
checks:
  - { name: xid, use: gpu.xid, with: { log: /var/log/kern.log } }
EOF
  echo "[1.0] usb 1-1: new high-speed USB device" >"$d/root/var/log/kern.log"
  latch_run "$d" before
  [ "$RC" = 0 ] || { miss "setup: the first run did not pass (exit $RC: $(head -c 300 "$d/before.out" | tr '\n' ' '))"; return 1; }
  cp -a "$d/state" "$d/before"
  echo "[5.0] $XID79" >>"$d/root/var/log/kern.log"
  latch_run "$d" latch
  if [ "$RC" != 1 ] || ! grep -q '^update NodeName=fault-node State=FAIL' "$d/scontrol.calls" 2>/dev/null; then
    miss "setup: the latching run did not FAIL the node (exit $RC: $(head -c 300 "$d/latch.out" | tr '\n' ' '))"
    return 1
  fi
  cp -a "$d/state" "$d/latched"
  cp "$d/node" "$d/node.latched"
  echo "[9.0] usb 1-1: USB disconnect" >"$d/root/var/log/kern.log"   # rotated: only the state remembers the XID
  rm -f "$d/scontrol.calls"
}

latch_run() {
  PATH="$1/bin:$PATH" nhc_run "$1" "$2" run --slurm --hostname fault-node -c "$1/nhc.yaml"
}

# latch_state DIR FROM: the state directory as FROM (before, latched) left it, the node FAILED by nhc
latch_state() {
  rm -rf "$1/state"
  cp -a "$1/$2" "$1/state"
  cp "$1/node.latched" "$1/node"   # as the latching run left it: FAILED by nhc
}

# latch_after DIR NAME: two runs after the damage; neither passes, neither asks for State=RESUME,
# and the node stays FAILED; notes what scontrol was asked. latch_said DIR NAME: what the first said.
latch_after() {
  local d=$1 n=$2 i updates exits=
  rm -f "$d/scontrol.calls"
  for i in 1 2; do
    latch_run "$d" "$n-$i"
    expect_clean "$d" "$n-$i"
    exits+="${exits:+, }$RC"
    [ "$RC" = 1 ] || miss "$n: run $i exit $RC, not 1 ($(grep -m2 -E 'xid|state' "$d/$n-$i.out" | tr '\n' ' ' | cut -c1-200))"
  done
  if grep -q 'State=RESUME' "$d/scontrol.calls" 2>/dev/null; then
    miss "$n: scontrol $(grep -m1 'State=RESUME' "$d/scontrol.calls")"
  fi
  grep -q 'State=IDLE+FAIL' "$d/node" || miss "$n: the node is no longer FAILED: $(cat "$d/node")"
  updates=$(grep -c '^update' "$d/scontrol.calls" 2>/dev/null); updates=${updates:-0}
  note "$n: exit $exits, scontrol update ×$updates$(grep -q 'State=RESUME' "$d/scontrol.calls" 2>/dev/null && echo ' (State=RESUME)')"
}
latch_said() {
  note "$2: \"$(snip "$1/$2-1.out" '(XID 79 \(GPU has fallen off the bus\)|latched XIDs could not be read back).{0,120}')…\""
}

row_latch_cut_current() {
  local d=$T/latch-cut; mkdir -p "$d"
  latch_setup "$d" || return 1
  local size cut
  size=$(stat -c %s "$d/latched/check.xid.json")
  for cut in 0 1 $((size / 2)) $((size - 2)); do
    latch_state "$d" latched
    truncate -s "$cut" "$d/state/check.xid.json"
    latch_after "$d" "cut-$cut"
  done
  latch_said "$d" cut-0
  note "check.xid.json ($size bytes) cut to 0, 1, $((size / 2)) and $((size - 2)) bytes after the latching run"
}

row_latch_orphaned_tmp() {
  local d=$T/latch-tmp; mkdir -p "$d"
  latch_setup "$d" || return 1
  # What a crash between the renames leaves: the current file renamed to .prev (the pre-latch
  # generation), the latching generation never renamed from its temp file, the journal not told.
  latch_state "$d" before
  rm -f "$d/state/check.xid.json" "$d/state/check.xid.json.prev"
  cp "$d/before/check.xid.json" "$d/state/check.xid.json.prev"
  local tmp=".check.xid.json.4242.$(date +%s%N).tmp"
  cp "$d/latched/check.xid.json" "$d/state/$tmp"
  cp -a "$d/latched/slurm.json"* "$d/state/"   # nhc's Slurm record of the FAIL it set
  latch_after "$d" orphaned
  latch_said "$d" orphaned
  if has "$d/orphaned-1.out" "recovered state file .*$tmp"; then
    note "\"$(snip "$d/orphaned-1.out" 'recovered state file .{0,120}')…\""
  else
    miss "the report does not say the temp file was recovered"
  fi
  [ ! -e "$d/state/$tmp" ] && note "the temp file is gone once saved in its place" || miss "the orphaned temp file is still there"
}

row_latch_deleted_held() {
  local d=$T/latch-gone; mkdir -p "$d"
  latch_setup "$d" || return 1
  latch_state "$d" latched
  rm -f "$d/state/check.xid.json" "$d/state/check.xid.json.prev"
  latch_after "$d" deleted
  latch_said "$d" deleted
  has "$d/deleted-1.out" "could not be read back .*while nhc's Slurm record says it set node fault-node to FAIL" \
    || miss "the report does not say the latches were lost while nhc holds the node"
  latch_state "$d" latched
  rm -f "$d/state/check.xid.json" "$d/state/check.xid.json.prev" "$d/state/generations.journal"
  latch_after "$d" "deleted-with-journal"
  latch_said "$d" "deleted-with-journal"
}

row "latch: the current state generation cut after a latching run, recording fake scontrol" row_latch_cut_current
row "latch: a crash between the renames of the latching write (orphaned .tmp), recording fake scontrol" row_latch_orphaned_tmp
row "latch: both state generations deleted while nhc holds the node (and the journal too), recording fake scontrol" row_latch_deleted_held
