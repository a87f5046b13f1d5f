#!/usr/bin/env bash
# Fault suite (issue 13): the packaged bin/nhc, as root, through the faults a node really meets,
# one row each: what nhc must do, what it did. A corrupt state file, a full disk, a swapped link, a
# hung GPU or a hung dstack-shim must never decide a node's fate: no drain by a bug, no PASS that
# forgets a latched fault, no exit 3 with a stack trace, no half-written file, no hang past the
# deadline.
#
# Rows (each asserts the right behaviour, and its evidence is what was observed):
#   state files  garbage, empty, both generations garbage, huge (sparse 2 GiB; 200 MB + 2 GiB),
#                a FIFO, a link to /dev/zero: a gpu.xid check that latched XID 79 before the fault
#                (the kernel log rotated since, so only the state remembers it)
#   full disk    state_dir on a small tmpfs filled up: a one-shot run, and the daemon
#   links        a state file swapped for a link to a shadow-style file, log_file a link, a script
#                check's program swapped for one another user owns (both config errors as root)
#   hung NVML    the project's fake NVML with delays on a per-GPU call, nvmlInit_v2 and
#                nvmlDeviceGetCount_v2
#   hung shim    nhc daemon's dstack proxy in front of a shim that accepts and never answers,
#                1000 concurrent GET /api/instance/health (and wrk, when installed)
#   restart      the daemon started on a garbage last-verdict file
#   Slurm        a garbage ledger (slurm.json) with a fake scontrol that records its arguments
#                (this row only; a real Slurm is slurm-integration/src/e2e/run-e2e.sh's job)
# Prints each row as it ends, then the whole table (Markdown); exits 1 if any row did not survive.
#
# Usage: fault-suite.sh [APP_DIR]   (default: cli/target/nhc, built by `mvn package`)
# Needs: root (tmpfs mounts, another user's files), python3, curl, setpriv/mount (util-linux),
#        gcc/make when the fake NVML is not built yet; wrk optional (apt-get install wrk).
# Changes nothing outside its temp directory: tmpfs mounts live under it and are unmounted on exit,
# every process it starts is stopped on exit, ports are free local ones, and nhc runs with
# NHC_CDS=off so that its launcher never writes a class-data archive into APP_DIR.
# Environment: NHC_FAULT_SUITE_TIMEOUT (seconds for the whole suite, default 900);
#   NHC_FAULT_SUITE_ONLY (a regex on the row functions, e.g. 'nvml|shim': run only those rows).
set -uo pipefail

here=$(cd -- "$(dirname -- "$0")" && pwd)
repo=$(cd -- "$here/../../.." && pwd)
app=$(cd -- "${1:-$repo/cli/target/nhc}" && pwd)
nhc=$app/bin/nhc
limit=${NHC_FAULT_SUITE_TIMEOUT:-900}
only=${NHC_FAULT_SUITE_ONLY:-}
export NHC_CDS=off
began=$(date +%s)

