# Fault rows: the daemon's endpoints under attack (issue 17, items 4, 5, 7), and a JVM that cannot start.
# Sourced by ../fault-suite.sh after its own rows; uses its helpers (note, miss, row, daemon_start,
# daemon_stop, until_true, free_port, nhc_run, expect_clean, json_get, $T, $nhc, $app).
# Each attack is the one the issue describes, its figures the ones main's build showed:
#   bursts      3 × 2000 connections at /metrics (closed, half-closed, idle, reset): file descriptors
#               must come back (main: 35 → 146 → 280, never back)
#   slowloris   slow heads on every endpoint: every endpoint still answers within 2 s (main: two such
#               clients held both workers, 30 s each)
#   resets      2000 requests reset before their answer: the log grows by a few lines, no stack trace
#               (main: a 2 KB stack trace each)
#   pipelining  4 requests in one write: 4 answers; a request with a body, then another: both
#               answered or Connection: close (the issue saw one answer; main's build answered these)
#   dstack idle 4200 idle connections held by an unprivileged user: 20 dstack-style health polls all
#               answered (main: 18 of 20 failed)
#   10k checks  refused at load with FILE:LINE:COLUMN (main: the heap ran out, the HTTP dispatcher
#               died, the process lived on); 1000 checks run within the heap
#   OOM         the daemon's heap made too small: it exits non-zero (systemd restarts it)
#   clock       the wall clock stepped back 60 s during a check (for real: root steps it and puts it
#               back at once; a detached helper puts it back after 15 s should the suite die): the
#               checks go on running (main: none for a minute, /healthz "ok")
#   ulimit -v   a JVM that cannot start: exit 3, why on stderr, one line on stdout (main: exit 1, the
#               JVM's message on stdout)
#   socket      150 idle root clients on the verdict socket: bin/nhc-slurm's client still gets the
#               daemon's verdict (main: 4 idle clients made it fall back)

# ep_daemon DIR EXTRA_YAML CHECKS: a daemon with the status endpoints on $EP_STATUS (and the
# extra sections), its checks, file descriptors as the unit gives them (LimitNOFILE=8192).
ep_daemon() {
  local d=$1 checks=${3:-"  - { name: ok, use: command, with: { command: [/bin/true] } }"}
  EP_STATUS=$(free_port)
  mkdir -p "$d/state"; chmod 0700 "$d/state"
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { interval: 2s, state_dir: $d/state }
daemon: { metrics_listen: "127.0.0.1:$EP_STATUS", socket: $d/run/nhc.sock }
$2
checks:
$checks
EOF
  DIRV=$d
  ( ulimit -n 8192; exec "$nhc" daemon -c "$d/nhc.yaml" ) >"$d/daemon.log" 2>&1 &
  DPID=$!
  pids+=("$DPID")
  local end=$(( $(now_ms) + 60000 ))
  until verdict_is "$EP_STATUS" pass >/dev/null 2>&1; do
    if ! kill -0 "$DPID" 2>/dev/null || [ "$(now_ms)" -ge "$end" ]; then
      miss "the daemon gave no verdict ($(tail -n 5 "$d/daemon.log" | tr '\n' ' ' | cut -c1-300))"
      return 1
    fi
    sleep 0.2
  done
}
# The JVM's pid: the launcher execs java for the daemon, so it is DPID itself.
fds() { ls "/proc/$DPID/fd" 2>/dev/null | wc -l; }
# ep_get URL [MAX_SECONDS]: one GET; its status in EP_CODE (000: no answer), its time in EP_MS
ep_get() {
  local r
  r=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time "${2:-9}" "$1")
  EP_CODE=${r% *}
  EP_MS=$(awk -v t="${r#* }" 'BEGIN { printf "%d", t * 1000 }')
}

# ep_load PORT MODE N: N connections at once to /metrics (python, non-blocking), then every one closed
ep_load() {
  python3 - "$@" <<'PY'
import selectors, socket, struct, sys, time
port, mode, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
path = sys.argv[4] if len(sys.argv) > 4 else "/metrics"
req = ("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path).encode()
socks = []
for i in range(n):
    s = socket.socket(); s.setblocking(False)
    s.connect_ex(("127.0.0.1", port)); socks.append(s)
time.sleep(0.5)
for s in socks:
    try:
        if mode in ("fin", "shut", "hold", "reset"):
            s.send(req)
        if mode == "reset":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)); s.close()
        elif mode == "fin":
            s.close()
        elif mode == "shut":
            s.shutdown(socket.SHUT_WR)
    except OSError:
        pass
