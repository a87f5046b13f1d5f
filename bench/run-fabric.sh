#!/usr/bin/env bash
# gpu.fabric's cost, as whole `nhc run` processes on 8 fake H100s on an NVSwitch fabric (the
# project's fake libnvidia-ml.so.1, through the real JNA binding):
#   - gpu.inventory alone vs gpu.inventory + gpu.fabric (fabric info of 8 GPUs, the fabric manager
#     unit through a stand-in systemctl, a fabric manager log of 10,000 lines already read: the
#     steady state of a node whose log grows slowly);
#   - `nhc replay --fabricmanager-log` of a 1-line log vs a 200,000-line (~30 MB) log with errors in
#     it: reading a whole log (the first run on a node, or a ticket's attachment).
#   bench/run-fabric.sh [RUNS]   (run.sh calls it; needs `mvn -B package -DskipTests` and the fake library)
set -euo pipefail
cd "$(dirname "$0")"
RUNS=${1:-20}
APP=${NHC_APP:-../cli/target/nhc}
NHC=$APP/bin/nhc
LIB=$(realpath -m "${NHC_FAKE_NVML:-../checks/target/fake-nvml/libnvidia-ml.so.1}")
[ -f "$LIB" ] || make -s -C ../checks/src/test/c OUT="$(dirname "$LIB")"
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" <<'PY'
import json, sys, time
d = sys.argv[1]
gpus = [{"name": "NVIDIA H100 80GB HBM3", "uuid": f"GPU-bench-{i}", "pci_bus_id": f"00000000:{0x19 + 0x10 * i:02X}:00.0",
         "persistence_mode": True,
         "fabric": {"state": 3, "status": 0, "clique_id": 7, "cluster_uuid": "6b0f2a1e-0c3d-4e5f-8a9b-0c1d2e3f4a5b",
                    "health_mask": 426, "health_summary": 1}} for i in range(8)]
json.dump({"driver_version": "570.124.06", "gpus": gpus}, open(d + "/scenario.json", "w"))
stamp = time.strftime("%b %d %Y %H:%M:%S")
info = f"[{stamp}] [INFO] [tid 5120] Received an inband message: Message header details: magic Id:adbc request Id:0 status:0 type:3 length:24\n"
with open(d + "/steady.log", "w") as f:
    f.write(info * 10000)
with open(d + "/big.log", "w") as f:
    for i in range(200000):
        if i % 1000 == 999:
            f.write(f"[{stamp}] [ERROR] [tid 5120] detected NVSwitch non-fatal error 19084 on fid 0 on NVSwitch pci bus id "
                    f"00000000:C{i % 4}:00.0 physical id {i % 4} port {i % 64}\n")
        else:
            f.write(info)
with open(d + "/small.log", "w") as f:
    f.write(info)
PY
printf '#!/bin/sh\nprintf "ActiveState=active\\nSubState=running\\nLoadState=loaded\\n"\n' > "$tmp/systemctl"
chmod +x "$tmp/systemctl"

inventory='  - { name: gpus, use: gpu.inventory, with: { count: 8, model: H100 } }'
printf 'nhc: 1\nsettings: { state_dir: %s/a, nvml_library: %s }\nchecks:\n%s\n' "$tmp" "$LIB" "$inventory" > "$tmp/gpu.yaml"
printf 'nhc: 1\nsettings: { state_dir: %s/b, nvml_library: %s }\nchecks:\n%s\n%s\n' "$tmp" "$LIB" "$inventory" \
"  - { name: fabric, use: gpu.fabric, with: { systemctl: $tmp/systemctl, log: $tmp/steady.log } }" > "$tmp/fabric.yaml"
printf 'nhc: 1\nchecks:\n  - { name: fabric, use: gpu.fabric }\n' > "$tmp/replay.yaml"

export NHC_FAKE_NVML_SCENARIO="$tmp/scenario.json"
# Both must pass (the first fabric run reads the 10,000 lines; every later one finds none new).
"$NHC" run -c "$tmp/gpu.yaml" >/dev/null
"$NHC" run -c "$tmp/fabric.yaml" >/dev/null

echo "== gpu.fabric on 8 fake H100s (gpu.inventory alone vs + gpu.fabric, steady state)"
python3 bench.py --runs "$RUNS" --warmup 3 --json results/fabric-run.json \
  "gpu.inventory=$NHC run -c $tmp/gpu.yaml" \
  "gpu.inventory+gpu.fabric=$NHC run -c $tmp/fabric.yaml"

echo "== reading a whole fabric manager log (nhc replay: 1 line vs 200,000 lines, $(du -h "$tmp/big.log" | cut -f1))"
python3 bench.py --runs "$RUNS" --warmup 2 --json results/fabric-log.json \
  "replay-1-line=$NHC replay -c $tmp/replay.yaml --fabricmanager-log $tmp/small.log" \
  "replay-200k-lines=$NHC replay -c $tmp/replay.yaml --fabricmanager-log $tmp/big.log"