say() { printf '[fault-suite %3ss] %s\n' "$(( $(date +%s) - began ))" "$*"; }
die() { say "FAILED: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (nhc's root rules, tmpfs mounts, files owned by another user)"
[ -x "$nhc" ] || die "no $nhc: build it first (mvn -B package -DskipTests)"
for tool in python3 curl mount umount setpriv timeout; do
  command -v "$tool" >/dev/null || die "$tool is not installed"
done

T=$(mktemp -d /tmp/nhc-faults.XXXXXX)
chmod 0755 "$T"   # root's and writable by no one else: nhc trusts configs and scripts under it
pids=()
mounts=()
cleanup() {
  local rc=$?
  set +e
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 20); do kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null
  done
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || umount -l "$m"; done
  rm -rf --one-file-system -- "$T"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

in_time() { [ $(( $(date +%s) - began )) -lt "$limit" ]; }
now_ms() { date +%s%3N; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# ---- rows ------------------------------------------------------------------------------------------
# A row function notes evidence (note) and what did not hold (miss); row() runs it and records
# "fault | survived | evidence". A row that cannot even be set up did not survive either.
names=() survived=() evidence=()
ev=() bad=()
note() { ev+=("$*"); }
miss() { bad+=("$*"); }
join_by() { local sep=$1 out=$2; shift 2; for x in "$@"; do out+="$sep$x"; done; printf '%s' "$out"; }
row() {
  local name=$1 fn=$2 t0 ok text
  [ -z "$only" ] || [[ $fn =~ $only ]] || return 0
  ev=() bad=()
  if ! in_time; then
    miss "not run: the suite's ${limit}s were used up"
  else
    t0=$(now_ms)
    "$fn"   # a row that cannot be set up says so with miss
    note "row took $(( ($(now_ms) - t0) / 100 ))00 ms"
  fi
  ok=yes
  [ ${#bad[@]} -eq 0 ] || ok=no
  text=$(join_by '; ' "${ev[@]}")
  if [ "$ok" = no ]; then text="NOT: $(join_by '; NOT: ' "${bad[@]}"). Observed: $text"; fi
  text=$(printf '%s' "$text" | tr '\n|' ' /')
  names+=("$name") survived+=("$ok") evidence+=("$text")
  say "| $name | $ok | $text |"
}

# nhc_run DIR NAME ARGS...: bin/nhc ARGS with stdout in DIR/NAME.out, stderr in DIR/NAME.err;
# sets RC (exit code) and MS (wall time of the whole process, JVM start included).
nhc_run() {
  local d=$1 n=$2 t0; shift 2
  t0=$(now_ms)
  timeout -k 5 120 "$nhc" "$@" >"$d/$n.out" 2>"$d/$n.err"
  RC=$?
  MS=$(( $(now_ms) - t0 ))
}
# snip FILE REGEX: the first match, at most 160 characters (for the evidence)
snip() { grep -o -m1 -E -- "$2" "$1" 2>/dev/null | head -n 1 | cut -c1-160; }
has() { grep -q -E -- "$2" "$1"; }
# clean DIR NAME: nhc printed no stack trace and no JVM error
clean() {
  ! grep -q -E $'^\tat |Exception in thread|OutOfMemoryError|^Caused by: ' "$1/$2.out" "$1/$2.err"
}
# expect_clean DIR NAME: exit not 3 and no stack trace
expect_clean() {
  [ "$RC" != 3 ] || miss "$2: exit 3 ($(head -c 200 "$1/$2.err" | tr '\n' ' '))"
  clean "$1" "$2" || miss "$2: a stack trace or JVM error on stdout/stderr"
}
# json_get FILE PYTHON-EXPRESSION-OF-d: prints the value (empty when the file is not JSON)
json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }
# the check's findings' messages from a --json report
json_messages() { json_get "$1" '" / ".join(f["message"] for f in d["findings"])'; }
latched_count() { json_get "$1" 'len(d.get("xid.latched", []))'; }
no_tmp_files() { [ -z "$(find "$1" -name '.*.tmp' 2>/dev/null)" ]; }

# ---- a gpu.xid check on a kernel log file, with XID 79 latched ------------------------------------
# xid_setup DIR: config DIR/nhc.yaml, system root DIR/root, state DIR/state;
# the first run latches XID 79 of 0000:3b:00, then the log is rotated so only the state remembers it.
XID79="NVRM: Xid (PCI:0000:3b:00): 79, pid=0, name=python3, GPU has fallen off the bus."
xid_setup() {
  local d=$1 state=$1/state
  mkdir -p "$d/root/proc/sys/kernel/random" "$d/root/var/log"
  echo "boot-1" >"$d/root/proc/sys/kernel/random/boot_id"
  echo "[5.0] $XID79" >"$d/root/var/log/kern.log"
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $state, root: $d/root, deadline: 30s }
checks:
  - { name: xid, use: gpu.xid, with: { log: /var/log/kern.log } }
EOF
  nhc_run "$d" latch run -c "$d/nhc.yaml"
  if [ "$RC" != 1 ] || ! has "$d/latch.out" "XID 79"; then
    miss "setup: the first run did not fail with XID 79 (exit $RC: $(head -c 300 "$d/latch.out" "$d/latch.err" | tr '\n' ' '))"
    return 1
  fi
  echo "[9.0] usb 1-1: new high-speed USB device" >"$d/root/var/log/kern.log"
}

# after_damage DIR NAME FILE-NAMED: the run after the damage still fails with the latched XID
# (from .json.prev) and names the damaged file; the state saved afterwards is whole again.
after_damage() {
  local d=$1 n=$2 why=$3
  nhc_run "$d" "$n" run -c "$d/nhc.yaml"
  expect_clean "$d" "$n"
  note "exit $RC in ${MS} ms"
  [ "$RC" = 1 ] || miss "exit $RC, not 1 (the latched XID must still fail the node)"
  has "$d/$n.out" "XID 79 \(GPU has fallen off the bus\)" && note "\"$(snip "$d/$n.out" 'XID 79 \(GPU has fallen off the bus\)')\"" \
    || miss "the report does not show the latched XID 79"
  if has "$d/$n.out" "state file check\.xid\.json .*$why.* could not be read; using .*check\.xid\.json\.prev"; then
    note "report: \"$(snip "$d/$n.out" "state file check\.xid\.json .{0,90}")…\""
  else
    miss "the report does not name check.xid.json as unreadable ($why) and .prev as used"
  fi
  local after=$d/state/check.xid.json
  if [ -f "$after" ] && [ ! -L "$after" ] && [ "$(latched_count "$after")" = 1 ]; then
    note "afterwards check.xid.json is a regular JSON file with the 1 latched XID, the bad one moved to $(cd "$d/state" && ls -d check.xid.json.corrupt-* 2>/dev/null | head -n 1)"
  else
    miss "afterwards check.xid.json is not a JSON file holding the latched XID"
  fi
  no_tmp_files "$d/state" || miss "temp files left in the state directory"
}

row_corrupt() {
  local d=$T/corrupt; mkdir -p "$d"
  xid_setup "$d" || return 1
  printf '{"xid.latched": [ {"kind": "xid", "pci": \x00\xff garbage' >"$d/state/check.xid.json"
  after_damage "$d" run "Unexpected character|Unrecognized|Illegal"
}

row_empty() {
  local d=$T/empty; mkdir -p "$d"
  xid_setup "$d" || return 1
  : >"$d/state/check.xid.json"
  after_damage "$d" run "is empty"
}

row_both_corrupt() {
  local d=$T/both; mkdir -p "$d"
  xid_setup "$d" || return 1
  echo 'not json at all' >"$d/state/check.xid.json"
  printf '\x00\x00\x00' >"$d/state/check.xid.json.prev"
  local i sev msg unknowns=0
  for i in 1 2 3; do
    nhc_run "$d" "lost$i" run --json -c "$d/nhc.yaml"
    expect_clean "$d" "lost$i"
    sev=$(json_get "$d/lost$i.out" 'd["severity"]')
    msg=$(json_messages "$d/lost$i.out")
    if [ "$RC" = 0 ] && [ "$sev" = unknown ] && [[ $msg == *"state unreadable: could not read check.xid.json"*"check.xid.json.prev"* ]]; then
      unknowns=$((unknowns + 1))
    else
      miss "run $i: exit $RC, severity '$sev', message '$msg' (must be unknown, 'state unreadable …', never pass)"
    fi
  done
  note "3 runs: $unknowns × exit 0 severity unknown: \"$(printf '%s' "$msg" | cut -c1-150)…\""
  nhc_run "$d" clear clear xid -c "$d/nhc.yaml"
  expect_clean "$d" clear
  [ "$RC" = 0 ] || miss "nhc clear xid: exit $RC"
  note "nhc clear xid: exit $RC"
  nhc_run "$d" cleared run --json -c "$d/nhc.yaml"
  sev=$(json_get "$d/cleared.out" 'd["severity"]')
  [ "$RC" = 0 ] && [ "$sev" = pass ] || miss "after nhc clear: exit $RC severity '$sev', not a pass"
  note "then: exit $RC, severity $sev"
}

row_huge_sparse() {
  local d=$T/huge; mkdir -p "$d"
  xid_setup "$d" || return 1
  truncate -s 2G "$d/state/check.xid.json"
  after_damage "$d" run "larger than 16777216 bytes"
  [ "$MS" -lt 10000 ] || miss "took ${MS} ms (a refusal must be quick)"
}

row_huge_both() {
  local d=$T/huge2; mkdir -p "$d"
  xid_setup "$d" || return 1
  yes '{"xid.latched": [1, 2, 3],' | head -c 200M >"$d/state/check.xid.json"
  truncate -s 2G "$d/state/check.xid.json.prev"
  local t0 rss sev msg
  t0=$(now_ms)
  if [ -x /usr/bin/time ]; then
    timeout -k 5 120 /usr/bin/time -o "$d/rss" -f '%M' "$nhc" run --json -c "$d/nhc.yaml" >"$d/run.out" 2>"$d/run.err"
  else
    timeout -k 5 120 "$nhc" run --json -c "$d/nhc.yaml" >"$d/run.out" 2>"$d/run.err"
  fi
  RC=$?; MS=$(( $(now_ms) - t0 ))
  expect_clean "$d" run
  rss=$(cat "$d/rss" 2>/dev/null)
  sev=$(json_get "$d/run.out" 'd["severity"]')
  msg=$(json_messages "$d/run.out")
  note "200 MB check.xid.json + sparse 2 GiB .prev: exit $RC, severity $sev in ${MS} ms${rss:+, peak RSS $((rss / 1024)) MiB}"
  [ "$RC" = 0 ] && [ "$sev" = unknown ] || miss "exit $RC severity '$sev' (both generations refused: unknown, never pass)"
  [[ $msg == *"check.xid.json (larger than 16777216 bytes)"*"check.xid.json.prev (larger than 16777216 bytes)"* ]] \
    && note "\"$(printf '%s' "$msg" | cut -c1-150)…\"" || miss "the message does not name both files as too large: '$msg'"
  [ "$MS" -lt 10000 ] || miss "took ${MS} ms"
  [ -z "$rss" ] || [ "$rss" -lt 400000 ] || miss "peak RSS ${rss} KiB: the files were read"
}

row_fifo() {
  local d=$T/fifo; mkdir -p "$d"
  xid_setup "$d" || return 1
  rm -f "$d/state/check.xid.json"; mkfifo -m 0600 "$d/state/check.xid.json"
  after_damage "$d" run "FIFO|fifo|pipe"
  [ "$MS" -lt 10000 ] || miss "took ${MS} ms (hung on the FIFO?)"
}

row_devzero() {
  local d=$T/devzero; mkdir -p "$d"
  xid_setup "$d" || return 1
  ln -sfn /dev/zero "$d/state/check.xid.json"
  after_damage "$d" run "symbolic link"
  [ "$MS" -lt 10000 ] || miss "took ${MS} ms (read /dev/zero?)"
}

# ---- full disk --------------------------------------------------------------------------------------
# tmpfs DIR SIZE: a tmpfs only root can write, unmounted on exit
tmpfs() {
  mkdir -p "$1"
  mount -t tmpfs -o "size=$2,mode=0700" tmpfs "$1" || return 1
  mounts+=("$1")
}
fill() { dd if=/dev/zero of="$1/filler" bs=4k >/dev/null 2>&1; [ "$(df --output=avail -k "$1" | tail -n 1 | tr -d ' ')" -lt 8 ]; }

row_full_disk_run() {
  local d=$T/full; mkdir -p "$d"
  tmpfs "$d/state" 512k || { miss "cannot mount a tmpfs"; return 1; }
  xid_setup "$d" || return 1
  fill "$d/state" || miss "the tmpfs did not fill up"
  local before; before=$(sha256sum <"$d/state/check.xid.json")
  # A new fatal XID on another GPU while the disk is full: judged now, saved once there is room.
  echo "[12.0] NVRM: Xid (PCI:0000:19:00): 79, pid=0, name=python3, GPU has fallen off the bus." >>"$d/root/var/log/kern.log"
  nhc_run "$d" full run -c "$d/nhc.yaml"
  expect_clean "$d" full
  note "disk full: exit $RC in ${MS} ms"
  [ "$RC" = 1 ] || miss "exit $RC on a full disk, not 1 (two fatal XIDs)"
  has "$d/full.out" "0000:19:00.*XID 79" && has "$d/full.out" "0000:3b:00.*XID 79" || miss "the report does not show both XIDs"
  if has "$d/full.out" "could not save state: cannot write .*No space left on device"; then
    note "\"$(snip "$d/full.out" 'could not save state: .{0,130}')…\""
  else
    miss "the report does not say what it could not save"
  fi
  no_tmp_files "$d/state" && note "no temp files left" || miss "temp files left: $(find "$d/state" -name '.*.tmp' | head -n 3)"
  [ "$(sha256sum <"$d/state/check.xid.json")" = "$before" ] && note "check.xid.json unchanged (the old generation, whole)" \
    || miss "check.xid.json changed while the disk was full"
  rm -f "$d/state/filler"
  nhc_run "$d" freed run -c "$d/nhc.yaml"
  expect_clean "$d" freed
  local saved
  saved=$(json_get "$d/state/check.xid.json" '",".join(sorted(x["pci"] for x in d["xid.latched"]))')
  [ "$RC" = 1 ] && [ "$saved" = "0000:19:00,0000:3b:00" ] && ! has "$d/freed.out" "could not save" \
    && note "space freed: exit $RC, state saved (latched: $saved)" || miss "after freeing space: exit $RC, latched in state '$saved'"
}

# daemon_start DIR CONFIG: nhc daemon in the background (pid in DPID), log in DIR/daemon.log
daemon_start() {
  "$nhc" daemon -c "$2" >"$1/daemon.log" 2>&1 &   # NHC_CDS=off: the launcher execs java, SIGTERM reaches it
  DPID=$!
  pids+=("$DPID")
}
daemon_stop() {
  kill -TERM "$DPID" 2>/dev/null
  for _ in $(seq 1 40); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.25; done
  kill -9 "$DPID" 2>/dev/null
  wait "$DPID" 2>/dev/null
}
# until_true SECONDS COMMAND...: polls every 0.2 s
until_true() {
  local end=$(( $(now_ms) + $1 * 1000 )); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(now_ms)" -lt "$end" ] || return 1
    sleep 0.2
  done
}
http_json() { curl -s --max-time 5 "$1" -o "$2"; }
# verdict_is PORT SEVERITY
verdict_is() { http_json "http://127.0.0.1:$1/v1/verdict" "$DIRV/verdict.json" && [ "$(json_get "$DIRV/verdict.json" 'd["severity"]')" = "$2" ]; }

row_full_disk_daemon() {
  local d=$T/fulld; mkdir -p "$d/root/e2e"; DIRV=$d
  tmpfs "$d/state" 512k || { miss "cannot mount a tmpfs"; return 1; }
  touch "$d/root/e2e/healthy"
  local port; port=$(free_port)
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { interval: 1s, state_dir: $d/state, root: $d/root }
daemon: { metrics_listen: "127.0.0.1:$port", socket: $d/nhc.sock }
checks:
  - { name: marker, use: file, with: { path: /e2e/healthy } }
EOF
  daemon_start "$d" "$d/nhc.yaml"
  until_true 60 verdict_is "$port" pass || { miss "the daemon gave no passing verdict ($(tail -n 5 "$d/daemon.log" | tr '\n' ' '))"; return 1; }
  until_true 10 test -f "$d/state/daemon.json" || miss "no daemon.json written while there was room"
  fill "$d/state" || miss "the tmpfs did not fill up"
  rm -f "$d/root/e2e/healthy"   # the verdict changes while nothing can be saved
  if until_true 30 verdict_is "$port" fail; then
    note "disk full: /v1/verdict says fail (the marker check) from memory"
  else
    miss "the daemon did not serve the new verdict while the disk was full"
  fi
  healthz_says() { http_json "http://127.0.0.1:$port/healthz" "$d/healthz.json" && grep -q "$1" "$d/healthz.json"; }
  if until_true 15 healthz_says "No space left on device"; then
    note "/healthz: $(json_get "$d/healthz.json" 'd["status"] + ": " + " / ".join(d["problems"])' | cut -c1-200)"
  else
    miss "/healthz does not say the state cannot be written: $(head -c 300 "$d/healthz.json")"
  fi
  local errs
  errs=$(curl -s --max-time 5 "http://127.0.0.1:$port/metrics" | awk '/^nhc_state_write_errors_total/ {print $2}')
  [ -n "$errs" ] && awk "BEGIN{exit !($errs > 0)}" && note "nhc_state_write_errors_total $errs" || miss "nhc_state_write_errors_total is '$errs'"
  no_tmp_files "$d/state" || miss "temp files left in the state directory"
  rm -f "$d/state/filler"
  saved_fail() { [ "$(json_get "$d/state/daemon.json" 'd["verdict"]["severity"]')" = fail ]; }
  if until_true 15 saved_fail && until_true 10 healthz_says '"ok"'; then
    note "space freed: daemon.json holds the fail verdict, /healthz ok again"
  else
    miss "after freeing space: daemon.json verdict '$(json_get "$d/state/daemon.json" 'd["verdict"]["severity"]')', /healthz $(head -c 200 "$d/healthz.json")"
  fi
  daemon_stop
}

# ---- links and ownership ------------------------------------------------------------------------------
# A file in /etc/shadow's format with a made-up hash: what a link to a root secret would expose.
fake_shadow() {
  printf 'root:$6$faultsuite$SECRETHASHfaultsuite0123456789:19700:0:99999:7:::\n' >"$1"
  chmod 0600 "$1"
}

row_state_link() {
  local d=$T/statelink; mkdir -p "$d"
  xid_setup "$d" || return 1
  fake_shadow "$d/shadow"
  local sum; sum=$(sha256sum <"$d/shadow")
  ln -sfn "$d/shadow" "$d/state/check.xid.json"
  after_damage "$d" run "symbolic link"
  [ "$(sha256sum <"$d/shadow")" = "$sum" ] && note "the link's target unchanged (sha256)" || miss "the link's target was written"
  if grep -rq "SECRETHASH" "$d/state" "$d/run.out" "$d/run.err" 2>/dev/null; then
    miss "the target's content was read into state or the report"
  else
    note "its content is nowhere in state or the report"
  fi
}

row_log_link() {
  local d=$T/loglink; mkdir -p "$d"
  fake_shadow "$d/shadow"
  local sum; sum=$(sha256sum <"$d/shadow")
  ln -s "$d/shadow" "$d/nhc.log"
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $d/state, log_file: $d/nhc.log, log_level: info }
checks:
  - { name: ok, use: command, with: { command: [/bin/true] } }
EOF
  nhc_run "$d" run run -c "$d/nhc.yaml"
  expect_clean "$d" run
  note "exit $RC"
  # As root a log_file root must not write is a config error at its place (issue 17): nothing runs.
  [ "$RC" = 2 ] || miss "exit $RC (a log_file that is a link is a config error: 2)"
  has "$d/run.err" "nhc\.yaml:2:[0-9]+: 'log_file' in settings: refusing to write to $d/nhc.log as root: .*symbolic link" \
    && note "\"$(snip "$d/run.err" "'log_file' in settings: .{0,140}")\"" || miss "no config error naming the log_file link"
  [ "$(sha256sum <"$d/shadow")" = "$sum" ] && [ -L "$d/nhc.log" ] && note "the target unchanged, the link still a link" \
    || miss "the link's target was written or the link replaced"
}

row_script_swap() {
  local d=$T/script; mkdir -p "$d/site"
  printf '#!/bin/sh\necho "site check ok"\nexit 0\n' >"$d/site/check.sh"
  chmod 0755 "$d/site/check.sh"
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $d/state }
checks:
  - { name: site, use: script, with: { command: [$d/site/check.sh] } }
EOF
  nhc_run "$d" before run --json -c "$d/nhc.yaml"
  [ "$RC" = 0 ] && [ "$(json_get "$d/before.out" 'd["severity"]')" = pass ] || { miss "setup: root's script did not pass (exit $RC)"; return 1; }
  # Another user's script, renamed over root's between two runs.
  printf '#!/bin/sh\ntouch %s/payload-ran\nexit 0\n' "$d" >"$d/site/.swap"
  chmod 0755 "$d/site/.swap"; chown 65534:65534 "$d/site/.swap"
  mv -f "$d/site/.swap" "$d/site/check.sh"
  nhc_run "$d" swapped run --json -c "$d/nhc.yaml"
  expect_clean "$d" swapped
  # As root a program root must not run is a config error at its place (issue 17): nothing runs.
  note "root's script passed; swapped for uid 65534's: exit $RC"
  [ "$RC" = 2 ] || miss "exit $RC (must be refused: a config error, 2)"
  has "$d/swapped.err" "nhc\.yaml:4:[0-9]+: .*refusing to run $d/site/check.sh as root: .*owned by uid 65534, not root" \
    && note "\"$(snip "$d/swapped.err" 'refusing to run .{0,130}')\"" || miss "the refusal is not explained: '$(head -c 300 "$d/swapped.err")'"
  [ ! -e "$d/payload-ran" ] && note "the payload never ran" || miss "the other user's script RAN as root"
}

