#!/usr/bin/env bash
# The shim proxy under load: latency of GET /api/instance/health with 1000 concurrent connections
# (wrk, closed loop: every connection sends its next request as soon as the answer came), in four
# situations: a healthy stand-in shim; a shim that accepts but never answers; 16 pass-through
# requests hung on the shim while health is hammered; and what /healthz says meanwhile.
#   bench/run-proxy.sh [SECONDS]     (needs `mvn -B package -DskipTests` first and wrk: apt-get install -y wrk)
# Figures land in bench/results/proxy.json. Ports on 127.0.0.1: 19988 (proxy), 19989 (stand-in
# shim), 19474 (status). Bounded: about 4 × SECONDS + 40 s.
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_EACH=${1:-10}
# bench/run.sh passes its RUNS (20 by default); as seconds per scenario that is fine, but keep it sane.
[ "$SECONDS_EACH" -gt 30 ] && SECONDS_EACH=30
APP=${NHC_APP:-../cli/target/nhc}
NHC=$APP/bin/nhc
command -v wrk >/dev/null || { echo "bench proxy: wrk is not installed (apt-get install -y wrk); skipped"; exit 0; }
mkdir -p results
T=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$T"
}
trap cleanup EXIT

# The stand-in shim: answers at once, or (after POST /control/hang) accepts every request and never answers.
cat >"$T/shim.py" <<'EOF'
import json, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
HEALTH = json.dumps({"dcgm": {"overall_health": 0, "incidents": []}}).encode()
TASKS = json.dumps({"tasks": []}).encode()
hang = threading.Event()
released = threading.Event()
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = 1 << 16
    disable_nagle_algorithm = True
    def answer(self, body):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        if hang.is_set():
            released.wait()
        self.answer(HEALTH if self.path == "/api/instance/health" else TASKS)
    def do_POST(self):
        if self.path == "/control/hang":
            released.clear()
            hang.set()
        elif self.path == "/control/answer":
            hang.clear()
            released.set()
        self.answer(b"{}")
    def log_message(self, *a):
        pass
