#!/usr/bin/env bash
# Time from a fake NVML XID event to the daemon's verdict changing: `nhc daemon` with a gpu.xid
# check that runs only once an hour, on the project's fake libnvidia-ml (events from a file). Each
# sample: the XID line lands in the kernel log the check reads, then the event is raised; the clock
# runs from raising the event to /v1/verdict showing the check failed. Without the event the verdict
# would change at the next interval (1 h). Called by bench/run.sh; alone: bench/run-xid.sh [RUNS]
# (needs `mvn -B verify` or `package` with tests compiled: the fake library is built by the checks tests).
# Port 127.0.0.1:19465. Figures in bench/results/xid.json.
set -euo pipefail
cd "$(dirname "$0")"
APP=${NHC_APP:-../cli/target/nhc}
FAKE=$(cd .. && pwd)/checks/target/fake-nvml
SAMPLES=5
mkdir -p results
if [ ! -f "$FAKE/libnvidia-ml.so.1" ]; then
  echo "bench xid: no fake libnvidia-ml in $FAKE (build the checks tests first); skipped"
  exit 0
fi
T=$(mktemp -d)
dpid=
cleanup() { [ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT

python3 - "$T/scenario.json" <<'EOF'
import json, sys
gpus = []
for i in range(8):
    gpus.append({"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-%08d-0000-0000-0000-000000000000" % i,
                 "pci_bus_id": "00000000:%02X:00.0" % (0x19 + i), "persistence_mode": True,
                 "ecc_mode": {"current": True, "pending": True}})
json.dump({"driver_version": "535.161.08", "gpus": gpus}, open(sys.argv[1], "w"))
EOF

times=()
for n in $(seq 1 $SAMPLES); do
  : >"$T/kern.log"; : >"$T/events.log"; rm -rf "$T/state"
  cat >"$T/nhc.yaml" <<EOF
nhc: 1
settings:
  interval: 1h
  state_dir: $T/state
  nvml_library: $FAKE/libnvidia-ml.so.1
daemon:
  metrics_listen: 127.0.0.1:19465
checks:
  - name: xid
    use: gpu.xid
    with: { log: $T/kern.log, since_boot: false }
EOF
  NHC_CDS=off NHC_FAKE_NVML_SCENARIO=$T/scenario.json NHC_FAKE_NVML_EVENTS=$T/events.log \
    "$APP/bin/nhc" daemon -c "$T/nhc.yaml" >"$T/daemon.log" 2>&1 &
  dpid=$!
  ok=
  for _ in $(seq 1 100); do
    if curl -sf http://127.0.0.1:19465/v1/verdict 2>/dev/null | grep -q '"severity":"pass"'; then ok=1; break; fi
    sleep 0.1
  done
  [ -n "$ok" ] || { cat "$T/daemon.log"; echo "bench xid: the daemon did not come up healthy"; exit 1; }
  sleep 1   # the watcher has registered its event set
  echo "Nov 22 05:00:00 node kernel: [ 100.000000] NVRM: Xid (PCI:0000:1b:00): 79, pid=0, GPU has fallen off the bus." >>"$T/kern.log"
  ms=$(python3 - "$T/events.log" <<'EOF'
import json, sys, time, urllib.request
t0 = time.perf_counter()
with open(sys.argv[1], "a") as f:
    f.write("gpu=2 xid=79\n")
while True:
    v = json.load(urllib.request.urlopen("http://127.0.0.1:19465/v1/verdict", timeout=5))
    if v["severity"] == "fail":
        break
    if time.perf_counter() - t0 > 20:
        sys.exit("verdict did not change within 20 s")
    time.sleep(0.002)
print(round((time.perf_counter() - t0) * 1000.0, 1))
EOF
)
  times+=("$ms")
  kill "$dpid"; wait "$dpid" 2>/dev/null || true; dpid=
done
python3 - "${times[@]}" <<'EOF'
import json, statistics, sys
t = [float(x) for x in sys.argv[1:]]
out = {"samples": len(t), "median_ms": statistics.median(t), "max_ms": max(t), "all_ms": t,
       "setup": "nhc daemon, gpu.xid every 1h, fake NVML with 8 GPUs, XID 79 raised on GPU 2"}
json.dump(out, open("results/xid.json", "w"), indent=2)
print(f"== XID event -> verdict (fake NVML, gpu.xid every 1h): median {out['median_ms']} ms, max {out['max_ms']} ms over {len(t)} daemon starts")
EOF
