#!/usr/bin/env bash
# Whole-process benchmarks of the packaged nhc, variants side by side in one run (bench.py
# interleaves them, so they share the machine's load). Needs `mvn -B package -DskipTests` first.
#   bench/run.sh [RUNS]        figures land in bench/results/
set -euo pipefail
cd "$(dirname "$0")"
RUNS=${1:-20}
APP=${NHC_APP:-../cli/target/nhc}
NHC=$APP/bin/nhc
mkdir -p results
J17=${JDK17:-$(ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null | head -n 1)}
J25=${JDK25:-$(ls -d /usr/lib/jvm/temurin-25* /usr/lib/jvm/java-25-* 2>/dev/null | head -n 1 || true)}
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
sed "s#/tmp/nhc-bench-state#$state/host#" configs/host-basic.yaml > "$state/host-basic.yaml"
# Make sure each Java has its archive before timing (the first run with a new Java creates it).
NHC_JAVA=$J17/bin/java "$NHC" run -c "$state/host-basic.yaml" >/dev/null 2>&1 || true
[ -n "$J25" ] && NHC_JAVA=$J25/bin/java "$NHC" run -c "$state/host-basic.yaml" >/dev/null 2>&1 || true

echo "== host-basic.yaml (mount / rw, / free >= 1 %, memory 1 KiB..10 TiB, load < 1000)"
variants=("jdk17-archive=env NHC_JAVA=$J17/bin/java $NHC run -c $state/host-basic.yaml"
          "jdk17-no-archive=env NHC_CDS=off NHC_JAVA=$J17/bin/java $NHC run -c $state/host-basic.yaml")
[ -n "$J25" ] && variants+=("jdk25-aot-cache=env NHC_JAVA=$J25/bin/java $NHC run -c $state/host-basic.yaml")
variants+=("jvm-hello-jdk17=$J17/bin/java -Xshare:auto -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -version")
python3 bench.py --runs "$RUNS" --warmup 3 --json results/host-basic.json "${variants[@]}"

# Further sections (GPU on fake NVML, kernel log scan, script.js, daemon, proxy) are added by
# their own scripts when present.
for extra in run-*.sh; do
  [ -x "$extra" ] && { echo; "./$extra" "$RUNS"; }
done
exit 0
