#!/usr/bin/env bash
# GPU section of the benchmarks: `nhc run` with all seven GPU probes on 8 fake H100s (the
# project's fake libnvidia-ml.so.1, through the real JNA binding) against the same config without
# the GPU checks. The issue's target: the GPU probes cost at most 50 ms more (medians).
# Beside it, in the same run: one vendor-neutral GPU config (gpu.links for gpu.nvlink) on the 8 fake
# H100s and on 8 fake MI300Xs (the project's fake libamd_smi.so), each node with its own vendor's
# library only.
#   bench/run-gpu.sh [RUNS]     (run.sh calls it; needs `mvn -B package -DskipTests` first)
set -euo pipefail
cd "$(dirname "$0")"
RUNS=${1:-20}
APP=${NHC_APP:-../cli/target/nhc}
NHC=$APP/bin/nhc
LIB=$(realpath -m "${NHC_FAKE_NVML:-../checks/target/fake-nvml/libnvidia-ml.so.1}")
[ -f "$LIB" ] || make -s -C ../checks/src/test/c OUT="$(dirname "$LIB")"
AMDLIB=$(realpath -m "${NHC_FAKE_AMDSMI:-../checks/target/fake-amdsmi/libamd_smi.so}")
[ -f "$AMDLIB" ] || make -s -C ../checks/src/test/c AMD_OUT="$(dirname "$AMDLIB")" amd
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp/scenario.json" <<'PY'
import json, sys
def gpu(i):
    ecc = {f"{c}_{l}{t}": 0 for c in ("volatile", "aggregate") for l in ("", "dram_", "sram_") for t in ("corrected", "uncorrected")}
    return {"name": "NVIDIA H100 80GB HBM3", "uuid": f"GPU-bench-{i}", "pci_bus_id": f"00000000:{0x19 + 0x10 * i:02X}:00.0",
            "persistence_mode": True, "ecc_mode": {"current": True, "pending": True}, "ecc": ecc,
            "remapped_rows": {"correctable": 0, "uncorrectable": 0, "pending": False, "failure": False},
            "pcie": {"gen": 5, "max_gen": 5, "width": 16, "max_width": 16, "replay_counter": 0},
            "nvlinks": [{"active": True, "replay": 0, "recovery": 0, "crc_flit": 0, "crc_data": 0}] * 18,
            "temperature": 30, "memory_temperature": 40,
            "thresholds": {"shutdown": 92, "slowdown": 89, "mem_max": 95, "gpu_max": 87},
            "clocks_event_reasons": 1, "power_usage_mw": 70000, "enforced_power_limit_mw": 700000}
json.dump({"driver_version": "535.161.08", "gpus": [gpu(i) for i in range(8)]}, open(sys.argv[1], "w"), indent=1)
PY
python3 - "$tmp/amd-scenario.json" <<'PY'
import json, sys
def gpu(i):
    blocks = ("UMC", "SDMA", "GFX", "MMHUB", "PCIE_BIF", "HDP", "XGMI_WAFL")
    return {"market_name": "AMD Instinct MI300X", "uuid": f"3fff74a1-0000-1000-80{i:02x}-bench", "bdf": f"0000:{0x0c + 0x16 * i:02x}:00.0",
            "vbios_version": "113-M3000100-102", "ecc_enabled_blocks": 0x7ffff,
            "ecc": {b: {"correctable": 0, "uncorrectable": 0, "deferred": 0} for b in blocks}, "bad_pages": [],
            "pcie": {"width": 16, "max_width": 16, "speed": 32000, "max_speed": 32000, "interface_version": 5,
                     "replay_count": 0, "l0_to_recovery_count": 0},
            "gfx_activity": 0, "xgmi_error_status": 0, "xgmi_links": ["up"] * 7 + ["disabled"],
            "temperature": {"hotspot": 41, "vram": 35, "hotspot_critical": 100, "hotspot_emergency": 110, "vram_critical": 105},
            "violations": {"prochot": 0, "ppt": 0, "socket_thermal": 0, "vr_thermal": 0, "hbm_thermal": 0},
            "power": {"current_socket_w": 131, "cap_uw": 750000000}}
