#!/usr/bin/env bash
# End-to-end: nhc's shim health proxy in front of a stand-in dstack-shim, seen by a real dstack
# server (dstack[server]==0.22.5) that "deploys" an SSH fleet onto this very machine.
#
# What it proves, through dstack's own REST API:
#   an nhc check that fails  -> the instance's health_status becomes "failure" and the stored health check carries nhc's message
#   the check warns          -> "warning"
#   the check passes again   -> "healthy"
#
# What it needs and changes (so it only runs as root, in CI (CI=true) or with NHC_E2E_SYSTEM=1):
#   - openssh-server and sudo (installed with apt-get when missing)
#   - /usr/local/bin/systemctl: a stand-in, because systemd is not PID 1 here and the server runs
#     `sudo systemctl daemon-reload/enable/restart dstack-shim`
#   - what the server itself writes on the "host": /usr/local/bin/dstack-shim (downloaded from a
#     file:// URL), /root/.dstack/{shim.env,host_info.json}, /etc/systemd/system/dstack-shim.service,
#     and its key in /root/.ssh/authorized_keys
#   Everything is put back on exit (trap EXIT); every process it starts is stopped.
#   Fixed ports on 127.0.0.1: 10998 (the shim port dstack tunnels to; nhc's proxy), 11998 (the
#   stand-in shim), 2222 (sshd), 3000 (dstack server), 9464 (nhc's status endpoints).
#
# Environment: NHC_E2E_VENV (default ~/.cache/nhc/dstack-0.22.5-venv, reused between runs),
#              NHC_E2E_TIMEOUT (seconds for the suite after installing, default 540; pip has its own 600).
set -euo pipefail

here=$(cd -- "$(dirname -- "$0")" && pwd)
repo=$(cd -- "$here/../../.." && pwd)
limit=${NHC_E2E_TIMEOUT:-540}
began=$(date +%s)

say() { printf '[dstack-e2e %3ss] %s\n' "$(( $(date +%s) - began ))" "$*"; }
die() { say "FAILED: $*"; exit 1; }

if [ "$(id -u)" != 0 ]; then die "must run as root (it runs sshd and the dstack host side)"; fi
if [ "${CI:-}" != true ] && [ "${NHC_E2E_SYSTEM:-}" != 1 ]; then
  say "SKIPPED: this suite changes system files (see the header); run it with CI=true or NHC_E2E_SYSTEM=1"
  exit 0
fi

T=$(mktemp -d /tmp/nhc-dstack-e2e.XXXXXX)
pids=()
created=()
restores=()