# ---- hung NVML --------------------------------------------------------------------------------------
nvml_dir=$T/fake-nvml
nvml_ready() {
  [ -f "$nvml_dir/libnvidia-ml.so.1" ] && return 0
  mkdir -p "$nvml_dir"
  local built=$repo/checks/target/fake-nvml/libnvidia-ml.so.1
  if [ -f "$built" ] && ! [ "$repo/checks/src/test/c/fake_nvml.c" -nt "$built" ]; then
    cp "$built" "$nvml_dir/libnvidia-ml.so.1"
  else
    make -s -C "$repo/checks/src/test/c" OUT="$nvml_dir" >"$nvml_dir/build.log" 2>&1
  fi
}
# nvml_scenario FILE TOP-DELAYS GPU1-DELAYS: two healthy H100s, with delays_ms at top level and on GPU 1
nvml_scenario() {
  python3 - "$@" <<'PY'
import json, sys
out, top, gpu1 = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
def gpu(i, bus):
    return {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-00000000-0000-0000-0000-0000000fa00%d" % i,
            "pci_bus_id": "00000000:%s:00.0" % bus, "temperature": 31, "memory_temperature": 40,
            "thresholds": {"shutdown": 92, "slowdown": 89, "mem_max": 95, "gpu_max": 87}, "clocks_event_reasons": 0}
s = {"description": "nhc fault suite", "driver_version": "535.161.08", "gpus": [gpu(0, "19"), gpu(1, "3B")]}
if top:
    s["delays_ms"] = top
if gpu1:
    s["gpus"][1]["delays_ms"] = gpu1
json.dump(s, open(out, "w"), indent=1)
PY
}
# hung_nvml NAME TOP-DELAYS GPU1-DELAYS EXPECTED-REGEX
hung_nvml() {
  local d=$T/nvml-$1; mkdir -p "$d"
  nvml_ready || { miss "cannot build the fake NVML ($(tail -n 3 "$nvml_dir/build.log" 2>/dev/null))"; return 1; }
  nvml_scenario "$d/scenario.json" "$2" "$3"
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $d/state, deadline: 20s, check_timeout: 15s, nvml_library: $nvml_dir/libnvidia-ml.so.1 }
checks:
  - { name: thermal, use: gpu.thermal }