time.sleep(2)
for s in socks:
    s.close()
PY
}

row_ep_bursts() {
  local d=$T/ep-burst; mkdir -p "$d"
  ep_daemon "$d" "" || return 1
  local before mode after settled
  before=$(fds)
  ulimit -n 16384 2>/dev/null
  for mode in fin shut hold reset idle; do
    ep_load "$EP_STATUS" "$mode" 2000
  done
  after=$(fds)
  settle() { [ "$(fds)" -le $((before + 5)) ]; }
  if until_true 40 settle; then settled=$(fds); else settled=$(fds); miss "file descriptors did not come back: $before before, $settled 40 s after the bursts"; fi
  note "file descriptors: $before before, $after right after 5 × 2000 connections (closed, half-closed, held, reset, idle), $settled once they were gone"
  ep_get "http://127.0.0.1:$EP_STATUS/healthz"
  [ "$EP_CODE" = 200 ] && note "/healthz afterwards: HTTP 200 in $EP_MS ms" || miss "/healthz afterwards: HTTP $EP_CODE"
  daemon_stop
}

row_ep_slowloris() {
  local d=$T/ep-slow; mkdir -p "$d"
  local px shim; px=$(free_port); shim=$(free_port)
  python3 "$repo/bench/stand-in-shim.py" "$shim" >"$d/shim.log" 2>&1 &
  pids+=($!)
  ep_daemon "$d" "dstack: { listen: \"127.0.0.1:$px\", shim: \"127.0.0.1:$shim\" }" || return 1
  # 20 slow clients on each endpoint: a head begun, one more byte every second, never finished.
  python3 - "$EP_STATUS" "$px" >"$d/slow.log" 2>&1 <<'PY' &
import socket, sys, time
status, proxy = int(sys.argv[1]), int(sys.argv[2])
targets = [(status, "/metrics"), (status, "/healthz"), (status, "/v1/verdict"), (proxy, "/api/instance/health")]
socks = []
for port, path in targets:
    for i in range(20):
        s = socket.create_connection(("127.0.0.1", port))
        s.send(("GET %s HTTP/1.1\r\nHost: x\r\nX-Slow: " % path).encode())
        socks.append(s)
end = time.time() + 40
while time.time() < end:
    for s in socks:
        try:
            s.send(b"a")
        except OSError:
            pass
    time.sleep(1)
PY
  local slow=$!
  pids+=("$slow")
  sleep 2
  local worst=0 url codes="" i
  for i in 1 2 3; do
    for url in "http://127.0.0.1:$EP_STATUS/metrics" "http://127.0.0.1:$EP_STATUS/healthz" "http://127.0.0.1:$EP_STATUS/v1/verdict" \
               "http://127.0.0.1:$px/api/instance/health"; do
      ep_get "$url" 9
      codes="$codes $EP_CODE"
      [ "$EP_MS" -gt "$worst" ] && worst=$EP_MS
      [ "$EP_CODE" = 200 ] || miss "${url#http://127.0.0.1:} under slowloris: HTTP $EP_CODE after $EP_MS ms"
    done
    sleep 3
  done
  note "80 slow clients (20 per endpoint): 12 requests to /metrics, /healthz, /v1/verdict and dstack's health route answered, slowest ${worst} ms (HTTP$codes)"
  [ "$worst" -le 2000 ] || miss "an answer took ${worst} ms under slowloris (must be under 2 s)"
  kill "$slow" 2>/dev/null; wait "$slow" 2>/dev/null
  local cut; cut=$(grep -c 'did not arrive within' "$d/daemon.log")
  note "the daemon's log: $cut lines about heads that did not arrive (at most 10 a minute, then a count)"
  daemon_stop
}

