#!/usr/bin/env bash
# The daemon's memory over time: `nhc daemon` as shipped and the same daemon with the heap cap it
# had before (-Xmx256m), side by side under the same load, checked every 5 s (host checks, the GPU
# checks on eight fake GPUs, gpu.xid on a growing kernel log) with the dstack shim proxy in front of
# a stand-in shim taking steady traffic and, every 5 minutes, a burst of 1000 concurrent health
# requests. Samples VmRSS of both every 10 s and prints the start, the peak and the drift.
#   bench/daemon-memory.sh [SECONDS]    (default 3600; needs `mvn -B package -DskipTests` first)
# Figures in bench/results/daemon-memory.{csv,json}. Target: the shipped daemon's RSS stays at or
# under 96 MB for the whole run and does not keep rising (drift over the second half under 5 MB);
# exits 1 when it is not met. Not part of bench/run.sh: it takes an hour.
# Ports on 127.0.0.1: 29990-29999.
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_TOTAL=${1:-3600}
APP=$(cd "${NHC_APP:-../cli/target/nhc}" && pwd)
REPO=$(cd .. && pwd)
mkdir -p results
T=$(mktemp -d /tmp/nhc-bench-mem.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$T"
}
trap cleanup EXIT

# The fake NVML with eight healthy H100s.
make -s -C "$REPO/checks/src/test/c" OUT="$T/nvml" >/dev/null
python3 - "$T/nvml/scenario.json" <<'EOF'
import json, sys
gpus = [{"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-00000000-0000-0000-0000-00000000000%d" % i,
         "pci_bus_id": "00000000:%02X:00.0" % (0x18 + 0x10 * i), "persistence_mode": True,
         "temperature": 41, "power_usage_mw": 120000, "enforced_power_limit_mw": 700000} for i in range(8)]
json.dump({"driver_version": "535.161.08", "gpus": gpus}, open(sys.argv[1], "w"))
EOF

# The stand-in dstack-shim (stand-in-shim.py): tasks and its own health, answered at once.
python3 stand-in-shim.py 29999 & pids+=($!)
for _ in $(seq 1 50); do curl -s -o /dev/null http://127.0.0.1:29999/api/tasks && break; sleep 0.1; done
kill -0 "${pids[-1]}" 2>/dev/null || { echo "daemon-memory: the stand-in shim could not start (port 29999 in use?)"; exit 1; }

# config NAME PROXY_PORT STATUS_PORT
config() {
  mkdir -p "$T/$1"
  : >"$T/$1/kern.log"
  cat >"$T/$1/nhc.yaml" <<EOF
nhc: 1
settings:
  interval: 5s
  check_timeout: 5s
  state_dir: $T/$1/state
  nvml_library: $T/nvml/libnvidia-ml.so.1
daemon:
  metrics_listen: 127.0.0.1:$3
  socket: $T/$1/nhc.sock
dstack:
  listen: 127.0.0.1:$2
  shim: 127.0.0.1:29999
checks:
  - { name: root-space, use: disk.usage, with: { mount: / } }
  - { name: memory, use: memory }
  - { name: load, use: load }
  - { name: gpus, use: gpu.inventory, with: { count: 8 } }
  - { name: ecc, use: gpu.ecc }
  - { name: thermal, use: gpu.thermal }
  - { name: power, use: gpu.power }
  - { name: pcie, use: gpu.pcie }
  - { name: xid, use: gpu.xid, with: { log: $T/$1/kern.log, since_boot: false } }
EOF
}
config shipped 29991 29981
config old-heap 29992 29982
start() { # NAME EXTRA_JAVA_OPTS [ENV=VALUE...]
  env NHC_CDS=off "${@:3}" NHC_FAKE_NVML_SCENARIO="$T/nvml/scenario.json" NHC_JAVA_OPTS="$2" \
    "$APP/bin/nhc" daemon -c "$T/$1/nhc.yaml" >"$T/$1/daemon.log" 2>&1 &
  pids+=($!)
  started=$!
}
start shipped ""
pid_shipped=$started
# How bin/nhc started the daemon before: heap capped at 256 MiB and sized by the JVM (1/64 of RAM,
# so the whole cap on any server), C2, default code cache, metaspace and malloc arenas (8 per core).
OLD_OPTS="-Xmx256m -Xms256m -XX:MinHeapFreeRatio=40 -XX:MaxHeapFreeRatio=70 -XX:TieredStopAtLevel=4 -XX:ReservedCodeCacheSize=240m"
OLD_OPTS="$OLD_OPTS -XX:MaxMetaspaceSize=1g -XX:MaxDirectMemorySize=256m -Xss1m"
start old-heap "$OLD_OPTS" MALLOC_ARENA_MAX=$(( 8 * $(nproc) ))
pid_old=$started
for port in 29981 29982; do
  for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$port/v1/verdict" >/dev/null 2>&1 && break; sleep 0.5; done
  curl -sf "http://127.0.0.1:$port/v1/verdict" >/dev/null || { tail -n 20 "$T"/*/daemon.log; echo "daemon-memory: a daemon did not come up"; exit 1; }
done
for p in "$pid_shipped" "$pid_old"; do
  [ -r "/proc/$p/status" ] || { tail -n 20 "$T"/*/daemon.log; echo "daemon-memory: pid $p is not the daemon"; exit 1; }
