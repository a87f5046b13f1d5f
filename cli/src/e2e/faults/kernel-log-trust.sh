# Fault suite rows (issue 17 items 1, 6, 7): a local user must not fail a node through the kernel
# log, an admin's regex must not pin a core on a user's line, a FIFO must not hang nhc replay.
# Sourced by ../fault-suite.sh (as root); see README.md here.
#
# The attacks are a user's: programs run as nobody (setpriv). What each row reads:
#   kmsg      real: this machine's /dev/kmsg, the records its kernel logged for the user's programs
#   dmesg     real: `dmesg` of this machine, replayed with nhc replay --kernel-log
#   syslog    the lines are real (the kernel's record from /dev/kmsg, the bytes `logger` sends as
#             nobody), the file is simulated: no syslog daemon runs here, so a small receiver on a
#             private socket writes them in rsyslog's traditional file format, as imklog and
#             imuxsock would (tag kernel: for the kernel's, the user's name for logger's)
#   journal   simulated: no journald runs here (no /run/systemd/journal); a stand-in journalctl
#             prints this row's entries, the kernel's real segfault record with _TRANSPORT=kernel
#             and the user's logger line with _TRANSPORT=syslog, honouring -k and -o json or
#             short-iso-precise as journalctl 252 does
# A user's logger line cannot reach /dev/kmsg (only root writes it) nor `journalctl -k` (it
# selects _TRANSPORT=kernel), so it is a row for the syslog file only.
# Needs: gcc (the user's programs), setpriv, logger, dmesg, python3; /proc/sys/debug/exception-trace = 1.

KT_XID="NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python3, GPU has fallen off the bus."
KT_REMOUNT="EXT4-fs (sda1): Remounting filesystem read-only"

# kt_ready: what the rows need, or a miss naming what is missing
kt_ready() {
  local tool
  for tool in gcc logger dmesg setpriv python3; do
    command -v "$tool" >/dev/null || { miss "$tool is not installed"; return 1; }
  done
  [ "$(cat /proc/sys/debug/exception-trace 2>/dev/null)" = 1 ] \
    || { miss "this kernel does not log user segfaults (debug.exception-trace is not 1)"; return 1; }
}

# kt_user_program DIR NAME SOURCE: compiles SOURCE (C) to DIR/NAME, and runs it as nobody
kt_user_program() {
  local d=$1 name=$2
  printf '%s\n' "$3" >"$d/prog.c"
  gcc -O0 -o "$d/prog" "$d/prog.c" || { miss "cannot compile the user's program"; return 1; }
  chmod 0755 "$d/prog"
  mv "$d/prog" "$d/$name"
  # in a shell of its own, which says "Segmentation fault" to /dev/null rather than to the suite's log
  sh -c 'cd "$1" && setpriv --reuid=nobody --regid=nogroup --clear-groups "./$2"; true' sh "$d" "$name" >/dev/null 2>&1
}
# kt_segfault DIR NAME: a program NAME of nobody's that dereferences NULL; the kernel logs
# "NAME(15 bytes)[PID]: segfault at 0 ip … error 4 in NAME[…]" (arch/x86/mm/fault.c show_signal_msg)
kt_segfault() { kt_user_program "$1" "$2" 'int main(void) { volatile int *p = 0; return *p; }'; }

# kt_kernel_record REGEX: the text of the newest kernel record (facility 0) matching REGEX, from dmesg --raw
kt_kernel_record() {
  dmesg --raw 2>/dev/null | grep -E '^<[0-7]>' | grep -E -- "$1" | tail -n 1 | sed -E 's/^<[0-7]>\[ *[0-9]+\.[0-9]+\] //'
}
# kt_xid_record DIR: nobody's program named like XID 79 segfaults; KT_RECORD is the record the kernel logged for it
kt_xid_record() {
  kt_segfault "$1" "$KT_XID" || return 1
  KT_RECORD=$(kt_kernel_record 'segfault at .* in NVRM: Xid \(PCI:0000:3b:00\): 79,')
  [ -n "$KT_RECORD" ] || { miss "the kernel logged no segfault record for the user's program"; return 1; }
}