row_ep_resets() {
  local d=$T/ep-reset; mkdir -p "$d"
  ep_daemon "$d" "" || return 1
  local before after traces
  before=$(wc -c <"$d/daemon.log")
  ulimit -n 16384 2>/dev/null
  ep_load "$EP_STATUS" reset 2000
  ep_load "$EP_STATUS" reset 2000
  sleep 2
  after=$(wc -c <"$d/daemon.log")
  traces=$(grep -c -E $'^\tat |Exception' "$d/daemon.log")
  note "4000 requests reset before their answer: the log grew by $((after - before)) bytes, $traces stack-trace lines"
  [ "$traces" = 0 ] || miss "stack traces in the daemon's log: $(grep -m1 -E 'Exception' "$d/daemon.log" | cut -c1-120)"
  [ $((after - before)) -le 4096 ] || miss "the log grew by $((after - before)) bytes (at most a few lines a minute)"
  daemon_stop
}

# ep_exchange PORT REQUESTS: REQUESTS (\r\n written as such) in one write; all that comes back, on stdout
ep_exchange() {
  python3 - "$1" "$2" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
data = b""
try:
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
except OSError:
    pass
print(data.decode("latin-1"))
PY
}
# ep_statuses FILE: the status lines in it (a body need not end with a newline: the next answer follows on its line)
ep_statuses() { grep -o 'HTTP/1\.1 [0-9][0-9][0-9] [A-Za-z ]*' "$1"; }

row_ep_pipelining() {
  local d=$T/ep-pipe; mkdir -p "$d"
  ep_daemon "$d" "" || return 1
  local h='Host: x\r\n'
  ep_exchange "$EP_STATUS" "GET /healthz HTTP/1.1\r\n$h\r\nGET /v1/verdict HTTP/1.1\r\n$h\r\nGET /metrics HTTP/1.1\r\n$h\r\nGET /healthz HTTP/1.1\r\n${h}Connection: close\r\n\r\n" >"$d/pipe.txt"
  local answers; answers=$(ep_statuses "$d/pipe.txt" | wc -l)
  note "4 pipelined requests (/healthz, /v1/verdict, /metrics, /healthz with Connection: close) in one write: $answers answers ($(ep_statuses "$d/pipe.txt" | cut -c10- | tr '\n' ',' | sed 's/,$//'))"
  [ "$answers" = 4 ] || miss "$answers answers to 4 pipelined requests"
  # A request with a body, then another: both answered, or the first answer says the connection ends.
  ep_exchange "$EP_STATUS" "POST /v1/recheck HTTP/1.1\r\n${h}Content-Length: 5\r\n\r\nhelloGET /healthz HTTP/1.1\r\n${h}Connection: close\r\n\r\n" >"$d/body.txt"
  answers=$(ep_statuses "$d/body.txt" | wc -l)
  if [ "$answers" = 2 ] || { [ "$answers" = 1 ] && grep -q -i '^Connection: close' "$d/body.txt"; }; then
    note "a POST with a body, then a GET, in one write: $answers answer(s)$( [ "$answers" = 1 ] && echo ', the first with Connection: close (the client sends the GET again)')"
  else
    miss "a POST with a body, then a GET: $answers answer(s), and none said the connection ends"
  fi
  daemon_stop
}

