#!/usr/bin/env bash
# The packages as an admin meets them (after mvn -Ppackages verify, which inspects them with PackageIT):
#
#   NHC_E2E_SYSTEM=1 cli/src/test/packages/install-test.sh [REPO]
#
# As root, on Debian: dpkg -i the .deb; the first verdict of /usr/bin/nhc with no JDK in sight (and
# how long install-to-first-verdict took); that the packaged runtime maps its shipped class-data
# archive; the GPU path (the project's fake NVML), script.js and the daemon on that runtime; bash
# completion; the real-Slurm e2e against /opt/nhc; dpkg -r (only the conffile and nhc's state stay),
# dpkg -P (nothing stays). Then the .rpm: rpm -qlp, and rpm -i --nodeps into a temporary root.
#
# It changes /opt/nhc, /etc/nhc, /var/lib/nhc, /usr/bin/nhc...: an /etc/nhc or /var/lib/nhc of
# someone else is moved aside and put back at exit, and an nhc package installed before is purged.
# JDK25 (optional): a second Java, whose archive the launcher makes on first use, must go on removal.
set -uo pipefail

REPO=$(cd "${1:-$(dirname "$0")/../../../..}" && pwd)
if [ "$(id -u)" != 0 ]; then echo "$0: must run as root (it installs a package)" >&2; exit 2; fi
if [ "${NHC_E2E_SYSTEM:-}" != 1 ]; then echo "$0: installs nhc system-wide; set NHC_E2E_SYSTEM=1 to agree" >&2; exit 2; fi
shopt -s nullglob
debs=("$REPO"/cli/target/nhc_*_*.deb)
rpms=("$REPO"/cli/target/nhc-*.rpm)
if [ ${#debs[@]} -ne 1 ] || [ ${#rpms[@]} -ne 1 ]; then
    echo "$0: expected one .deb and one .rpm in $REPO/cli/target (mvn -B -Ppackages verify -pl cli -am)" >&2; exit 2
fi
DEB=${debs[0]} RPM=${rpms[0]}
VERSION=$(dpkg-deb -f "$DEB" Version)
FAKE_NVML=$REPO/checks/target/fake-nvml/libnvidia-ml.so.1
SCENARIO=$REPO/cli/src/training/fake-nvml-scenario.json
T=$(mktemp -d /tmp/nhc-pkg.XXXXXX)
FAILED=0
ETC_BACKUP= VAR_BACKUP= DAEMON_PID=
FIGURES=()

ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; FAILED=$((FAILED + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
figure() { FIGURES+=("$(printf '%-44s %s' "$1" "$2")"); echo "figure: $1: $2"; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }
mode_of() { stat -c '%a %U:%G' "$1" 2>/dev/null; }
# The installed nhc as slurmd or a cron job would start it: no PATH beyond the basics, no JAVA_HOME.
clean_env() { env -i PATH=/usr/bin:/bin "$@"; }

cleanup() {
    local rc=$?
    set +e
    [ -n "$DAEMON_PID" ] && kill "$DAEMON_PID" 2>/dev/null
    if dpkg-query -W -f='${Status}' nhc 2>/dev/null | grep -q 'installed\|config-files'; then dpkg -P nhc >/dev/null 2>&1; fi
    if [ -n "$ETC_BACKUP" ]; then rm -rf /etc/nhc; mv "$ETC_BACKUP" /etc/nhc; fi
    if [ -n "$VAR_BACKUP" ]; then rm -rf /var/lib/nhc; mv "$VAR_BACKUP" /var/lib/nhc; fi
    rm -rf "$T"
    echo
    echo "package figures:"
    for f in "${FIGURES[@]}"; do echo "  $f"; done
    if [ "$FAILED" -gt 0 ]; then echo "package install test: $FAILED FAILED"; [ "$rc" -eq 0 ] && rc=1; else echo "package install test: all passed"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- a clean slate ---------------------------------------------------------------------------------
if dpkg-query -W -f='${Status}' nhc 2>/dev/null | grep -q 'installed\|config-files'; then
    echo "purging an nhc package left installed"; dpkg -P nhc
fi
if [ -e /etc/nhc ]; then ETC_BACKUP=/etc/nhc.pkg-test.$$; mv /etc/nhc "$ETC_BACKUP"; echo "moved /etc/nhc aside to $ETC_BACKUP"; fi
if [ -e /var/lib/nhc ]; then VAR_BACKUP=/var/lib/nhc.pkg-test.$$; mv /var/lib/nhc "$VAR_BACKUP"; echo "moved /var/lib/nhc aside to $VAR_BACKUP"; fi

figure ".deb size" "$(( $(stat -c %s "$DEB") / 1024 / 1024 )) MiB ($(basename "$DEB"); installed $(( $(dpkg-deb -f "$DEB" Installed-Size) / 1024 )) MiB)"
figure ".rpm size" "$(( $(stat -c %s "$RPM") / 1024 / 1024 )) MiB ($(basename "$RPM"))"

# ---- install, first verdict ------------------------------------------------------------------------
# As a run of nhc from the build tree before the package left it (nhc 0.1.0 made it 0755): the
# package must make it root's alone all the same.
mkdir -m 755 /var/lib/nhc
echo "== dpkg -i $(basename "$DEB")"
t0=$(ms)
timeout 300 dpkg -i "$DEB" || { bad "dpkg -i"; exit 1; }
t1=$(ms)
clean_env timeout 120 /usr/bin/nhc run -c /etc/nhc/nhc.yaml > "$T/first.out" 2>&1
rc=$?
t2=$(ms)
cat "$T/first.out"
check "first run of /usr/bin/nhc run -c /etc/nhc/nhc.yaml gave a verdict (exit $rc)" test "$rc" -le 1
check "the verdict line is there" grep -Eq ': (PASS|WARN|FAIL) \([0-9]+ checks? run' "$T/first.out"
figure "install-to-first-verdict" "$((t2 - t0)) ms (dpkg -i $((t1 - t0)) ms, first nhc run $((t2 - t1)) ms)"

echo "== the installed layout"
check "/usr/bin/nhc -> /opt/nhc/bin/nhc" test "$(readlink /usr/bin/nhc)" = /opt/nhc/bin/nhc
check "/usr/sbin/nhc-slurm -> /opt/nhc/bin/nhc-slurm" test "$(readlink /usr/sbin/nhc-slurm)" = /opt/nhc/bin/nhc-slurm
check "/etc/nhc/nhc.yaml 644 root:root" test "$(mode_of /etc/nhc/nhc.yaml)" = "644 root:root"
check "/var/lib/nhc 700 root:root" test "$(mode_of /var/lib/nhc)" = "700 root:root"
check "/opt/nhc/runtime/bin/java 755 root:root" test "$(mode_of /opt/nhc/runtime/bin/java)" = "755 root:root"
check "/opt/nhc/lib/native/nhc-slurm-ask 755 root:root (nhc-slurm asks the daemon only through it)" \
    test "$(mode_of /opt/nhc/lib/native/nhc-slurm-ask)" = "755 root:root"
check "the units are in /lib/systemd/system" test -f /lib/systemd/system/nhc-daemon.service -a -f /lib/systemd/system/nhc-run.timer
check "dpkg knows /etc/nhc/nhc.yaml as a conffile" bash -c "dpkg-query -W -f='\${Conffiles}' nhc | grep -q '/etc/nhc/nhc.yaml'"
check "nothing under /opt/nhc is group- or world-writable" test -z "$(find /opt/nhc /etc/nhc /var/lib/nhc -perm /022 ! -type l)"
check "/usr/sbin/nhc-slurm starts from an empty environment, as slurmd gives it" bash -c "env -i /usr/sbin/nhc-slurm --help | grep -q -- --slurm"
check "nhc check-config /etc/nhc/nhc.yaml" clean_env /usr/bin/nhc check-config -c /etc/nhc/nhc.yaml
# The lines the README ("Install as a package") and docs/slurm.md ("Why was this node drained?") give for an
# installed node, as written: nhc from PATH, the default config. A verdict is exit 0 or 1.
for line in "nhc run --verbose" "nhc run --only root-space --verbose"; do
    check "'$line' (README.md, docs/slurm.md) gives a verdict" bash -c "cd / && env -i PATH=/usr/bin:/bin $line > '$T/doc-line.out' 2>&1; rc=\$?; cat '$T/doc-line.out'; [ \$rc -le 1 ] && grep -Eq ': (PASS|WARN|FAIL) \\(' '$T/doc-line.out'"
done

echo "== no JDK of the node is used"
mkdir -p "$T/fakejdk/bin"
printf '#!/bin/sh\ntouch %s/fakejdk/used\nexit 97\n' "$T" > "$T/fakejdk/bin/java"
chmod 755 "$T/fakejdk/bin/java"
out=$(env -i PATH="$T/fakejdk/bin:/usr/bin:/bin" JAVA_HOME="$T/fakejdk" /usr/bin/nhc version 2>&1)
echo "$out"
check "nhc version runs with a broken java on PATH and in JAVA_HOME" bash -c "[[ '$out' == 'nhc $VERSION on Java '* ]]"
check "the broken java was never started" test ! -e "$T/fakejdk/used"
check "java.home is /opt/nhc/runtime" bash -c "env -i PATH=/usr/bin:/bin NHC_JAVA_OPTS=-XshowSettings:properties /usr/bin/nhc version 2>&1 | grep -q 'java.home = /opt/nhc/runtime'"

echo "== the shipped class-data archive"
clean_env NHC_JAVA_OPTS=-Xlog:class+load=info /usr/bin/nhc run -c /etc/nhc/nhc.yaml > "$T/classload.log" 2>&1
shared=$(grep -c 'source: shared objects file' "$T/classload.log")
total=$(grep -c '\[class,load\]' "$T/classload.log")
check "dev.nhc.cli.Main comes from the shipped archive" grep -q 'dev.nhc.cli.Main source: shared objects file (top)' "$T/classload.log"
figure "classes from the archives (nhc run)" "$shared of $total"
timed() { # timed N ENV...: median wall ms of N runs of nhc run on the installed config
    local n=$1 i s; shift
    local -a ts=()
    for i in $(seq 1 "$n"); do s=$(date +%s%N); env -i PATH=/usr/bin:/bin "$@" /usr/bin/nhc run -c /etc/nhc/nhc.yaml >/dev/null 2>&1; ts+=($(( ($(date +%s%N) - s) / 1000000 ))); done
    printf '%s\n' "${ts[@]}" | sort -n | sed -n "$(( (n + 1) / 2 ))p"
}
figure "nhc run, median of 7, with the archive" "$(timed 7 X=1) ms"
figure "nhc run, median of 7, NHC_CDS=off" "$(timed 7 NHC_CDS=off) ms"

echo "== GPU checks (fake NVML), script.js and the daemon on the packaged runtime"
cp "$FAKE_NVML" "$T/libnvidia-ml.so.1"
cat > "$T/gpu.yaml" <<EOF
nhc: 1
settings: { state_dir: $T/state-gpu, nvml_library: $T/libnvidia-ml.so.1 }
checks:
  - { name: gpus, use: gpu.inventory, with: { count: 2 } }
  - { name: gpu-ecc, use: gpu.ecc }
  - { name: gpu-nvlink, use: gpu.nvlink }
  - name: js
    use: script.js
    with:
      source: |
        [{ entity: 'node', severity: 'pass', message: 'JavaScript ran on the packaged runtime' }]
EOF
clean_env NHC_FAKE_NVML_SCENARIO="$SCENARIO" timeout 120 /usr/bin/nhc run --verbose -c "$T/gpu.yaml" > "$T/gpu.out" 2>&1
rc=$?
cat "$T/gpu.out"
check "GPU checks and script.js pass (exit $rc)" test "$rc" -eq 0
check "gpu.inventory saw two GPUs through JNA" grep -q '^PASS    gpus ' "$T/gpu.out"
# The script's pass reaches the report as an observation its rules judged: proof that GraalJS ran it
# (a script that cannot run is unknown, not pass).
check "script.js ran" grep -Eq '^PASS +js +script\.js .*reported_severity pass' "$T/gpu.out"
cat > "$T/daemon.yaml" <<EOF
nhc: 1
settings: { state_dir: $T/state-daemon, interval: 60s }
daemon: { metrics_listen: 127.0.0.1:19464 }
dstack: { listen: 127.0.0.1:19998, shim: 127.0.0.1:19999 }
checks:
  - { name: memory, use: memory }
EOF
env -i PATH=/usr/bin:/bin /usr/bin/nhc daemon -c "$T/daemon.yaml" > "$T/daemon.out" 2>&1 &
DAEMON_PID=$!
get() { python3 -c 'import sys,urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=2).read().decode())' "$1" 2>/dev/null; }
up=
for _ in $(seq 1 150); do get http://127.0.0.1:19464/healthz >/dev/null && { up=1; break; }; sleep 0.2; done
check "the daemon answers /healthz" test -n "$up"
check "the daemon serves Prometheus /metrics" bash -c "$(declare -f get); get http://127.0.0.1:19464/metrics | grep -q '^nhc_'"
kill -TERM "$DAEMON_PID" 2>/dev/null
for _ in $(seq 1 100); do kill -0 "$DAEMON_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$DAEMON_PID" 2>/dev/null && { kill -KILL "$DAEMON_PID"; bad "the daemon did not stop on SIGTERM"; }
DAEMON_PID=
[ -n "$up" ] || cat "$T/daemon.out"

echo "== bash completion"
check "the installed completion registers for nhc" bash --norc --noprofile -c 'source /usr/share/bash-completion/completions/nhc && complete -p nhc | grep -q _complete_nhc'

echo "== an upgrade keeps the admin's config"
printf '# edited by the admin\n' >> /etc/nhc/nhc.yaml
edited=$(sha256sum < /etc/nhc/nhc.yaml)
timeout 300 dpkg -i "$DEB" < /dev/null || bad "dpkg -i again"
check "/etc/nhc/nhc.yaml kept as edited" test "$(sha256sum < /etc/nhc/nhc.yaml)" = "$edited"
check "the archive still maps after the reinstall" bash -c "env -i PATH=/usr/bin:/bin NHC_JAVA_OPTS=-Xlog:class+load=info /usr/bin/nhc version 2>&1 | grep -q 'dev.nhc.cli.Main source: shared objects file (top)'"

echo "== the real-Slurm e2e against the installed /opt/nhc"
if [ -x "$REPO/slurm-integration/src/e2e/run-e2e.sh" ]; then
    timeout 1800 "$REPO/slurm-integration/src/e2e/run-e2e.sh" /opt/nhc
    check "Slurm e2e from /opt/nhc" test $? -eq 0
fi

if [ -n "${JDK25:-}" ] && [ -x "$JDK25/bin/java" ]; then
    echo "== a second Java ($JDK25): its archive is made beside the shipped one"
    clean_env NHC_JAVA="$JDK25/bin/java" timeout 300 /usr/bin/nhc version
    check "an archive for $JDK25 in /opt/nhc/lib/cds" bash -c 'ls /opt/nhc/lib/cds/ | grep -q "\.aot$"'
fi

echo "== dpkg -r nhc"
timeout 300 dpkg -r nhc > "$T/remove.out" 2>&1 || bad "dpkg -r"
cat "$T/remove.out"
check "dpkg -r warns about nothing" bash -c "! grep -i warning '$T/remove.out'"
for p in /opt/nhc /usr/bin/nhc /usr/sbin/nhc-slurm /lib/systemd/system/nhc-daemon.service /lib/systemd/system/nhc-run.service \
        /lib/systemd/system/nhc-run.timer /usr/share/bash-completion/completions/nhc; do
    check "removed: $p" test ! -e "$p" -a ! -L "$p"
done
check "kept: /etc/nhc/nhc.yaml and nothing else in /etc/nhc" test "$(find /etc/nhc | sort | tr '\n' ' ')" = "/etc/nhc /etc/nhc/nhc.yaml "
check "dpkg: config-files" bash -c "dpkg-query -W -f='\${Status}' nhc | grep -q config-files"
echo "kept in /var/lib/nhc: $(ls -A /var/lib/nhc 2>/dev/null | tr '\n' ' ')"
# nhc's state: sections (.json), their copies (.json.prev), a damaged one set aside, the journal of generations, the lock
leftover=$(find /var/lib/nhc -type f 2>/dev/null | grep -v -E '^/var/lib/nhc/([^/]+\.(json|json\.prev|json\.corrupt-[0-9]+|lock)|generations\.journal)$' || true)
check "kept in /var/lib/nhc: nhc's state files only (${leftover:-none other})" test -z "$leftover"

echo "== dpkg -P nhc"
timeout 300 dpkg -P nhc > "$T/purge.out" 2>&1 || bad "dpkg -P"
cat "$T/purge.out"
check "dpkg -P warns about nothing (not about /opt)" bash -c "! grep -i warning '$T/purge.out'"
check "purged: /etc/nhc" test ! -e /etc/nhc
check "purged: /var/lib/nhc" test ! -e /var/lib/nhc

echo "== the .rpm"
rpm -qip "$RPM" || bad "rpm -qip"
n=$(rpm -qlp "$RPM" | wc -l)
check "rpm -qlp lists the files ($n)" test "$n" -gt 100
check "rpm -qcp: /etc/nhc/nhc.yaml is its config file" test "$(rpm -qcp "$RPM")" = /etc/nhc/nhc.yaml
R=$T/rpmroot
mkdir -p "$R"
if rpm --root "$R" --initdb && timeout 300 rpm -i --nodeps --noscripts --root "$R" "$RPM"; then
    ok "rpm -i --nodeps --noscripts --root $R"
    check "rpm root: /opt/nhc/bin/nhc 755" test "$(mode_of "$R/opt/nhc/bin/nhc")" = "755 root:root"
    check "rpm root: /opt/nhc/lib/native/nhc-slurm-ask 755" test "$(mode_of "$R/opt/nhc/lib/native/nhc-slurm-ask")" = "755 root:root"
    check "rpm root: /var/lib/nhc 700" test "$(mode_of "$R/var/lib/nhc")" = "700 root:root"
    check "rpm root: /usr/bin/nhc -> /opt/nhc/bin/nhc" test "$(readlink "$R/usr/bin/nhc")" = /opt/nhc/bin/nhc
    check "rpm -V: every file as packaged" rpm --root "$R" -V --nodeps nhc
    check "the rpm's nhc runs from the temporary root" bash -c "env -i PATH=/usr/bin:/bin NHC_CDS=off '$R/opt/nhc/bin/nhc' version | grep -q 'nhc $VERSION'"
    timeout 300 rpm -e --noscripts --root "$R" nhc && check "rpm -e: /opt/nhc gone" test ! -e "$R/opt/nhc"
else
    echo "rpm -i into a temporary root does not work here (see above); rpm -qlp and PackageIT still read the .rpm"
fi