# kt_config DIR WITH: gpu.xid and kernel.log over the same source; state in DIR/state
kt_config() {
  cat >"$1/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $1/state, deadline: 30s, nvml_library: $1/no-nvml/libnvidia-ml.so.1 }
checks:
  - { name: xid, use: gpu.xid, with: $2 }
  - { name: klog, use: kernel.log, with: $2 }
EOF
}

# kt_no_fail DIR NAME: the --json report in DIR/NAME.out fails nothing (exit 0, no finding of severity fail)
kt_no_fail() {
  expect_clean "$1" "$2"
  local failing
  failing=$(json_get "$1/$2.out" '" / ".join(f["check"] + ": " + f["message"][:150] for f in d["findings"] if f["severity"] == "fail")')
  if [ "$RC" = 0 ] && [ -z "$failing" ] && [ -n "$(json_get "$1/$2.out" 'd["severity"]')" ]; then
    note "$2: exit 0, severity $(json_get "$1/$2.out" 'd["severity"]') in ${MS} ms, no finding fails"
  else
    miss "$2: exit $RC, failing: ${failing:-$(head -c 200 "$1/$2.err" | tr '\n' ' ')}"
  fi
}

# kt_run_fails_nothing DIR WITH: nhc run of both checks over the source WITH fails nothing
kt_run_fails_nothing() {
  kt_config "$1" "$2"
  nhc_run "$1" run run --json -c "$1/nhc.yaml"
  kt_no_fail "$1" run
}

row_kt_kmsg() {
  local d=$T/kt-kmsg; mkdir -p "$d"
  kt_ready && kt_xid_record "$d" && kt_segfault "$d" "$KT_REMOUNT" || return 1
  [ -n "$(kt_kernel_record 'segfault at .* in EXT4-fs \(sda1\): Remounting filesystem read-only')" ] \
    || { miss "the kernel logged no segfault record for the program named like the remount"; return 1; }
  note "the kernel logged (facility 0): \"$(printf '%s' "$KT_RECORD" | cut -c1-110)…\""
  kt_run_fails_nothing "$d" "{ log: kmsg }"
}

row_kt_dmesg_replay() {
  local d=$T/kt-dmesg; mkdir -p "$d"
  kt_ready || return 1
  kt_segfault "$d" "$KT_XID" || return 1
  # a line break in the name: dmesg prints the rest of the record as an indented line of its own
  kt_segfault "$d" $'a\n'"$KT_XID" || return 1
  dmesg >"$d/dmesg.txt" 2>/dev/null
  grep -q -E '^ +NVRM: Xid \(PCI:0000:3b:00\): 79,' "$d/dmesg.txt" && has "$d/dmesg.txt" 'segfault at .* in NVRM: Xid' \
    || { miss "dmesg shows no segfault records of the user's programs"; return 1; }
  note "dmesg: \"$(grep -E -m1 -- 'segfault at .* in NVRM: Xid' "$d/dmesg.txt" | cut -c1-90)…\" and an indented \"$(grep -E -m1 '^ +NVRM: Xid' "$d/dmesg.txt" | sed 's/^ *//' | cut -c1-40)…\""
  kt_config "$d" "{}"
  nhc_run "$d" replay replay --json -c "$d/nhc.yaml" --kernel-log "$d/dmesg.txt"
  kt_no_fail "$d" replay
}