row_ep_dstack_idle() {
  local d=$T/ep-idle; mkdir -p "$d"
  local px shim; px=$(free_port); shim=$(free_port)
  python3 "$repo/bench/stand-in-shim.py" "$shim" >"$d/shim.log" 2>&1 &
  pids+=($!)
  ep_daemon "$d" "dstack: { listen: \"127.0.0.1:$px\", shim: \"127.0.0.1:$shim\" }" || return 1
  # An unprivileged user holds 4200 idle connections, and opens new ones as they are closed.
  cat >"$d/hold.py" <<'PY'
import resource, selectors, socket, sys, time
resource.setrlimit(resource.RLIMIT_NOFILE, (8192, 8192))
port, n, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
sel = selectors.DefaultSelector()
def one():
    s = socket.socket(); s.setblocking(False); s.connect_ex(("127.0.0.1", port))
    sel.register(s, selectors.EVENT_READ)
for i in range(n):
    one()
print("holding", n, flush=True)
end = time.time() + secs
while time.time() < end:
    for key, ev in sel.select(timeout=0.2):
        s = key.fileobj
        try:
            gone = not s.recv(4096)
        except OSError:
            gone = True
        if gone:
            sel.unregister(s); s.close(); one()
PY
  chmod 0644 "$d/hold.py"
  # The system's python: root's PATH may lead to a python nobody cannot run.
  local py=/usr/bin/python3; [ -x "$py" ] || py=$(command -v python3)
  setpriv --reuid=nobody --regid=nogroup --clear-groups "$py" "$d/hold.py" "$px" 4200 60 >"$d/hold.log" 2>&1 &
  local holder=$!
  pids+=("$holder")
  until_true 30 grep -q holding "$d/hold.log" || miss "the holder did not start: $(head -c 200 "$d/hold.log")"
  sleep 2
  local ok=0 i worst=0
  for i in $(seq 1 20); do
    ep_get "http://127.0.0.1:$px/api/instance/health" 9
    if [ "$EP_CODE" = 200 ]; then ok=$((ok + 1)); fi
    [ "$EP_MS" -gt "$worst" ] && worst=$EP_MS
    sleep 0.5
  done
  local held; held=$(ss -tn state established "( dport = :$px )" 2>/dev/null | tail -n +2 | wc -l)
  note "user nobody holding 4200 idle connections ($held established now): $ok of 20 dstack-style health polls answered 200 within 9 s, slowest ${worst} ms"
  [ "$ok" = 20 ] || miss "$((20 - ok)) of 20 health polls failed"
  local hz; hz=$(curl -s --max-time 5 "http://127.0.0.1:$EP_STATUS/healthz")
  note "/healthz: $(printf '%s' "$hz" | cut -c1-160)"
  kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
  daemon_stop
}

# ep_checks N: N cheap checks (each looks at one file)
ep_checks() {
  local i
  for i in $(seq 1 "$1"); do printf '  - { name: f%d, use: file, with: { path: /etc/hostname } }\n' "$i"; done
}

