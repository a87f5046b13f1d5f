#!/usr/bin/env bash
# End-to-end: a real Prometheus (Debian's prometheus package) scrapes a running `nhc daemon` with the
# shipped alert rules loaded, and answers every query of the shipped Grafana dashboard.
#
# What it proves, through Prometheus's HTTP API:
#   - the daemon is scraped (up{job="nhc"} == 1) and, while every check passes, NhcNodeFailing is silent;
#   - a check flipped to failing (a file check's file removed), a fatal XID in the kernel log
#     (GPU 1 of the project's fake NVML) and an InfiniBand port going down after three link flaps
#     (a sysfs tree under the config's system root) fire NhcNodeFailing, NhcFatalXid,
#     NhcLatchedFault, NhcIbPortDown and NhcIbLinkFlapping, with the labels and the annotation text
#     the rules promise;
#   - every panel query of examples/grafana/nhc-fleet.json returns data, except those over the
#     Slurm plugin's metrics (no Slurm here: SLURM_ONLY below; run-e2e.sh of slurm-integration
#     reads them from a daemon that drains a real slurmd);
#   - the daemon stopped fires NhcDaemonDown.
# The rules are loaded from a copy whose `for:` durations are cut to a few seconds (only those lines
# differ; the shipped durations are covered by nhc-alerts.test.yml under `promtool test rules`).
#
# Usage: prometheus-e2e.sh [APP_DIR]   (default: cli/target/nhc, built by `mvn package`)
# Needs: prometheus and promtool on PATH (apt-get install prometheus), python3, curl, gcc/make when
#        the fake NVML is not built yet. Changes nothing outside its temp directory; free local
#        ports only; every process it starts is stopped on exit.
# Environment: NHC_PROM_E2E_TIMEOUT (seconds for the whole suite, default 300).
set -euo pipefail

here=$(cd -- "$(dirname -- "$0")" && pwd)
repo=$(cd -- "$here/../../.." && pwd)
app=$(cd -- "${1:-$repo/cli/target/nhc}" && pwd)
examples=$repo/cli/src/main/dist/examples
limit=${NHC_PROM_E2E_TIMEOUT:-300}
began=$(date +%s)
passed=0

say() { printf '[prometheus-e2e %3ss] %s\n' "$(( $(date +%s) - began ))" "$*"; }
die() { say "FAILED: $*"; exit 1; }
ok() { passed=$((passed + 1)); say "ok: $*"; }

[ -x "$app/bin/nhc" ] || die "no $app/bin/nhc: build it first (mvn -B package -DskipTests)"
for tool in prometheus promtool python3 curl; do
  command -v "$tool" >/dev/null || die "$tool is not installed (Debian: apt-get install prometheus python3 curl)"
done