row_kt_syslog() {
  local d=$T/kt-syslog; mkdir -p "$d"
  kt_ready && kt_xid_record "$d" || return 1
  local sock=$d/log.sock rpid
  # What rsyslog writes (RSYSLOG_TraditionalFileFormat): imklog's record with the tag kernel:, the
  # kernel's stamp kept; each datagram logger sends, with the tag it carries.
  python3 - "$sock" "$d/syslog" "$(hostname -s)" >"$d/receiver.log" 2>&1 <<'PY' &
import os, re, socket, sys, time
path, out, host = sys.argv[1], sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
os.chmod(path, 0o666)
s.settimeout(20)
with open(out, "a") as f:
    data = s.recv(65536).decode("utf-8", "replace")
    m = re.match(r"<(\d+)>(\w{3} [ \d]\d \d\d:\d\d:\d\d) (.*)", data)
    f.write("%s %s %s\n" % (m.group(2), host, m.group(3).rstrip("\n").replace("\n", "#012")))
PY
  rpid=$!
  pids+=("$rpid")
  printf '%s %s kernel: [  797.028921] %s\n' "$(date '+%b %e %H:%M:%S')" "$(hostname -s)" "$KT_RECORD" >"$d/syslog"
  until_true 10 test -S "$sock" || { miss "the syslog receiver did not start"; return 1; }
  setpriv --reuid=nobody --regid=nogroup --clear-groups logger -u "$sock" -- "$KT_XID"
  wait "$rpid"
  grep -q " nobody: NVRM: Xid" "$d/syslog" || { miss "logger's line did not arrive: $(cat "$d/receiver.log")"; return 1; }
  note "syslog: \"$(grep -m1 ' kernel: ' "$d/syslog" | cut -c1-80)…\", \"$(grep -m1 ' nobody: ' "$d/syslog" | cut -c1-70)…\""
  kt_run_fails_nothing "$d" "{ log: $d/syslog }"
}

row_kt_journal() {
  local d=$T/kt-journal; mkdir -p "$d/bin"
  kt_ready && kt_xid_record "$d" || return 1
  python3 - "$d/entries.json" "$KT_RECORD" "$KT_XID" "$(hostname -s)" <<'PY'
import json, sys, time
out, record, user, host = sys.argv[1:5]
boot = open("/proc/sys/kernel/random/boot_id").read().strip().replace("-", "")
now = int(time.time() * 1e6)
def entry(i, transport, message, ident, extra):
    e = {"__CURSOR": "s=5f2c;i=%x;b=%s" % (i, boot), "__REALTIME_TIMESTAMP": str(now + i), "__MONOTONIC_TIMESTAMP": str(797028921 + i),
         "_BOOT_ID": boot, "_TRANSPORT": transport, "SYSLOG_IDENTIFIER": ident, "_HOSTNAME": host, "MESSAGE": message}
    e.update(extra)
    return e
with open(out, "w") as f:
    f.write(json.dumps(entry(1, "kernel", record, "kernel", {"SYSLOG_FACILITY": "0", "PRIORITY": "6"})) + "\n")
    f.write(json.dumps(entry(2, "syslog", user, "nobody", {"SYSLOG_FACILITY": "1", "_UID": "65534"})) + "\n")
PY
  cat >"$d/bin/journalctl" <<EOF
#!/usr/bin/env python3
# journalctl of this row's entries: -k keeps _TRANSPORT=kernel; -o json or short-iso-precise
import datetime, json, sys
args = sys.argv[1:]
entries = [json.loads(l) for l in open("$d/entries.json")]
if "-k" in args:
    entries = [e for e in entries if e["_TRANSPORT"] == "kernel"]
after = next((a.split("=", 1)[1] for a in args if a.startswith("--after-cursor=")), None)
if after is not None:
    seen = [e["__CURSOR"] for e in entries]
    entries = entries[seen.index(after) + 1:] if after in seen else []
fields = next((a.split("=", 1)[1].split(",") for a in args if a.startswith("--output-fields=")), None)
mode = args[args.index("-o") + 1] if "-o" in args else "short"
for e in entries:
    if mode == "json":
        keep = {k: v for k, v in e.items() if fields is None or k in fields or k.startswith("__")}
        print(json.dumps(keep, separators=(",", ":")))
    else:
        t = datetime.datetime.fromtimestamp(int(e["__REALTIME_TIMESTAMP"]) / 1e6, datetime.timezone.utc)
        print("%s %s %s: %s" % (t.strftime("%Y-%m-%dT%H:%M:%S.%f+0000"), e["_HOSTNAME"], e["SYSLOG_IDENTIFIER"], e["MESSAGE"]))
if entries and "--show-cursor" in args:
    print("-- cursor: " + entries[-1]["__CURSOR"])
EOF
  chmod 0755 "$d/bin/journalctl"
  note "journal: the kernel's record (_TRANSPORT=kernel) \"$(printf '%s' "$KT_RECORD" | cut -c1-60)…\" and logger's (_TRANSPORT=syslog)"
  kt_run_fails_nothing "$d" "{ log: journal, journalctl: $d/bin/journalctl }"
}