row_ep_10k_checks() {
  local d=$T/ep-10k; mkdir -p "$d/state"; chmod 0700 "$d/state"
  local port; port=$(free_port)
  { printf 'nhc: 1\nsettings: { interval: 60s, state_dir: %s }\ndaemon: { metrics_listen: "127.0.0.1:%s", socket: %s/nhc.sock }\nchecks:\n' "$d/state" "$port" "$d"
    ep_checks 10000; } >"$d/nhc.yaml"
  nhc_run "$d" check check-config -c "$d/nhc.yaml"
  expect_clean "$d" check
  note "check-config with 10,000 checks: exit $RC: \"$(head -n 1 "$d/check.err" | cut -c1-170)\""
  [ "$RC" = 2 ] && has "$d/check.err" "nhc.yaml:1005:5: more than 1000 checks" || miss "check-config did not refuse 10,000 checks at the 1001st"
  ( ulimit -n 8192; exec timeout -k 5 60 "$nhc" daemon -c "$d/nhc.yaml" ) >"$d/daemon.out" 2>&1
  local rc=$?
  note "nhc daemon with 10,000 checks: exit $rc: \"$(grep -m1 'more than' "$d/daemon.out" | cut -c1-120)\""
  [ "$rc" = 2 ] || miss "the daemon with 10,000 checks: exit $rc, not 2 ($(tail -n 3 "$d/daemon.out" | tr '\n' ' ' | cut -c1-200))"
  # The most a config may have runs within the daemon's heap.
  local d2=$T/ep-1k; mkdir -p "$d2"
  ep_daemon "$d2" "" "$(ep_checks 1000)" || return 1
  local rss; rss=$(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$DPID/status")
  note "1000 checks: the daemon judges them (/v1/verdict pass), RSS ${rss} MB"
  grep -q -E 'OutOfMemoryError|Terminating due' "$d2/daemon.log" && miss "the daemon ran out of memory with 1000 checks"
  daemon_stop
}

row_ep_oom_exits() {
  local d=$T/ep-oom; mkdir -p "$d/state"; chmod 0700 "$d/state"
  local port; port=$(free_port)
  { printf 'nhc: 1\nsettings: { interval: 1s, state_dir: %s }\ndaemon: { metrics_listen: "127.0.0.1:%s", socket: %s/nhc.sock }\nchecks:\n' "$d/state" "$port" "$d"
    ep_checks 1000; } >"$d/nhc.yaml"
  # A heap far too small for 1000 checks: it runs out, whichever thread asks.
  NHC_JAVA_OPTS="-Xms6m -Xmx6m" timeout -k 5 90 "$nhc" daemon -c "$d/nhc.yaml" >"$d/daemon.log" 2>&1 &
  local p=$!
  pids+=("$p")
  local t0; t0=$(now_ms)
  local gone=no
  until_true 80 sh -c "! kill -0 $p" && gone=yes
  wait "$p" 2>/dev/null; local rc=$?
  note "the daemon with a 6 MiB heap and 1000 checks: $( [ $gone = yes ] && echo "exited $rc after $(( ($(now_ms) - t0) / 1000 )) s" || echo "still running after 80 s"): \"$(grep -m1 -E 'OutOfMemoryError|Terminating' "$d/daemon.log" | cut -c1-100)\""
  [ "$gone" = yes ] && [ "$rc" != 0 ] && [ "$rc" != 124 ] || miss "the daemon did not exit non-zero when its heap ran out (systemd would never restart it)"
}

row_ep_clock_step() {
  local d=$T/ep-clock; mkdir -p "$d"
  # The check itself steps the clock back 60 s on its first run (so the step falls inside a run),
  # saving (realtime, monotonic) first; put_back restores realtime from them, exactly once.
  cat >"$d/clock.py" <<PY
import os, sys, time
d = "$d"
def put_back():
    try:
        os.rename(d + "/stepped", d + "/restoring")
    except OSError:
        return
    rt, mono = map(float, open(d + "/restoring").read().split())
    time.clock_settime(time.CLOCK_REALTIME, rt + (time.monotonic() - mono))
    open(d + "/restored", "w").write("yes")
if sys.argv[1:] == ["put-back"]:
    put_back(); sys.exit(0)
open(d + "/runs", "a").write("%f\n" % time.monotonic())
if not os.path.exists(d + "/stepped") and not os.path.exists(d + "/restored") and not os.path.exists(d + "/restoring"):
    open(d + "/stepped", "w").write("%f %f" % (time.clock_gettime(time.CLOCK_REALTIME), time.monotonic()))
    time.clock_settime(time.CLOCK_REALTIME, time.clock_gettime(time.CLOCK_REALTIME) - 60)
    if os.fork() == 0:  # should the suite die: the clock is put back all the same
        os.setsid(); time.sleep(15); put_back(); os._exit(0)
PY
  chmod 0755 "$d/clock.py"
  ep_daemon "$d" "" "  - { name: clock, use: command, with: { command: [/usr/bin/python3, $d/clock.py] } }" || { python3 "$d/clock.py" put-back; return 1; }
  until_true 20 test -f "$d/stepped" || miss "the check did not step the clock"
  local at; at=$(wc -l <"$d/runs")
  sleep 8
  local runs; runs=$(( $(wc -l <"$d/runs") - at ))
  local hz; hz=$(curl -s --max-time 5 "http://127.0.0.1:$EP_STATUS/healthz")
  python3 "$d/clock.py" put-back
  note "wall clock stepped back 60 s during a run (settings.interval 2s): $runs runs in the next 8 s; /healthz $(printf '%s' "$hz" | cut -c1-120); clock put back ($( [ -f "$d/restored" ] && echo yes || echo NO))"
  [ "$runs" -ge 3 ] || miss "$runs runs in 8 s after the step (the schedule stopped)"
  [ -f "$d/restored" ] || miss "the clock was not put back"
  daemon_stop
}

row_ep_jvm_cannot_start() {
  local d=$T/ep-ulimit; mkdir -p "$d/state"; chmod 0700 "$d/state"
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $d/state }
checks:
  - { name: ok, use: command, with: { command: [/bin/true] } }
EOF
  local cmd out err rc
  for cmd in "bin/nhc run" "bin/nhc-slurm"; do
    # shellcheck disable=SC2086
    ( ulimit -v 400000; exec "$app"/$cmd -c "$d/nhc.yaml" ) >"$d/out" 2>"$d/err"
    rc=$?
    out=$(head -c 300 "$d/out" | tr '\n' ' '); err=$(grep -m1 '^nhc:' "$d/err" | cut -c1-150)
    note "$cmd under ulimit -v 400000: exit $rc; stdout \"$out\"; stderr \"$err\""
    [ "$rc" = 3 ] || miss "$cmd: exit $rc when Java cannot start (must be 3, nhc's own error, never 1)"
    [ "$(wc -l <"$d/out")" -le 1 ] && grep -q "^nhc: internal error: Java could not run nhc (exit 1)$" "$d/out" || miss "$cmd: stdout is not the one short line for slurmd's log"
    grep -q 'Could not reserve\|Error occurred during initialization' "$d/out" && miss "$cmd: the JVM's own message is on stdout"
    [ -n "$err" ] || miss "$cmd: nothing on stderr says why"
  done
}