done

python3 - "$SECONDS_TOTAL" "$pid_shipped" "$pid_old" "$T" <<'EOF'
import concurrent.futures, http.client, json, statistics, sys, threading, time
total, pid_new, pid_old, tmp = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
daemons = {"shipped": (pid_new, 29991), "old-heap": (pid_old, 29992)}

def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0

stop = threading.Event()
errors = {"shipped": 0, "old-heap": 0}
def steady(name, port):
    # dstack-like traffic: the health poll and pass-through API calls, about 20 requests a second.
    conn = None
    while not stop.is_set():
        try:
            conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            for path in ("/api/instance/health", "/api/tasks"):
                conn.request("GET", path)
                conn.getresponse().read()
        except Exception:
            errors[name] += 1
            conn = None
        time.sleep(0.1)

burst_errors = {"shipped": 0, "old-heap": 0}
def burst(name, port):
    # 1000 requests in flight at once: one thread each (a pool of 200 made it 200 at a time).
    def one(_):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            c.request("GET", "/api/instance/health")
            c.getresponse().read()
            c.close()
        except Exception:
            burst_errors[name] += 1
    with concurrent.futures.ThreadPoolExecutor(1000) as ex:
        list(ex.map(one, range(1000)))

def kernel_log_lines():
    # gpu.xid reads a growing log: a harmless line a second into each daemon's kern.log.
    n = 0
    while not stop.is_set():
        for name in daemons:
            with open(f"{tmp}/{name}/kern.log", "a") as f:
                f.write(f"[{n}.000000] eth0: link is up {n}\n")
        n += 1
        time.sleep(1)

threads = [threading.Thread(target=steady, args=(n, p), daemon=True) for n, (_, p) in daemons.items()]
threads.append(threading.Thread(target=kernel_log_lines, daemon=True))
for t in threads:
    t.start()
samples = []
t0 = time.time()
next_burst = t0 + 60
with open("results/daemon-memory.csv", "w") as csv:
    csv.write("seconds,shipped_rss_mb,old_heap_rss_mb\n")
    while time.time() - t0 < total:
        if time.time() >= next_burst:
            for name, (_, p) in daemons.items():
                burst(name, p)
            next_burst += 300
        s = (round(time.time() - t0), rss_mb(pid_new), rss_mb(pid_old))
        samples.append(s)
        csv.write("%d,%.1f,%.1f\n" % s)
        csv.flush()
        time.sleep(10)
stop.set()

def summary(i):
    xs = [s[i] for s in samples]
    half = [s[i] for s in samples if s[0] >= total / 2]
    return {"at_1min_mb": round(next((s[i] for s in samples if s[0] >= 60), xs[0]), 1), "peak_mb": round(max(xs), 1),
            "end_mb": round(xs[-1], 1),
            "drift_second_half_mb": round(max(half) - min(half), 1) if half else 0.0}
out = {"seconds": total, "interval_s": 5, "checks": 9, "shipped": summary(1), "old_heap": summary(2), "request_errors": errors,
       "burst_errors": burst_errors}
json.dump(out, open("results/daemon-memory.json", "w"), indent=2)
print(f"== nhc daemon memory over {total} s (9 checks every 5 s, 8 fake GPUs, proxy traffic ~20 req/s, 1000-request bursts every 5 min)")
for name, key in (("shipped", "shipped"), ("-Xmx256m (before)", "old_heap")):
    s = out[key]
    print(f"{name:>18}: RSS at 1 min {s['at_1min_mb']} MB, peak {s['peak_mb']} MB, end {s['end_mb']} MB, "
          f"range over the second half {s['drift_second_half_mb']} MB")
ok = out["shipped"]["peak_mb"] <= 96 and out["shipped"]["drift_second_half_mb"] < 5
print("target (shipped: peak <= 96 MB, second-half range < 5 MB):", "met" if ok else "NOT met")
sys.exit(0 if ok else 1)
EOF