# An admin's pattern with nested quantifiers, and a kernel record with a user's file name in it
# (a program of nobody's whose name is 40 a's executes hlt: "traps: NAME[PID] general protection
# fault ip:… in NAME[…]"). The run must end within its time, say which pattern gave up, and the
# next run must be past that line: before, it pinned a core and left the check unknown forever.
row_kt_regex() {
  local d=$T/kt-regex; mkdir -p "$d"
  kt_ready || return 1
  local name
  name=$(printf 'a%.0s' $(seq 1 40))
  kt_user_program "$d" "$name" 'int main(void) { __asm__ volatile("hlt"); return 0; }' || return 1
  [ -n "$(kt_kernel_record "general protection fault .* in a{40}\[")" ] \
    || { miss "the kernel logged no general protection record for the user's program"; return 1; }
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $d/state, deadline: 20s }
checks:
  - name: klog
    use: kernel.log
    with:
      log: kmsg
      patterns:
        - { regex: "traps: \\\\S+ general protection fault ip:\\\\S+ sp:\\\\S+ error:\\\\d+ in (.*a){20}x", name: evil trap, severity: fail }
EOF
  nhc_run "$d" first run --json -c "$d/nhc.yaml"
  expect_clean "$d" first
  local msg
  msg=$(json_messages "$d/first.out")
  if [ "$RC" = 0 ] && [[ $msg == *"the regex of pattern 'evil trap' gave up on "* ]] && [ "$MS" -lt 10000 ]; then
    note "first run: exit 0 in ${MS} ms, \"$(printf '%s' "$msg" | grep -o "the regex of pattern 'evil trap'.\{0,90\}" | head -n 1)…\""
  else
    miss "first run: exit $RC in ${MS} ms: $(printf '%s' "$msg" | cut -c1-200)"
  fi
  nhc_run "$d" second run --json -c "$d/nhc.yaml"
  msg=$(json_messages "$d/second.out")
  [ "$RC" = 0 ] && [ "$(json_get "$d/second.out" 'd["severity"]')" = pass ] \
    && note "second run: exit 0, pass in ${MS} ms: the line is behind the cursor" \
    || miss "second run: exit $RC, severity $(json_get "$d/second.out" 'd["severity"]'): $(printf '%s' "$msg" | cut -c1-200)"
}

row_kt_replay_fifo() {
  local d=$T/kt-fifo; mkdir -p "$d"
  mkfifo -m 0600 "$d/dmesg.txt"
  kt_config "$d" "{}"
  local t0; t0=$(now_ms)
  timeout -k 5 20 "$nhc" replay -c "$d/nhc.yaml" --kernel-log "$d/dmesg.txt" >"$d/replay.out" 2>"$d/replay.err"
  RC=$?; MS=$(( $(now_ms) - t0 ))
  expect_clean "$d" replay
  if [ "$RC" = 2 ] && has "$d/replay.err" "$d/dmesg.txt is a FIFO \(a named pipe\), not a capture"; then
    note "exit 2 in ${MS} ms: \"$(snip "$d/replay.err" 'is a FIFO.{0,100}')…\""
  else
    miss "exit $RC in ${MS} ms (124: still blocked after 20 s): $(head -c 200 "$d/replay.err" | tr '\n' ' ')"
  fi
}

row "kernel log (real /dev/kmsg): nobody's programs named like XID 79 and an ext4 remount segfault" row_kt_kmsg
row "kernel log (real dmesg, replayed): the same, one name with a line break" row_kt_dmesg_replay
row "kernel log (syslog file, rsyslog format simulated): the kernel's segfault record, nobody's logger line" row_kt_syslog
row "kernel log (journal, simulated): the kernel's segfault record, nobody's logger line" row_kt_journal
row "kernel.log: an admin regex with nested quantifiers over nobody's record" row_kt_regex
row "nhc replay --kernel-log on a FIFO nobody writes to" row_kt_replay_fifo
