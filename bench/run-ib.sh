#!/usr/bin/env bash
# InfiniBand section of the benchmarks: `nhc run` with an ib.ports check over a sysfs tree of eight
# NDR HCAs and a RoCE NIC (the layout of /sys/class/infiniband, counters included) against the
# same config without it. Target: ib.ports costs at most 50 ms more (medians), as the seven GPU
# checks together may (run-gpu.sh). Measured on a loaded 2-core VM: about +35 ms wall, +50 ms CPU,
# half of it the first use of the JSON state store, which any other check keeping counters
# (gpu.ecc, gpu.xid, kernel.log) pays in the same run anyway.
#   bench/run-ib.sh [RUNS]     (needs `mvn -B package -DskipTests` first)
set -euo pipefail
cd "$(dirname "$0")"
RUNS=${1:-20}
APP=${NHC_APP:-../cli/target/nhc}
NHC=$APP/bin/nhc
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ib=$tmp/root/sys/class/infiniband
for i in 0 1 2 3 4 5 6 7; do
  p=$ib/mlx5_$i/ports/1
  mkdir -p "$p/counters"
  echo "4: ACTIVE" > "$p/state"; echo "5: LinkUp" > "$p/phys_state"
  echo "400 Gb/sec (4X NDR)" > "$p/rate"; echo InfiniBand > "$p/link_layer"
  for c in link_downed link_error_recovery symbol_error port_rcv_errors port_rcv_remote_physical_errors \
           local_link_integrity_errors excessive_buffer_overrun_errors port_xmit_discards; do
    echo 0 > "$p/counters/$c"
  done
done
p=$ib/mlx5_8/ports/1
mkdir -p "$p/gid_attrs/ndevs"
echo "4: ACTIVE" > "$p/state"; echo "5: LinkUp" > "$p/phys_state"
echo "100 Gb/sec (4X EDR)" > "$p/rate"; echo Ethernet > "$p/link_layer"; echo enp27s0f0np0 > "$p/gid_attrs/ndevs/0"

# Both configs read the same system root: the tree above, with a copy of this machine's /proc/meminfo.
mkdir -p "$tmp/root/proc"
cp /proc/meminfo "$tmp/root/proc/"
host_checks='  - { name: memory, use: memory, fail: { total: "< 1KiB" } }'
printf 'nhc: 1\nsettings: { state_dir: %s/ib, root: %s/root }\nchecks:\n%s\n%s\n' "$tmp" "$tmp" "$host_checks" \
'  - { name: ib, use: ib.ports, with: { count: 8, rate: 400 } }' > "$tmp/ib.yaml"
printf 'nhc: 1\nsettings: { state_dir: %s/host, root: %s/root }\nchecks:\n%s\n' "$tmp" "$tmp" "$host_checks" > "$tmp/host.yaml"

# Both must pass, or the figures compare a failure path.
"$NHC" run -c "$tmp/host.yaml" >/dev/null
"$NHC" run -c "$tmp/ib.yaml" >/dev/null

echo "== ib.ports on 8 NDR ports + 1 RoCE port (host-only config vs the same + ib.ports)"
python3 bench.py --runs "$RUNS" --warmup 3 --json results/ib.json \
  "host-only=$NHC run -c $tmp/host.yaml" \
  "host+ib.ports=$NHC run -c $tmp/ib.yaml"