EOF
  NHC_FAKE_NVML_SCENARIO=$d/scenario.json nhc_run "$d" run run -c "$d/nhc.yaml"
  expect_clean "$d" run
  note "exit $RC after ${MS} ms (deadline 20s)"
  [ "$RC" = 1 ] || miss "exit $RC, not 1 (a hung GPU is a sick GPU)"
  [ "$MS" -lt 22000 ] || miss "the run took ${MS} ms, past its 20 s deadline"
  has "$d/run.out" "$4" && note "\"$(snip "$d/run.out" "(FAIL|UNKNOWN|WARN) +thermal: .*")\"" \
    || miss "the report does not name the call and the GPU: '$(grep thermal "$d/run.out" | head -n 2 | tr '\n' ' ')'"
  local left
  left=$(grep -l -F "$nvml_dir/libnvidia-ml.so.1" /proc/[0-9]*/maps 2>/dev/null | grep -v "^/proc/$$/" | sed 's#/proc/\([0-9]*\)/maps#\1#' | tr '\n' ' ')
  [ -z "$left" ] && note "no process left with the library loaded" || miss "processes still hold the fake NVML: $left"
}
row_nvml_gpu_call() { hung_nvml gpucall '{}' '{"nvmlDeviceGetTemperature": 600000}' "FAIL +thermal: GPU 1 \(0000:3b:00\.0\) not responding: nvmlDeviceGetTemperature blocked"; }
row_nvml_init() { hung_nvml init '{"nvmlInit_v2": 600000}' '{}' "FAIL +thermal: .*nvmlInit_v2 blocked"; }
row_nvml_count() { hung_nvml count '{"nvmlDeviceGetCount_v2": 600000}' '{}' "FAIL +thermal: .*nvmlDeviceGetCount_v2 blocked"; }