row_ep_socket_idle() {
  local d=$T/ep-sock; mkdir -p "$d/bin"
  # A stand-in scontrol (as row_slurm_ledger's): a node that is idle and nhc's to act on.
  cat >"$d/bin/scontrol" <<'EOF'
#!/bin/sh
case "$1" in
  show) echo "NodeName=fault-node Arch=x86_64 State=IDLE ThreadsPerCore=1 Reason=(null)"; exit 0 ;;
esac
exit 0
EOF
  cp "$d/bin/scontrol" "$d/bin/sinfo"; chmod 0755 "$d/bin/scontrol" "$d/bin/sinfo"
  ep_daemon "$d" "slurm: { scontrol: $d/bin/scontrol, sinfo: $d/bin/sinfo }" || return 1
  local sock=$d/run/nhc.sock ask=$app/lib/native/nhc-slurm-ask
  [ -x "$ask" ] || { miss "no $ask"; daemon_stop; return 1; }
  until_true 20 sh -c "'$ask' '$sock' '$d/nhc.yaml' >/dev/null; [ \$? != 100 ]" || miss "the daemon never answered the socket"
  python3 - "$sock" >"$d/idle.log" 2>&1 <<'PY' &
import socket, sys, time
held = []
end = time.time() + 30
while time.time() < end:
    while len(held) < 150:
        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); held.append(s)
    time.sleep(0.2)
    held = [s for s in held if s.fileno() >= 0]
    # closed by the daemon: open anew
    alive = []
    for s in held:
        try:
            s.setblocking(False)
            if s.recv(1) == b"":
                s.close(); continue
        except BlockingIOError:
            pass
        except OSError:
            s.close(); continue
        alive.append(s)
    held = alive
PY
  local idle=$!
  pids+=("$idle")
  sleep 2
  local i rc ok=0 fell=0
  for i in $(seq 1 10); do
    "$ask" "$sock" "$d/nhc.yaml" >"$d/ask.out" 2>&1; rc=$?
    if [ "$rc" = 100 ]; then fell=$((fell + 1)); else ok=$((ok + 1)); fi
    sleep 0.3
  done
  note "150 idle root clients kept on the verdict socket: bin/nhc-slurm's client got the daemon's verdict $ok of 10 times (exit $rc: $(head -n 1 "$d/ask.out" | cut -c1-60)), fell back $fell times"
  [ "$ok" = 10 ] || miss "it fell back to a run of its own $fell of 10 times"
  kill "$idle" 2>/dev/null; wait "$idle" 2>/dev/null
  daemon_stop
}

row "endpoints: bursts of 2000 connections at /metrics (file descriptors come back)" row_ep_bursts
row "endpoints: slowloris on /metrics, /healthz, /v1/verdict and dstack's health route" row_ep_slowloris
row "endpoints: 4000 requests reset before their answer (log size)" row_ep_resets
row "endpoints: pipelined requests" row_ep_pipelining
row "endpoints: 4200 idle connections held by a user against the dstack proxy" row_ep_dstack_idle
row "endpoints: 10,000 checks" row_ep_10k_checks
row "endpoints: the daemon's heap runs out" row_ep_oom_exits
row "daemon: wall clock stepped back 60 s during a check" row_ep_clock_step
row "launcher: a JVM that cannot start (ulimit -v)" row_ep_jvm_cannot_start
row "verdict socket: 150 idle root clients" row_ep_socket_idle
