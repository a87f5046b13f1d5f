#!/usr/bin/env bash
# Daemon figures: steady-state RSS and CPU per check cycle of `nhc daemon`, the shim proxy's latency
# overhead (p50/p99) for pass-through requests and for the rewritten health route, and the time
# from a re-evaluation trigger to the changed verdict. Called by bench/run.sh; alone:
#   bench/run-daemon.sh [RUNS]     (needs `mvn -B package -DskipTests` first; figures in bench/results/daemon.json)
# Ports on 127.0.0.1: 19998 (proxy), 19999 (stand-in shim), 19464 (status). Bounded: about 90 s.
set -euo pipefail
cd "$(dirname "$0")"
RUNS=${1:-20}
APP=${NHC_APP:-../cli/target/nhc}
NHC=$APP/bin/nhc
REQUESTS=$(( RUNS * 100 ))
TESTCLASSES=$(cd .. && pwd)/dstack-integration/target/test-classes
mkdir -p results
T=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$T"
}
trap cleanup EXIT

python3 stand-in-shim.py 19999 &
pids+=($!)

flag=$T/flag
echo "pass fine" >"$flag"
have_flag=0
[ -f "$TESTCLASSES/dev/nhc/dstack/e2e/FlagFileProbe.class" ] && have_flag=1
{
  cat <<EOF
nhc: 1
settings:
  interval: 2s
  check_timeout: 5s
  state_dir: $T/state
daemon:
  metrics_listen: 127.0.0.1:19464
  token: bench
  socket: $T/nhc.sock
dstack:
  listen: 127.0.0.1:19998
  shim: 127.0.0.1:19999
checks:
  - name: root-space
    use: disk.usage
    with: { mount: / }
  - name: memory
    use: memory
  - name: load
    use: load
EOF
  if [ $have_flag = 1 ]; then
    printf '  - name: trigger\n    use: e2e.flag\n    with: { file: %s }\n    every: 1h\n' "$flag"
  fi
} >"$T/nhc.yaml"

env NHC_CDS=off NHC_EXTRA_CLASSPATH="$TESTCLASSES" "$NHC" daemon -c "$T/nhc.yaml" >"$T/daemon.log" 2>&1 &
dpid=$!
pids+=($dpid)
for _ in $(seq 1 60); do curl -sf http://127.0.0.1:19464/v1/verdict >/dev/null 2>&1 && break; sleep 0.5; done
curl -sf http://127.0.0.1:19464/v1/verdict >/dev/null || { cat "$T/daemon.log"; echo "bench daemon: the daemon did not come up"; exit 1; }

cat >"$T/measure.py" <<'EOF'
import http.client, json, os, statistics, sys, time

pid, requests, have_flag, flag = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
out = {}

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]

def timed(conn, path):
    t0 = time.perf_counter()
    conn.request("GET", path)
    r = conn.getresponse()
    r.read()
    assert r.status == 200, (path, r.status)
    return (time.perf_counter() - t0) * 1000.0