cleanup() {
  local rc=$?
  set +e
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  if [ -f "$T/shim.pid" ]; then kill "$(cat "$T/shim.pid")" 2>/dev/null; fi
  for _ in $(seq 1 20); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.5
  done
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  if [ -f "$T/shim.pid" ]; then kill -9 "$(cat "$T/shim.pid")" 2>/dev/null; fi
  for f in "${created[@]}"; do rm -rf -- "$f"; done
  for pair in "${restores[@]}"; do
    src=${pair%%|*}; dst=${pair#*|}
    rm -rf -- "$dst"; cp -a -- "$src" "$dst"
  done
  if [ $rc -ne 0 ]; then
    for log in "$T"/*.log; do [ -f "$log" ] && { echo "---- tail of $log"; tail -n 40 "$log"; }; done
  fi
  rm -rf -- "$T"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Files the suite creates or the server writes: removed afterwards, or restored when they existed.
guard() {
  local f=$1
  if [ -e "$f" ]; then
    local keep
    keep="$T/restore/$(echo "$f" | tr / _)"
    mkdir -p "$T/restore"; cp -a -- "$f" "$keep"; restores+=("$keep|$f")
  else
    created+=("$f")
  fi
}

in_time() { [ $(( $(date +%s) - began )) -lt "$limit" ] || die "suite time limit of ${limit}s reached"; }

# wait_for SECONDS DESCRIPTION COMMAND...: polls until the command succeeds.
wait_for() {
  local secs=$1 what=$2; shift 2
  local end=$(( $(date +%s) + secs ))
  until "$@" >/dev/null 2>&1; do
    in_time
    [ "$(date +%s)" -lt "$end" ] || die "timed out after ${secs}s waiting for: $what"
    sleep 1
  done
}

for port in 10998 11998 2222 3000 9464; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then die "port $port on 127.0.0.1 is in use; this suite needs it"; fi
done

# ---- 1. tools: sshd and sudo from Debian, dstack from PyPI ---------------------------------------
if ! [ -x /usr/sbin/sshd ] || ! command -v sudo >/dev/null; then
  say "installing openssh-server and sudo"
  apt-get update -qq >"$T/apt.log" 2>&1 || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-server sudo >>"$T/apt.log" 2>&1 || die "apt-get install failed"
fi
venv=${NHC_E2E_VENV:-$HOME/.cache/nhc/dstack-0.22.5-venv}
if ! "$venv/bin/dstack" --version 2>/dev/null | grep -q '0.22.5'; then
  say "installing dstack[server]==0.22.5 into $venv (takes a few minutes)"
  rm -rf -- "$venv"
  python3 -m venv "$venv"
  timeout 600 "$venv/bin/pip" install -q "dstack[server]==0.22.5" >"$T/pip.log" 2>&1 || die "pip install dstack[server]==0.22.5 failed"
fi
# The suite's own time limit starts now: installing is bounded separately (apt, pip: 10 min).
began=$(date +%s)
say "dstack $("$venv/bin/dstack" --version 2>&1 | tail -1)"

# ---- 2. nhc: the daemon with its proxy on 10998 in front of the shim's 11998 ---------------------
# With the packaged app (.ci/run passes cli/target/nhc) this is the real `nhc daemon`; the only
# addition is the e2e.flag probe from the test classes, put on its class path the way a site adds
# probes. Without it, the same wiring runs from the module's test class path (E2eDaemonMain).
app=${1:-}
probe_class=$repo/dstack-integration/target/test-classes/dev/nhc/dstack/e2e/FlagFileProbe.class
if [ -n "$app" ] && [ -x "$app/bin/nhc" ] && [ -f "$probe_class" ]; then
  say "using the packaged nhc in $app"
  # NHC_CDS=off: the launcher then always execs java, so that SIGHUP and SIGTERM reach the JVM itself.
  nhc_cmd=(env NHC_CDS=off NHC_EXTRA_CLASSPATH="$repo/dstack-integration/target/test-classes" "$app/bin/nhc" daemon -c)
else
  say "building nhc's dstack module"
  (cd "$repo" && mvn -B -q -o -pl dstack-integration -am test-compile dependency:build-classpath \
      -Dmdep.outputFile="$T/cp.txt" -Dmdep.includeScope=test >"$T/mvn.log" 2>&1) \
    || (cd "$repo" && mvn -B -q -pl dstack-integration -am test-compile dependency:build-classpath \
      -Dmdep.outputFile="$T/cp.txt" -Dmdep.includeScope=test >"$T/mvn.log" 2>&1) \
    || die "maven build failed (see mvn.log)"
  nhc_cmd=(java -cp "$repo/dstack-integration/target/test-classes:$repo/dstack-integration/target/classes:$(cat "$T/cp.txt")"
           dev.nhc.dstack.e2e.E2eDaemonMain)
fi

flag=$T/flag
echo "pass all good" >"$flag"
cat >"$T/nhc.yaml" <<EOF
nhc: 1
settings:
  interval: 1s
  check_timeout: 5s
  state_dir: $T/state
daemon:
  metrics_listen: 127.0.0.1:9464
dstack:
  listen: 127.0.0.1:10998
  shim: 127.0.0.1:11998
  project: main
  fleet: nhc-e2e
checks:
  - name: e2e-flag
    use: e2e.flag
    with: { file: $flag }
EOF
"${nhc_cmd[@]}" "$T/nhc.yaml" >"$T/nhc-daemon.log" 2>&1 &
pids+=($!); nhc_pid=$!
wait_for 60 "nhc daemon's /v1/verdict" curl -sf http://127.0.0.1:9464/v1/verdict
say "nhc daemon up (pid $nhc_pid), proxy on 127.0.0.1:10998"

# ---- 3. the host side: stand-in shim (served from a file:// URL), stand-in systemctl, sshd ----------
cat >"$T/dstack-shim" <<'EOF'
#!/usr/bin/python3
# Stand-in for dstack-shim: the routes the dstack server uses, and host_info.json as the real shim writes it.
import json, os, shutil
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port = int(os.environ.get("DSTACK_SHIM_HTTP_PORT", "10998"))
home = os.environ.get("DSTACK_SHIM_HOME", "/root/.dstack")
os.makedirs(home, exist_ok=True)
info = {"gpu_vendor": "", "gpu_name": "", "gpu_memory": 0, "gpu_count": 0, "addresses": ["127.0.0.1/8"],
        "disk_size": shutil.disk_usage("/").total, "cpus": os.cpu_count() or 1,
        "memory": os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")}
with open(os.path.join(home, "host_info.json.tmp"), "w") as f:
    json.dump(info, f)
os.replace(os.path.join(home, "host_info.json.tmp"), os.path.join(home, "host_info.json"))
ROUTES = {"/api/healthcheck": {"service": "dstack-shim", "version": "latest"},
          "/api/tasks": {"tasks": []},
          "/api/components": {"components": []},
          "/api/instance/health": {"dcgm": None},
          "/api/instance/info": {}}

class H(BaseHTTPRequestHandler):
    def do_GET(self):
        body = ROUTES.get(self.path.split("?")[0])
        if body is None:
            self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers(); return
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    do_POST = do_GET
    def log_message(self, *a):
        pass

ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
EOF
chmod 755 "$T/dstack-shim"

guard /usr/local/bin/systemctl
cat >/usr/local/bin/systemctl <<EOF
#!/bin/sh
# Stand-in systemctl for the dstack e2e suite (systemd is not PID 1 here): runs dstack-shim in the background.
pidfile=$T/shim.pid
unit=/etc/systemd/system/dstack-shim.service
case "\$*" in
  *daemon-reload*|*enable*) exit 0 ;;
  *restart*dstack-shim*|*start*dstack-shim*)
    [ -f "\$pidfile" ] && kill "\$(cat "\$pidfile")" 2>/dev/null && sleep 0.5
    envfile=\$(sed -n 's/^EnvironmentFile=//p' "\$unit")
    exe=\$(sed -n 's/^ExecStart=//p' "\$unit")
    wd=\$(sed -n 's/^WorkingDirectory=//p' "\$unit")
    ( cd "\$wd" && set -a && . "\$envfile" && set +a && exec setsid "\$exe" ) >$T/shim.log 2>&1 </dev/null &
    echo \$! >"\$pidfile"
    exit 0 ;;
  *status*dstack-shim*)
    if [ -f "\$pidfile" ] && kill -0 "\$(cat "\$pidfile")" 2>/dev/null; then echo "   Active: active (running)"; exit 0; fi
    echo "   Active: inactive (dead)"; exit 3 ;;
  *) echo "stand-in systemctl: \$* not supported" >&2; exit 1 ;;
esac
EOF
chmod 755 /usr/local/bin/systemctl
for f in /usr/local/bin/dstack-shim /usr/local/bin/dstack-runner /root/.dstack /etc/systemd/system/dstack-shim.service /root/.ssh; do guard "$f"; done
mkdir -p /etc/systemd/system /run/sshd

ssh-keygen -q -t ed25519 -N '' -f "$T/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$T/id_ed25519"
mkdir -p -m 700 /root/.ssh
cat "$T/id_ed25519.pub" >>/root/.ssh/authorized_keys
chmod 600 /root/.ssh/authorized_keys
cat >"$T/sshd_config" <<EOF
Port 2222
ListenAddress 127.0.0.1
HostKey $T/host_key
PidFile $T/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AuthorizedKeysFile .ssh/authorized_keys
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
EOF
/usr/sbin/sshd -D -e -f "$T/sshd_config" >"$T/sshd.log" 2>&1 &
pids+=($!)
wait_for 20 "sshd on 127.0.0.1:2222" ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
  -i "$T/id_ed25519" -p 2222 root@127.0.0.1 true
say "sshd up on 127.0.0.1:2222 with root key login"

# ---- 4. the dstack server, and the SSH fleet registered through it ----------------------------------
token=$(python3 -c 'import uuid; print(uuid.uuid4())')
mkdir -p "$T/home"
HOME=$T/home DSTACK_SERVER_DIR=$T/server DSTACK_DO_NOT_UPDATE_DEFAULT_PROJECT=1 \
  DSTACK_SHIM_DOWNLOAD_URL="file://$T/dstack-shim" \
  DSTACK_SERVER_INSTANCE_HEALTH_MIN_COLLECT_INTERVAL_SECONDS=1 \
  DSTACK_SERVER_LOG_LEVEL=INFO \
  "$venv/bin/dstack" server --host 127.0.0.1 --port 3000 --token "$token" >"$T/dstack-server.log" 2>&1 &
pids+=($!)
wait_for 120 "dstack server on 127.0.0.1:3000" curl -sf -X POST -H "Authorization: Bearer $token" http://127.0.0.1:3000/api/users/get_my_user
say "dstack server up"

api() {
  local body='{}'
  [ $# -ge 2 ] && body=$2
  curl -sS --max-time 20 -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    "http://127.0.0.1:3000$1" -d "$body"
}

HOME=$T/home "$venv/bin/dstack" project add --name main --url http://127.0.0.1:3000 --token "$token" -y >"$T/dstack-cli.log" 2>&1 \
  || die "dstack project add failed"
cat >"$T/fleet.yml" <<EOF
type: fleet
name: nhc-e2e
ssh_config:
  user: root
  port: 2222
  identity_file: $T/id_ed25519
  hosts:
    - 127.0.0.1
env:
  - DSTACK_SHIM_HTTP_PORT=11998
EOF
(cd "$T" && HOME=$T/home timeout 120 "$venv/bin/dstack" apply -f "$T/fleet.yml" -y --detach >>"$T/dstack-cli.log" 2>&1) \
  || die "dstack apply of the SSH fleet failed"
say "fleet nhc-e2e submitted"

fleet_field() {  # prints "status health_status" of the fleet's first instance
  api /api/project/main/fleets/get '{"name":"nhc-e2e"}' | python3 -c '
import json, sys
f = json.load(sys.stdin)
i = (f.get("instances") or [{}])[0]
print(i.get("status"), i.get("health_status"), i.get("unreachable"))'
}
instance_is() { [ "$(fleet_field)" = "$1" ]; }

wait_for 240 "the instance to become idle and healthy" instance_is "idle healthy False"
[ -x /usr/local/bin/dstack-shim ] || die "the server did not install the stand-in shim"
curl -sf http://127.0.0.1:11998/api/healthcheck >/dev/null || die "the stand-in shim is not on 11998 (the fleet env did not move it)"
say "instance idle and healthy; real shim on 11998, nhc's proxy on 10998"

instance_name=$(api /api/project/main/fleets/get '{"name":"nhc-e2e"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["instances"][0]["name"])')
fleet_id=$(api /api/project/main/fleets/get '{"name":"nhc-e2e"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
health_checks() {
  api /api/project/main/instances/get_instance_health_checks \
    "{\"fleet_name\":\"nhc-e2e\",\"instance_num\":0,\"limit\":5}"
}
latest_check_has() {  # STATUS MESSAGE-FRAGMENT
  health_checks | python3 -c '
import json, sys
want_status, want_msg = sys.argv[1], sys.argv[2]
d = json.load(sys.stdin)
checks = d.get("health_checks", d if isinstance(d, list) else [])
if not checks: sys.exit(1)
def matches(c):
    msgs = [e.get("message") or "" for e in c.get("events", [])]
    return c.get("status") == want_status and any(want_msg in m for m in msgs)
sys.exit(0 if any(matches(c) for c in checks) else 1)' "$1" "$2"
}

# ---- 5. drive nhc's verdict and watch dstack follow --------------------------------------------------
echo "fail GPU 3 fell off the bus (e2e)" >"$flag"
wait_for 120 "health_status failure" instance_is "idle failure False"
wait_for 30 "a stored health check with nhc's message" latest_check_has failure "nhc: e2e-flag: GPU 3 fell off the bus (e2e)"
say "fail -> dstack health_status failure, message: nhc: e2e-flag: GPU 3 fell off the bus (e2e)"

echo "warn ECC single-bit errors rising (e2e)" >"$flag"
wait_for 120 "health_status warning" instance_is "idle warning False"
wait_for 30 "a stored warning check with nhc's message" latest_check_has warning "nhc: e2e-flag: ECC single-bit errors rising (e2e)"
say "warn -> dstack health_status warning"

echo "pass all good" >"$flag"
wait_for 120 "health_status healthy" instance_is "idle healthy False"
say "pass -> dstack health_status healthy"

# SIGHUP with a broken config: reported, the old config keeps serving.
cp "$T/nhc.yaml" "$T/nhc.yaml.good"
printf 'nhc: 1\nchecks:\n  - name: x\n    use: no.such.probe\n' >"$T/nhc.yaml"
kill -HUP "$nhc_pid"
wait_for 20 "the rejected reload in /healthz" sh -c "curl -sf http://127.0.0.1:9464/healthz | grep -q 'reload rejected'"
kill -0 "$nhc_pid" || die "the daemon died on SIGHUP"
wait_for 10 "a verdict still served" curl -sf http://127.0.0.1:9464/v1/verdict
cp "$T/nhc.yaml.good" "$T/nhc.yaml"
kill -HUP "$nhc_pid"
wait_for 20 "the accepted reload in /healthz" sh -c "curl -sf http://127.0.0.1:9464/healthz | grep -q '\"status\":\"ok\"'"
say "SIGHUP: invalid config rejected and reported, valid one accepted"

curl -sf http://127.0.0.1:9464/metrics >"$T/metrics.txt" || die "no /metrics"
grep -q 'nhc_check_severity{check="e2e-flag",dstack_fleet_name="nhc-e2e",dstack_project_name="main"' "$T/metrics.txt" \
  || die "/metrics lacks the per-check series with dstack labels"
# dstack's other calls (healthcheck, tasks, components) went through the proxy to the shim.
python3 - "$T/metrics.txt" <<'PY' || die "the proxy did not pass dstack's requests through to the shim"
import re, sys
text = open(sys.argv[1]).read()
def value(pattern):
    m = re.search(pattern + r"\S* ([0-9.e+]+)", text, re.M)
    return float(m.group(1)) if m else 0.0
forwarded = value(r"^nhc_proxy_requests_total") - value(r'^nhc_proxy_health_answers_total\{[^}]*shim="ok"') \
    - value(r'^nhc_proxy_health_answers_total\{[^}]*shim="down"') - value(r'^nhc_proxy_health_answers_total\{[^}]*shim="malformed"')
health_ok = value(r'^nhc_proxy_health_answers_total\{[^}]*shim="ok"')
print(f"proxy: {forwarded:.0f} requests passed through, {health_ok:.0f} health answers merged with the shim's")
sys.exit(0 if forwarded >= 3 and health_ok >= 3 else 1)
PY

kill -TERM "$nhc_pid"
wait_for 15 "the daemon to stop on SIGTERM" sh -c "! kill -0 $nhc_pid"
say "SIGTERM: daemon stopped cleanly"
say "instance $instance_name of fleet $fleet_id followed nhc through failure, warning and healthy"
echo "dstack-e2e: 5 passed, 0 failed"
