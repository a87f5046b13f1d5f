#!/usr/bin/env bash
# Kernel log scanning: gpu.xid over a 1,000,000-line kernel log file, read once from a fresh
# state (the first run after install), and again with no new lines (every later run: it must
# seek to its cursor, not re-read). Called by run.sh; alone: bench/run-kernel-log.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")"
RUNS=${1:-10}
APP=${NHC_APP:-../cli/target/nhc}
NHC=$APP/bin/nhc
mkdir -p results
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/kern.log" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(999_999):
        f.write("[%d.%06d] usb 1-1: noise line %d\n" % (i // 1000, i % 1000, i))
    f.write("[1000.000000] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off the bus.\n")
PY
cat > "$work/xid.yaml" <<YAML
nhc: 1
settings:
  state_dir: $work/state
  check_timeout: 40s
  deadline: 45s
checks:
  - name: xid
    use: gpu.xid
    with: { log: $work/kern.log }
YAML
chmod 644 "$work/xid.yaml"
"$NHC" run -c "$work/xid.yaml" >/dev/null 2>&1 || true   # prime the cursor for the no-new-lines variant
echo "== gpu.xid over a 1,000,000-line kernel log ($(du -h "$work/kern.log" | cut -f1))"
python3 bench.py --runs "$RUNS" --warmup 1 --json results/kernel-log.json \
  "xid-1M-lines-first-scan=sh -c 'rm -rf $work/state; exec $NHC run -c $work/xid.yaml'" \
  "xid-no-new-lines=$NHC run -c $work/xid.yaml"