# ---- hung shim, the proxy under load ----------------------------------------------------------------
row_hung_shim() {
  local d=$T/shim; mkdir -p "$d"
  local listen shim status
  listen=$(free_port); shim=$(free_port); status=$(free_port)
  # The stand-in shim: accepts every connection and never reads or answers.
  cat >"$d/shim.py" <<'PY'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(4096)
held = []
while True:
    c, _ = s.accept()
    held.append(c)
PY
  python3 "$d/shim.py" "$shim" >"$d/shim.log" 2>&1 &
  pids+=($!)
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { interval: 5s, state_dir: $d/state }
daemon: { metrics_listen: "127.0.0.1:$status", socket: $d/nhc.sock }
dstack: { listen: "127.0.0.1:$listen", shim: "127.0.0.1:$shim" }
checks:
  - { name: ok, use: command, with: { command: [/bin/true] } }
EOF
  DIRV=$d
  daemon_start "$d" "$d/nhc.yaml"
  until_true 60 verdict_is "$status" pass || { miss "the daemon gave no verdict ($(tail -n 5 "$d/daemon.log" | tr '\n' ' '))"; return 1; }
  # The first health poll after start: the shim's answer is not there yet and never comes.
  local first
  first=$(curl -s -o "$d/first.json" -w '%{http_code} %{time_total}' --max-time 15 "http://127.0.0.1:$listen/api/instance/health")
  note "first poll (nothing cached, the shim asked): HTTP ${first% *} in ${first#* } s, overall_health $(json_get "$d/first.json" 'd["dcgm"]["overall_health"]')"
  [ "${first% *}" = 200 ] || miss "the first health poll got HTTP ${first% *}"
  awk "BEGIN{exit !(${first#* } < 9)}" || miss "the first health poll took longer than dstack's 9 s"
  ulimit -n 8192 2>/dev/null
  python3 - "$listen" "$d/burst.json" <<'PY'
import json, re, selectors, socket, sys, time
port, out, n, budget = int(sys.argv[1]), sys.argv[2], 1000, 9.0
sel = selectors.DefaultSelector()
req = b"GET /api/instance/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
conns = {}
t0 = time.perf_counter()
for i in range(n):
    s = socket.socket()
    s.setblocking(False)
    s.connect_ex(("127.0.0.1", port))
    conns[s] = {"start": time.perf_counter(), "sent": False, "buf": b""}
    sel.register(s, selectors.EVENT_WRITE)
done, bad = [], []
deadline = time.perf_counter() + 30
while conns and time.perf_counter() < deadline:
    for key, ev in sel.select(timeout=0.5):
        s, c = key.fileobj, conns.get(key.fileobj)
        if c is None:
            continue
        try:
            if not c["sent"]:
                s.sendall(req)
                c["sent"] = True
                sel.modify(s, selectors.EVENT_READ)
                continue
            data = s.recv(65536)
        except OSError as e:
            bad.append(type(e).__name__); sel.unregister(s); s.close(); del conns[s]; continue
        c["buf"] += data
        head, sep, body = c["buf"].partition(b"\r\n\r\n")
        m = re.search(rb"content-length: *(\d+)", head, re.I)
        complete = sep and (len(body) >= int(m.group(1)) if m else not data)
        if complete or not data:
            ms = (time.perf_counter() - c["start"]) * 1000
            sel.unregister(s); s.close(); del conns[s]
            status = head.split(b" ", 2)[1].decode() if head.startswith(b"HTTP/") else "?"
            try:
                dcgm = json.loads(body[: int(m.group(1))] if m else body)["dcgm"]
                health, first = dcgm["overall_health"], (dcgm["incidents"][0]["error_message"] if dcgm["incidents"] else "")
            except Exception:
                health, first = None, ""
            done.append({"ms": ms, "status": status, "health": health, "first": first})
lat = sorted(r["ms"] for r in done)
pct = lambda p: round(lat[min(len(lat) - 1, int(len(lat) * p))], 1) if lat else None
res = {"sent": n, "answered": len(done), "unanswered": len(conns), "errors": bad,
       "http_200": sum(1 for r in done if r["status"] == "200"),
       "health": {str(h): sum(1 for r in done if r["health"] == h) for h in {r["health"] for r in done}},
       "within_budget": sum(1 for r in done if r["ms"] <= budget * 1000),
       "p50_ms": pct(0.5), "p99_ms": pct(0.99), "max_ms": round(lat[-1], 1) if lat else None,
       "first_incident": next((r["first"] for r in done if r["first"]), ""), "wall_s": round(time.perf_counter() - t0, 2)}
json.dump(res, open(out, "w"))
PY
  local b=$d/burst.json
  if [ -f "$b" ]; then
    local answered ok200 h10 within p50 p99 mx inc
    answered=$(json_get "$b" 'd["answered"]'); ok200=$(json_get "$b" 'd["http_200"]'); h10=$(json_get "$b" 'd["health"].get("10", 0)')
    within=$(json_get "$b" 'd["within_budget"]'); p50=$(json_get "$b" 'd["p50_ms"]'); p99=$(json_get "$b" 'd["p99_ms"]')
    mx=$(json_get "$b" 'd["max_ms"]'); inc=$(json_get "$b" 'd["first_incident"]')
    note "1000 concurrent polls: $answered answered, $ok200 HTTP 200, $h10 with overall_health 10, p50 ${p50} ms, p99 ${p99} ms, max ${mx} ms"
    note "incident: \"$(printf '%s' "$inc" | cut -c1-120)\""
    [ "$answered" = 1000 ] && [ "$ok200" = 1000 ] || miss "not every poll was answered 200 ($(json_get "$b" 'd["errors"][:3], d["unanswered"]'))"
    [ "$h10" = 1000 ] || miss "overall_health not 10 (warning: the DCGM view is lost) on every answer: $(json_get "$b" 'd["health"]')"
    [ "$within" = 1000 ] || miss "$((1000 - within)) answers took longer than dstack's 9 s"
    [[ $inc == *dstack-shim* ]] || miss "the answer's incident does not say the shim is the problem"
  else
    miss "the load client failed"
  fi
  if command -v wrk >/dev/null; then
    wrk -t2 -c1000 -d5s --latency --timeout 9s "http://127.0.0.1:$listen/api/instance/health" >"$d/wrk.txt" 2>&1
    local w50 w99 wreq werr wnon
    w50=$(awk '$1 == "50%" {print $2}' "$d/wrk.txt"); w99=$(awk '$1 == "99%" {print $2}' "$d/wrk.txt")
    wreq=$(awk '/requests in/ {print $1}' "$d/wrk.txt")
    werr=$(grep -o 'Socket errors:.*' "$d/wrk.txt"); wnon=$(grep -o 'Non-2xx or 3xx responses: [0-9]*' "$d/wrk.txt")
    note "wrk -c1000 5 s: $wreq requests, p50 $w50, p99 $w99${werr:+, $werr}${wnon:+, $wnon}"
    [ -n "$wreq" ] && [ -z "$wnon" ] && ! [[ $werr =~ timeout\ [1-9] ]] || miss "wrk saw failed or timed-out requests"
  fi
  local hz
  hz=$(curl -s --max-time 5 -w 'HTTP %{http_code} ' -o "$d/healthz.json" "http://127.0.0.1:$status/healthz")
  note "/healthz: $hz$(head -c 300 "$d/healthz.json")"
  grep -q "dstack-shim" "$d/healthz.json" || miss "/healthz does not say what is wrong (the shim)"
  daemon_stop
}