class S(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
S(("127.0.0.1", 19989), H).serve_forever()
EOF
python3 "$T/shim.py" &
pids+=($!)

cat >"$T/nhc.yaml" <<EOF
nhc: 1
settings:
  interval: 5s
  state_dir: $T/state
daemon:
  metrics_listen: 127.0.0.1:19474
  socket: $T/nhc.sock
dstack:
  listen: 127.0.0.1:19988
  shim: 127.0.0.1:19989
checks:
  - name: root-space
    use: disk.usage
    with: { mount: / }
  - name: memory
    use: memory
EOF
env NHC_CDS=off "$NHC" daemon -c "$T/nhc.yaml" >"$T/daemon.log" 2>&1 &
dpid=$!
pids+=($dpid)
for _ in $(seq 1 60); do curl -sf http://127.0.0.1:19474/v1/verdict >/dev/null 2>&1 && break; sleep 0.5; done
curl -sf http://127.0.0.1:19474/v1/verdict >/dev/null || { cat "$T/daemon.log"; echo "bench proxy: the daemon did not come up"; exit 1; }

cat >"$T/measure.py" <<'EOF'
import http.client, json, re, selectors, socket, subprocess, sys, threading, time

seconds = int(sys.argv[1])
URL = "http://127.0.0.1:19988/api/instance/health"
out = {"connections": 1000, "seconds_each": seconds, "tool": "wrk -t2 -c1000 --latency --timeout 10s"}

def ms(v):
    m = re.match(r"([0-9.]+)(us|ms|s)$", v)
    n = float(m.group(1))
    return round(n / 1000.0 if m.group(2) == "us" else n * 1000.0 if m.group(2) == "s" else n, 2)

def wrk(name):
    r = subprocess.run(["wrk", "-t2", "-c1000", "-d%ds" % seconds, "--latency", "--timeout", "10s", URL],
                       capture_output=True, text=True, timeout=seconds + 60)
    t = r.stdout
    pct = dict(re.findall(r"^\s+(50|99)%\s+(\S+)\s*$", t, re.M))
    req = re.search(r"^\s*(\d+) requests in", t, re.M)
    rps = re.search(r"^Requests/sec:\s+([0-9.]+)", t, re.M)
    errs = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", t)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
    res = {"p50_ms": ms(pct["50"]) if "50" in pct else None, "p99_ms": ms(pct["99"]) if "99" in pct else None,
           "requests": int(req.group(1)) if req else 0, "requests_per_s": float(rps.group(1)) if rps else 0,
           "socket_errors": [int(x) for x in errs.groups()] if errs else [0, 0, 0, 0],
           "non_2xx": int(non2xx.group(1)) if non2xx else 0}
    if res["p50_ms"] is None or res["p99_ms"] is None:
        res["wrk_output"] = t + r.stderr
    out[name] = res
    print(f"{name}: p50 {res['p50_ms']} ms, p99 {res['p99_ms']} ms, {res['requests_per_s']:.0f} req/s, "
          f"socket errors (connect, read, write, timeout) {res['socket_errors']}, non-2xx {res['non_2xx']}", flush=True)

def post(path):
    c = http.client.HTTPConnection("127.0.0.1", 19989, timeout=5)
    c.request("POST", path, body=b"")
    c.getresponse().read()

def healthz():
    c = http.client.HTTPConnection("127.0.0.1", 19474, timeout=10)
    c.request("GET", "/healthz")
    r = c.getresponse()
    return r.status, json.loads(r.read())

def one(path, timeout):
    t0 = time.perf_counter()
    try:
        c = http.client.HTTPConnection("127.0.0.1", 19988, timeout=timeout)
        c.request("GET", path)
        r = c.getresponse()
        r.read()
        return r.status, (time.perf_counter() - t0) * 1000.0
    except Exception as e:
        return type(e).__name__, (time.perf_counter() - t0) * 1000.0

def burst(name, rounds=20, n=1000):
    """n keep-alive connections, each sending one health request at the same moment; latency per request
    from its send to its whole answer (measured by this Python client: its own overhead is included)."""
    socks = [socket.create_connection(("127.0.0.1", 19988)) for _ in range(n)]
    sel = selectors.DefaultSelector()
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    req = b"GET /api/instance/health HTTP/1.1\r\nHost: bench\r\n\r\n"
    lat = []
    for _ in range(rounds):
        bufs, started, pending = {}, {}, set(socks)
        for s in socks:
            bufs[s] = b""
            started[s] = time.perf_counter()
            s.send(req)
        deadline = time.perf_counter() + 30
        while pending and time.perf_counter() < deadline:
            for key, _ in sel.select(timeout=1):
                s = key.fileobj
                data = s.recv(65536)
                now = time.perf_counter()
                b = bufs[s] = bufs[s] + data
                i = b.find(b"\r\n\r\n")
                if i >= 0 and s in pending:
                    cl = int(re.search(rb"content-length: *(\d+)", b[:i], re.I).group(1))
                    if len(b) >= i + 4 + cl:
                        lat.append((now - started[s]) * 1000.0)
                        pending.discard(s)
        if pending:
            raise SystemExit(f"{name}: {len(pending)} of {n} health requests got no answer within 30 s")
    for s in socks:
        s.close()
    lat.sort()
    res = {"requests": len(lat), "p50_ms": round(lat[len(lat) // 2], 2), "p99_ms": round(lat[int(len(lat) * 0.99)], 2),
           "max_ms": round(lat[-1], 2)}
    out[name] = res
    print(f"{name}: {rounds} rounds of {n} simultaneous requests: p50 {res['p50_ms']} ms, p99 {res['p99_ms']} ms, max {res['max_ms']} ms",
          flush=True)

# Warm the JIT a little, then the healthy shim.
subprocess.run(["wrk", "-t2", "-c100", "-d3s", URL], capture_output=True)
wrk("healthy_shim")
burst("healthy_shim_burst")

# The shim accepts and never answers: health must still come from nhc, within its deadline.
post("/control/hang")
first = one("/api/instance/health", 15)
out["hung_shim_first_health"] = {"status": first[0], "ms": round(first[1], 1)}
print(f"hung shim, first health request: HTTP {first[0]} after {first[1]:.0f} ms", flush=True)
wrk("hung_shim")

# 16 pass-through requests stuck on the hung shim, then health again, and what /healthz says.
stuck = [threading.Thread(target=one, args=("/api/tasks?i=%d" % i, 120), daemon=True) for i in range(16)]
for t in stuck:
    t.start()
time.sleep(2)
wrk("hung_shim_16_stuck_pass_through")
burst("hung_shim_16_stuck_pass_through_burst")
status, body = healthz()
out["healthz_while_stuck"] = {"status": status, "body": body}
print(f"/healthz while 16 pass-through requests hang: HTTP {status} {json.dumps(body)}", flush=True)
post("/control/answer")
for t in stuck:
    t.join(30)
status, body = healthz()
out["healthz_after"] = {"status": status, "body": body}
print(f"/healthz once the shim answers again: HTTP {status}", flush=True)
json.dump(out, open("results/proxy.json", "w"), indent=2)
EOF
echo "== shim proxy: GET /api/instance/health, 1000 concurrent connections, ${SECONDS_EACH} s per scenario"
python3 "$T/measure.py" "$SECONDS_EACH"