# Steady state: CPU over a window of check cycles (interval 2 s), RSS at its end.
tick = os.sysconf("SC_CLK_TCK")
def cpu_s():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tick
def status(key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024.0
time.sleep(5)
c0, t0 = cpu_s(), time.time()
time.sleep(30)
c1, t1 = cpu_s(), time.time()
cycles = (t1 - t0) / 2.0
out["daemon"] = {"checks": 3, "interval_s": 2, "window_s": round(t1 - t0, 1),
                 "cpu_ms_per_cycle": round((c1 - c0) * 1000.0 / cycles, 2),
                 "cpu_percent": round((c1 - c0) * 100.0 / (t1 - t0), 2),
                 "rss_mb": round(status("VmRSS"), 1), "peak_rss_mb": round(status("VmHWM"), 1)}

# Latency: one keep-alive connection each, direct and through the proxy, interleaved so both see the same load.
direct = http.client.HTTPConnection("127.0.0.1", 19999, timeout=10)
proxied = http.client.HTTPConnection("127.0.0.1", 19998, timeout=10)
for _ in range(200):
    timed(direct, "/api/tasks"); timed(proxied, "/api/tasks"); timed(proxied, "/api/instance/health")
d, p, h, hd = [], [], [], []
for _ in range(requests):
    d.append(timed(direct, "/api/tasks"))
    p.append(timed(proxied, "/api/tasks"))
    h.append(timed(proxied, "/api/instance/health"))
    hd.append(timed(direct, "/api/instance/health"))
out["proxy"] = {
    "requests": requests,
    "direct_p50_ms": round(pct(d, 50), 3), "direct_p99_ms": round(pct(d, 99), 3),
    "proxied_p50_ms": round(pct(p, 50), 3), "proxied_p99_ms": round(pct(p, 99), 3),
    "overhead_p50_ms": round(pct(p, 50) - pct(d, 50), 3), "overhead_p99_ms": round(pct(p, 99) - pct(d, 99), 3),
    "health_p50_ms": round(pct(h, 50), 3), "health_p99_ms": round(pct(h, 99), 3),
    "health_overhead_p50_ms": round(pct(h, 50) - pct(hd, 50), 3), "health_overhead_p99_ms": round(pct(h, 99) - pct(hd, 99), 3),
}

out["daemon"]["rss_after_proxy_load_mb"] = round(status("VmRSS"), 1)

# Trigger -> verdict: the same path an NVML XID event takes (Daemon.recheck), driven by POST /v1/recheck.
if have_flag:
    times = []
    for i in range(20):
        want = "fail" if i % 2 == 0 else "pass"
        with open(flag + ".tmp", "w") as f:
            f.write(want + " bench\n")
        os.replace(flag + ".tmp", flag)   # the probe must never read a half-written file
        s = http.client.HTTPConnection("127.0.0.1", 19464, timeout=10)
        t0 = time.perf_counter()
        s.request("POST", "/v1/recheck", headers={"Authorization": "Bearer bench"})
        r = s.getresponse(); r.read()
        assert r.status == 202, r.status
        while True:
            s.request("GET", "/v1/verdict")
            r = s.getresponse()
            v = json.loads(r.read())
            if any(c["name"] == "trigger" and c["severity"] == want for c in v["checks"]):
                break
            if time.perf_counter() - t0 > 10:
                raise SystemExit("verdict did not change within 10 s: " + json.dumps(v))
        times.append((time.perf_counter() - t0) * 1000.0)
    out["trigger_to_verdict"] = {"runs": len(times), "median_ms": round(statistics.median(times), 1), "max_ms": round(max(times), 1),
                                 "note": "POST /v1/recheck -> /v1/verdict changed; the NVML XID watcher calls the same Daemon.recheck"}

json.dump(out, open("results/daemon.json", "w"), indent=2)
pr, dm = out["proxy"], out["daemon"]
print(f"== nhc daemon (3 host checks every 2 s; proxy in front of a Python stand-in shim; {requests} requests each)")
print(f"proxy pass-through GET /api/tasks: direct p50 {pr['direct_p50_ms']} ms p99 {pr['direct_p99_ms']} ms, "
      f"through nhc p50 {pr['proxied_p50_ms']} ms p99 {pr['proxied_p99_ms']} ms "
      f"-> overhead p50 {pr['overhead_p50_ms']} ms, p99 {pr['overhead_p99_ms']} ms")
print(f"health route (verdict + the shim's answer, asked at most once a second): p50 {pr['health_p50_ms']} ms, p99 {pr['health_p99_ms']} ms "
      f"(overhead over the shim's own answer p50 {pr['health_overhead_p50_ms']} ms, p99 {pr['health_overhead_p99_ms']} ms)")
print(f"steady state (before the proxy load): RSS {dm['rss_mb']} MB, after the proxy load {dm['rss_after_proxy_load_mb']} MB; CPU {dm['cpu_ms_per_cycle']} ms per cycle ({dm['cpu_percent']} % of one core)")
if "trigger_to_verdict" in out:
    t = out["trigger_to_verdict"]
    print(f"trigger -> changed verdict: median {t['median_ms']} ms, max {t['max_ms']} ms over {t['runs']} runs")
EOF
python3 "$T/measure.py" "$dpid" "$REQUESTS" "$have_flag" "$flag"