# ---- the daemon restarted on a garbage last verdict ---------------------------------------------------
row_daemon_corrupt_verdict() {
  local d=$T/restart; mkdir -p "$d/state"; chmod 0700 "$d/state"
  local port; port=$(free_port); DIRV=$d
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { interval: 2s, state_dir: $d/state }
daemon: { metrics_listen: "127.0.0.1:$port", socket: $d/nhc.sock }
checks:
  - { name: ok, use: command, with: { command: [/bin/true] } }
EOF
  local variant
  for variant in garbage wrong-values; do
    if [ "$variant" = garbage ]; then
      printf '{"verdict": {"severity": "fail", \x01\x02' >"$d/state/daemon.json"
      printf '\x00\x00' >"$d/state/daemon.json.prev"
    else
      # JSON, but not a verdict nhc wrote: every value of the wrong type or out of range
      printf '{"verdict": {"node": 7, "severity": "catastrophic", "started": "2026-01-01T00:00:00Z", "duration_ms": -5, "checks": [{"name": null, "severity": [], "status": 5}, {"name": "ok", "severity": "catastrophic", "status": "completed"}, 7], "findings": ["x", {"check": 1}]}}\n' >"$d/state/daemon.json"
      printf '{"verdict": {"started": "yesterday", "checks": {"a": 1}, "findings": "x"}}\n' >"$d/state/daemon.json.prev"
    fi
    local t0; t0=$(date -u +%Y-%m-%dT%H:%M:%S)
    daemon_start "$d" "$d/nhc.yaml"
    if until_true 60 verdict_is "$port" pass; then
      local started; started=$(json_get "$d/verdict.json" 'd["started"]')
      note "$variant: started, judged afresh: pass at $started"
      [[ ! $started < $t0 ]] || miss "$variant: the verdict is older than the daemon ($started < $t0)"
    else
      miss "$variant: no fresh passing verdict ($(grep -v '^$' "$d/daemon.log" | tail -n 3 | tr '\n' ' ' | cut -c1-300))"
    fi
    clean_log() { ! grep -q -E $'^\tat |Exception in thread' "$d/daemon.log"; }
    clean_log || miss "$variant: a stack trace in the daemon's log"
    ! grep -q "serving the verdict of" "$d/daemon.log" || miss "$variant: the daemon served the damaged verdict: $(grep -m1 'serving the verdict of' "$d/daemon.log")"
    if grep -q -E "state of daemon is lost|not serving the verdict saved in" "$d/daemon.log"; then
      note "log: \"$(grep -o -m1 -E '(state of daemon is lost|not serving the verdict saved in).{0,110}' "$d/daemon.log")…\""
    else
      miss "$variant: the daemon's log does not say the saved verdict was not used"
    fi
    until_true 10 sh -c "python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))[\"verdict\"][\"severity\"] == \"pass\"' $d/state/daemon.json" \
      || miss "$variant: daemon.json does not hold the fresh verdict"
    daemon_stop
    cp "$d/daemon.log" "$d/daemon-$variant.log"
  done
}