T=$(mktemp -d /tmp/nhc-prom-e2e.XXXXXX)
pids=()
cleanup() {
  local rc=$?
  set +e
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 20); do kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null
  done
  if [ $rc -ne 0 ]; then
    for log in "$T"/*.log; do [ -f "$log" ] && { echo "---- tail of $log"; tail -n 30 "$log"; }; done
  fi
  rm -rf -- "$T"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

in_time() { [ $(( $(date +%s) - began )) -lt "$limit" ] || die "suite time limit of ${limit}s reached"; }

# wait_for SECONDS DESCRIPTION COMMAND...: polls once a second until the command succeeds.
wait_for() {
  local secs=$1 what=$2; shift 2
  local end=$(( $(date +%s) + secs ))
  until "$@" >"$T/last-wait.out" 2>&1; do
    in_time
    [ "$(date +%s)" -lt "$end" ] || { cat "$T/last-wait.out"; die "timed out after ${secs}s waiting for: $what"; }
    sleep 1
  done
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
nhc_port=$(free_port)
prom_port=$(free_port)
[ "$nhc_port" != "$prom_port" ] || prom_port=$(free_port)
prom=http://127.0.0.1:$prom_port

# ---- 1. the fake NVML: two healthy GPUs, GPU 1 at PCI 0000:3b:00 -----------------------------------
built=$repo/checks/target/fake-nvml/libnvidia-ml.so.1
mkdir -p "$T/fake-nvml"
if [ -f "$built" ] && ! [ "$repo/checks/src/test/c/fake_nvml.c" -nt "$built" ]; then
  cp "$built" "$T/fake-nvml/libnvidia-ml.so.1"
else
  make -s -C "$repo/checks/src/test/c" OUT="$T/fake-nvml" >"$T/fake-nvml-build.log" 2>&1 || die "cannot build the fake NVML"
fi
cat >"$T/fake-nvml/scenario.json" <<'EOF'
{
  "description": "nhc prometheus e2e: 2 healthy GPUs",
  "driver_version": "535.161.08",
  "gpus": [
    { "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-00000000-0000-0000-0000-0000000e2e00",
      "pci_bus_id": "00000000:19:00.0", "persistence_mode": true },
    { "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-00000000-0000-0000-0000-0000000e2e01",
      "pci_bus_id": "00000000:3B:00.0", "persistence_mode": true }
  ]
}
EOF

# ---- 2. nhc daemon: a file check the test flips, the GPU inventory, XIDs from a kernel log file, -----
#         two InfiniBand ports; files and sysfs live under the config's system root $T/root
R=$T/root
mkdir -p "$R/e2e" "$R/var/log"
touch "$R/e2e/healthy" "$R/var/log/kern.log"
# ib_port DEVICE STATE PHYS LINK_DOWNED LINK_ERROR_RECOVERY: port 1 as the kernel's sysfs-class-infiniband shows it
ib_port() {
  local d=$R/sys/class/infiniband/$1/ports/1
  mkdir -p "$d/counters"
  echo "$2" >"$d/state"; echo "$3" >"$d/phys_state"
  echo "400 Gb/sec (4X NDR)" >"$d/rate"; echo InfiniBand >"$d/link_layer"
  echo "$4" >"$d/counters/link_downed"; echo "$5" >"$d/counters/link_error_recovery"
}
ib_port mlx5_0 "4: ACTIVE" "5: LinkUp" 0 0
ib_port mlx5_1 "4: ACTIVE" "5: LinkUp" 0 0
cat >"$T/nhc.yaml" <<EOF
nhc: 1
settings:
  interval: 1s
  check_timeout: 5s
  state_dir: $T/state
  root: $R
  nvml_library: $T/fake-nvml/libnvidia-ml.so.1
daemon:
  metrics_listen: 127.0.0.1:$nhc_port
  socket: $T/nhc.sock
dstack:
  proxy: false
  fleet: prom-e2e
checks:
  - name: e2e-marker
    use: file
    with: { path: /e2e/healthy }
  - name: gpus
    use: gpu.inventory
    with: { count: 2 }
  - name: gpu-xid
    use: gpu.xid
    with: { log: /var/log/kern.log, since_boot: false }
  - name: ib
    use: ib.ports
    with: { rate: 400 }
EOF
"$app/bin/nhc" check-config -c "$T/nhc.yaml" >"$T/check-config.log" 2>&1 || die "nhc rejects the suite's config"
# NHC_CDS=off: the launcher then execs java, so that SIGTERM reaches the JVM itself.
NHC_CDS=off "$app/bin/nhc" daemon -c "$T/nhc.yaml" >"$T/nhc-daemon.log" 2>&1 &
pids+=($!); nhc_pid=$!
wait_for 60 "a verdict on nhc's /metrics" sh -c "curl -sf http://127.0.0.1:$nhc_port/metrics | grep -q '^nhc_verdict_severity'"
say "nhc daemon up (pid $nhc_pid), /metrics on 127.0.0.1:$nhc_port"

# ---- 3. Prometheus with the rules (for: cut to 3s) and the nhc scrape job ------------------------------
sed -E 's/^([[:space:]]+for:)[[:space:]]+[0-9smhd]+[[:space:]]*$/\1 3s/' "$examples/prometheus/nhc-alerts.yml" >"$T/nhc-alerts.yml"
# Only the for: lines may differ from the shipped file.
if diff "$examples/prometheus/nhc-alerts.yml" "$T/nhc-alerts.yml" | grep '^[<>]' | grep -v -E '^[<>][[:space:]]+for:' >&2; then
  die "the test copy of the rules differs from the shipped one in more than for:"
fi
cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $T/nhc-alerts.yml
scrape_configs:
  - job_name: nhc
    static_configs:
      - targets: [ "127.0.0.1:$nhc_port" ]
EOF
promtool check config "$T/prometheus.yml" >"$T/promtool.log" 2>&1 || die "promtool rejects the suite's prometheus.yml"
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" --log.level=warn >"$T/prometheus.log" 2>&1 &
pids+=($!)
wait_for 60 "Prometheus ready on $prom" curl -sf "$prom/-/ready"
say "prometheus $(prometheus --version 2>&1 | head -n 1 | awk '{print $3}') up on $prom"

# query EXPR: prints the JSON result vector of an instant query.
query() { curl -sf --max-time 10 "$prom/api/v1/query" --data-urlencode "query=$1"; }
# has_result EXPR [VALUE]: the query returns at least one sample (with that value).
has_result() {
  query "$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
want = sys.argv[1] if len(sys.argv) > 1 else None
sys.exit(0 if r and (want is None or all(float(s["value"][1]) == float(want) for s in r)) else 1)' "${@:2}"
}
# alert_state NAME [LABEL=VALUE...]: prints the state (pending/firing) of the matching alert, or "inactive".
alert_state() {
  curl -sf --max-time 10 "$prom/api/v1/alerts" | python3 -c '
import json, sys
name, want = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
states = [a["state"] for a in json.load(sys.stdin)["data"]["alerts"]
          if a["labels"].get("alertname") == name and all(a["labels"].get(k) == v for k, v in want.items())]
print("firing" if "firing" in states else states[0] if states else "inactive")' "$@"
}
alert_is() { local want=$1; shift; [ "$(alert_state "$@")" = "$want" ]; }

scraped_and_passing() { has_result 'up{job="nhc"}' 1 && has_result 'nhc_verdict_severity{job="nhc"}' 0; }
wait_for 60 "up{job=\"nhc\"} == 1 and a passing verdict in Prometheus" scraped_and_passing
ok "Prometheus scrapes nhc: up{job=\"nhc\"} 1, nhc_verdict_severity 0"
# Several rule evaluations (1 s each) on a passing node: the failing alert must stay inactive.
for _ in 1 2 3 4 5; do
  [ "$(alert_state NhcNodeFailing)" = inactive ] || die "NhcNodeFailing is $(alert_state NhcNodeFailing) while every check passes"
  sleep 1
done
ok "NhcNodeFailing stays inactive while every check passes"

# ---- 4. flip: the file check fails, GPU 1 logs XID 79 (fatal, latched, remedy reboot), mlx5_1 flaps
#         three times and stays down --------------------------------------------------------------------
rm -f "$R/e2e/healthy"
echo "[  4242.000001] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, name=python3, GPU has fallen off the bus." >>"$R/var/log/kern.log"
ib_port mlx5_1 "1: DOWN" "2: Polling" 3 2
say "flipped: removed /e2e/healthy, appended XID 79 for PCI 0000:3b:00 (GPU 1) to /var/log/kern.log, mlx5_1/1 down after 3 link_downed and 2 link_error_recovery"

wait_for 60 "NhcNodeFailing firing" alert_is firing NhcNodeFailing job=nhc instance="127.0.0.1:$nhc_port" dstack_fleet_name=prom-e2e severity=critical
description=$(curl -sf "$prom/api/v1/alerts" | python3 -c '
import json, sys
for a in json.load(sys.stdin)["data"]["alerts"]:
    if a["labels"]["alertname"] == "NhcNodeFailing" and a["state"] == "firing":
        print(a["annotations"]["description"])')
case "$description" in
  "Failing checks: e2e-marker, gpu-xid, ib. "*) ;;
  *) die "NhcNodeFailing's description does not name the failing checks: $description" ;;
esac
ok "NhcNodeFailing fires: $description"
wait_for 30 "NhcFatalXid firing for GPU 1" alert_is firing NhcFatalXid gpu=1 check=gpu-xid remedy=reboot probe=gpu.xid
ok "NhcFatalXid fires for GPU 1 with remedy reboot"
wait_for 30 "NhcLatchedFault firing for GPU 1" alert_is firing NhcLatchedFault gpu=1 check=gpu-xid field=xid_latched
ok "NhcLatchedFault fires for GPU 1"
wait_for 30 "NhcIbPortDown firing for mlx5_1/1" alert_is firing NhcIbPortDown device=mlx5_1 port=1 check=ib
wait_for 30 "NhcIbLinkFlapping firing for mlx5_1/1" alert_is firing NhcIbLinkFlapping device=mlx5_1 port=1
ok "NhcIbPortDown and NhcIbLinkFlapping fire for mlx5_1 port 1"

# ---- 5. every dashboard query returns data ------------------------------------------------------------
# The template variables as a user would pick them: job nhc, every node; $__interval 1m, $__rate_interval 5m
# (what Grafana picks for a few hours shown), so that a flap early in the suite is still in the window.
# SLURM_ONLY: the Slurm plugin's metrics, absent without Slurm; queries over them are skipped here.
check_panels() {
  python3 - "$examples/grafana/nhc-fleet.json" "$prom" "$1" <<'PY'
import json, re, sys, urllib.parse, urllib.request
dashboard, prom, final = sys.argv[1], sys.argv[2], sys.argv[3] == "final"
SLURM_ONLY = ("nhc_slurm_node_held", "nhc_slurm_actions_total", "nhc_slurm_circuit_breaker_open", "nhc_slurm_repair_")
VARS = {"job": "nhc", "instance": ".*", "__rate_interval": "5m", "__interval": "1m"}
def substitute(expr):
    out = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: VARS[m.group(1) or m.group(2)], expr)
    return out
def panels(ps):
    for p in ps:
        yield p
        yield from panels(p.get("panels", []))
empty, skipped, answered = [], [], 0
for p in panels(json.load(open(dashboard))["panels"]):
    for t in p.get("targets", []):
        expr = substitute(t["expr"])
        if any(m in expr for m in SLURM_ONLY):
            skipped.append(p["title"])
            continue
        url = prom + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.load(r)
        if body["status"] != "success":
            sys.exit(f"{p['title']} [{t['refId']}]: {expr}: {body}")
        if body["data"]["result"]:
            answered += 1
        else:
            empty.append(f"{p['title']} [{t['refId']}]: {expr}")
if final:
    print(f"{answered} panel queries returned data; skipped (Slurm metrics, no Slurm here): {', '.join(sorted(set(skipped)))}")
if empty:
    print("no data yet:\n  " + "\n  ".join(empty))
    sys.exit(1)
PY
}
wait_for 90 "every dashboard query to return data" check_panels waiting
ok "dashboard: $(check_panels final | head -n 1)"

# ---- 6. the daemon stops: NhcDaemonDown ------------------------------------------------------------------
kill -TERM "$nhc_pid"
wait_for 20 "the daemon to stop on SIGTERM" sh -c "! kill -0 $nhc_pid"
wait_for 30 "NhcDaemonDown firing" alert_is firing NhcDaemonDown job=nhc instance="127.0.0.1:$nhc_port"
ok "NhcDaemonDown fires once the daemon is stopped"

echo "prometheus-e2e: $passed passed, 0 failed"