json.dump({"driver_version": "6.8.5", "gpus": [gpu(i) for i in range(8)]}, open(sys.argv[1], "w"), indent=1)
PY

host_checks='  - { name: root-mount, use: disk.mount, with: { mount: /, options: [rw] } }
  - { name: root-space, use: disk.usage, with: { mount: / }, fail: { used_percent: "> 99%" } }
  - { name: memory, use: memory, fail: { total: "< 1KiB" } }
  - { name: load, use: load, fail: { load1: "> 1000" } }'
printf 'nhc: 1\nsettings: { state_dir: %s/host }\nchecks:\n%s\n' "$tmp" "$host_checks" > "$tmp/host.yaml"
printf 'nhc: 1\nsettings: { state_dir: %s/gpu, nvml_library: %s }\nchecks:\n%s\n%s\n' "$tmp" "$LIB" "$host_checks" \
'  - { name: gpus, use: gpu.inventory, with: { count: 8, model: H100 } }
  - { name: gpu-ecc, use: gpu.ecc }
  - { name: gpu-memory-repair, use: gpu.memory-repair }
  - { name: gpu-pcie, use: gpu.pcie }
  - { name: gpu-nvlink, use: gpu.nvlink, with: { expected_links: 18 } }
  - { name: gpu-thermal, use: gpu.thermal }
  - { name: gpu-power, use: gpu.power }' > "$tmp/gpu.yaml"
# The one GPU config both vendors run unchanged (only where each vendor's library is differs).
any_gpu='  - { name: gpus, use: gpu.inventory, with: { count: 8 } }
  - { name: gpu-ecc, use: gpu.ecc }
  - { name: gpu-memory-repair, use: gpu.memory-repair }
  - { name: gpu-pcie, use: gpu.pcie }
  - { name: gpu-links, use: gpu.links }
  - { name: gpu-thermal, use: gpu.thermal }
  - { name: gpu-power, use: gpu.power }'
printf 'nhc: 1\nsettings: { state_dir: %s/any-nvidia, nvml_library: %s }\nchecks:\n%s\n%s\n' "$tmp" "$LIB" "$host_checks" "$any_gpu" \
  > "$tmp/any-nvidia.yaml"
printf 'nhc: 1\nsettings: { state_dir: %s/any-amd }\ngpu: { amd_smi_library: %s }\nchecks:\n%s\n%s\n' "$tmp" "$AMDLIB" "$host_checks" "$any_gpu" \
  > "$tmp/any-amd.yaml"

export NHC_FAKE_NVML_SCENARIO="$tmp/scenario.json"
export NHC_FAKE_AMDSMI_SCENARIO="$tmp/amd-scenario.json"
# All must pass, or the figures compare a failure path.
"$NHC" run -c "$tmp/host.yaml" >/dev/null
"$NHC" run -c "$tmp/gpu.yaml" >/dev/null
"$NHC" run -c "$tmp/any-nvidia.yaml" >/dev/null
"$NHC" run -c "$tmp/any-amd.yaml" >/dev/null

echo "== GPU probes on 8 fake H100s (host-only config vs the same + 7 GPU checks), and one GPU config on 8 fake H100s and 8 fake MI300Xs"
python3 bench.py --runs "$RUNS" --warmup 3 --json results/gpu-fake.json \
  "host-only=$NHC run -c $tmp/host.yaml" \
  "host+gpu-8-fake=$NHC run -c $tmp/gpu.yaml" \
  "host+any-gpu-8-h100=$NHC run -c $tmp/any-nvidia.yaml" \
  "host+any-gpu-8-mi300x=$NHC run -c $tmp/any-amd.yaml"