# slurm_stand_in DIR: DIR/bin/scontrol and sinfo for the Slurm rows (a real Slurm is
# slurm-integration/src/e2e/run-e2e.sh's job): every call recorded in DIR/scontrol.calls; `show`
# prints node fault-node as DIR/node says ("State=IDLE ThreadsPerCore=1 Reason=(null)"), and
# `update` changes DIR/node as slurmctld would (DRAIN/FAIL with the reason, RESUME).
slurm_stand_in() {
  local d=$1
  mkdir -p "$d/bin"
  cat >"$d/bin/scontrol" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$d/scontrol.calls"
case "\$1" in
  show) printf 'NodeName=fault-node Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 %s\n' "\$(cat "$d/node")"; exit 0 ;;
  update)
    st=; re=
    for a in "\$@"; do
      case "\$a" in State=*) st=\${a#State=} ;; Reason=*) re=\${a#Reason=} ;; esac
    done
    case "\$st" in
      RESUME) echo "State=IDLE ThreadsPerCore=1 Reason=(null)" >"$d/node" ;;
      DRAIN|FAIL) echo "State=IDLE+\$st ThreadsPerCore=1 Reason=\$re [root@2026-01-05T10:00:00]" >"$d/node" ;;
    esac
    exit 0 ;;
esac
exit 1
EOF
  cp "$d/bin/scontrol" "$d/bin/sinfo"
  chmod 0755 "$d/bin/scontrol" "$d/bin/sinfo"
}

# ---- Slurm: a garbage ledger --------------------------------------------------------------------------
row_slurm_ledger() {
  local d=$T/slurm; mkdir -p "$d/bin" "$d/state"; chmod 0700 "$d/state"
  slurm_stand_in "$d"
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $d/state }
slurm: { scontrol: $d/bin/scontrol, sinfo: $d/bin/sinfo, resume_after: 1 }
checks:
  - { name: ok, use: command, with: { command: [/bin/true] } }
EOF
  local i=0 case_ label node ledger updates shown out
  for case_ in "idle|State=IDLE ThreadsPerCore=1 Reason=(null)|garbage" \
               "admin-drained|State=IDLE+DRAIN ThreadsPerCore=1 Reason=admin: DIMM swap [root@2026-01-05T10:00:00]|garbage" \
               "admin-drained|State=IDLE+DRAIN ThreadsPerCore=1 Reason=admin: DIMM swap [root@2026-01-05T10:00:00]|wrong-values"; do
    IFS='|' read -r label node ledger <<<"$case_"
    i=$((i + 1)); out=run$i
    printf '%s\n' "$node" >"$d/node"
    rm -f "$d/scontrol.calls" "$d/state"/slurm.json* "$d/state"/generations.journal   # each case a record nhc never wrote
    if [ "$ledger" = garbage ]; then
      printf '\x00{"owned_reason": "NHC: ok: x", garb' >"$d/state/slurm.json"
      printf 'owned_state: drain\n\xff\xfe' >"$d/state/slurm.json.prev"
    else
      # JSON, but no record nhc wrote: every value of the wrong type or out of range
      printf '{"node": "fault-node", "owned_state": "bogus", "owned_reason": ["NHC"], "owned_since": 5, "passes": "many", "pending_state": "resume-now", "pending_reason": {"x": 1}, "pending_since": "yesterday"}\n' >"$d/state/slurm.json"
      cp "$d/state/slurm.json" "$d/state/slurm.json.prev"
    fi
    PATH="$d/bin:$PATH" nhc_run "$d" "$out" run --slurm --hostname fault-node -c "$d/nhc.yaml"
    expect_clean "$d" "$out"
    updates=$(grep -c '^update' "$d/scontrol.calls" 2>/dev/null); updates=${updates:-0}
    shown=$(grep -c '^show' "$d/scontrol.calls" 2>/dev/null); shown=${shown:-0}
    note "$label node, $ledger ledger, checks pass: exit $RC, scontrol show ×$shown, update ×$updates"
    if [ "$ledger" = wrong-values ]; then
      has "$d/$out.out" "holds values nhc never writes" && note "\"$(snip "$d/$out.out" 'slurm: .{0,150}')…\"" \
        || miss "the report does not say the record was not used"
    fi
    [ "$RC" = 0 ] || miss "$label node, $ledger ledger: exit $RC"
    [ "$updates" = 0 ] || miss "$label node, $ledger ledger: scontrol $(grep '^update' "$d/scontrol.calls" | head -n 1)"
  done
  note "scontrol was a recording stand-in (a real Slurm is the Slurm e2e's job)"
}

say "nhc $("$nhc" version 2>/dev/null | head -n 1) from $app; temp dir $T"
row "corrupt state file (garbage in check.xid.json after a latched XID 79)" row_corrupt
row "empty state file (0 bytes)" row_empty
row "both state generations corrupt" row_both_corrupt
row "huge state file (sparse 2 GiB check.xid.json)" row_huge_sparse
row "huge state files (200 MB current, sparse 2 GiB .prev)" row_huge_both
row "state file is a FIFO" row_fifo
row "state file is a symlink to /dev/zero" row_devzero
row "full disk: one-shot run (state_dir on a full 512 KiB tmpfs)" row_full_disk_run
row "full disk: daemon (state_dir on a full 512 KiB tmpfs)" row_full_disk_daemon
row "state file swapped for a symlink to a shadow-style file" row_state_link
row "log_file is a symlink" row_log_link
row "script check's program swapped for another user's" row_script_swap
row "hung NVML: per-GPU call (nvmlDeviceGetTemperature on GPU 1)" row_nvml_gpu_call
row "hung NVML: nvmlInit_v2" row_nvml_init
row "hung NVML: nvmlDeviceGetCount_v2" row_nvml_count
row "hung dstack-shim, proxy under 1000 concurrent health polls" row_hung_shim
row "daemon started on a garbage last-verdict state" row_daemon_corrupt_verdict
row "garbage Slurm ledger (slurm.json), recording fake scontrol" row_slurm_ledger
# More rows, one file per family of attacks (faults/*.sh, in name order): each defines its row
# functions with the helpers above and calls row for each.
for rows_file in "$here"/faults/*.sh; do
  [ -e "$rows_file" ] || continue
  # shellcheck source=/dev/null
  . "$rows_file"
done

failed=0
echo
echo "| fault | survived | evidence |"
echo "|---|---|---|"
for i in "${!names[@]}"; do
  echo "| ${names[$i]} | ${survived[$i]} | ${evidence[$i]} |"
  [ "${survived[$i]}" = yes ] || failed=$((failed + 1))
done
echo
say "fault suite: $(( ${#names[@]} - failed )) of ${#names[@]} rows survived in $(( $(date +%s) - began )) s"
[ "$failed" -eq 0 ]
