#!/bin/sh
# Lays out the file tree of the .deb and the .rpm (mvn -Ppackages calls this after the app directory
# is built):
#
#   stage.sh APP_DIR STAGE_DIR JDK_HOME TIMESTAMP
#
#   STAGE/opt/nhc/           the app directory, plus runtime/ (jlink: only the modules nhc uses) and
#                            lib/cds/nhc-<runtime version>.jsa (the class-data archive of that runtime)
#   STAGE/etc/nhc/nhc.yaml   the default config (a conffile)
#   STAGE/usr/share/bash-completion/completions/nhc
#
# The archive is only used by a JVM that sees the same jar paths and modification times as the
# training run did. So every file gets TIMESTAMP as its mtime (the package plugins write the same
# into the packages), and the training run sees the staged tree at /opt/nhc, its installed path,
# through a private mount namespace (unshare; a user namespace when not root).
#
# NHC_TRAINING_NVML and NHC_FAKE_NVML_SCENARIO are handed to bin/nhc-build-archive (the GPU path).
set -eu

die() { echo "stage.sh: $*" >&2; exit 1; }
[ $# -eq 4 ] || die "usage: stage.sh APP_DIR STAGE_DIR JDK_HOME TIMESTAMP"
APP=$1 STAGE=$2 JDK=$3 TS=$4
SRC=$(cd -- "$(dirname -- "$0")" && pwd)
[ -x "$APP/bin/nhc" ] || die "$APP/bin/nhc: no app directory (run the package phase first)"
# Without it the packaged bin/nhc-slurm would never ask the daemon (the app build only warns).
[ -f "$APP/lib/native/nhc-slurm-ask" ] || die "$APP/lib/native/nhc-slurm-ask was not built: the packages need a C compiler (Debian: gcc libc6-dev)"
[ -f "$JDK/jmods/java.base.jmod" ] || die "$JDK has no jmods/ to link a runtime from: build the packages with a full JDK 17 (Debian: openjdk-17-jdk-headless)"
command -v unshare >/dev/null || die "unshare (util-linux) is needed to train the class-data archive at /opt/nhc"
date -u -d "$TS" +%s >/dev/null 2>&1 || die "TIMESTAMP '$TS' is not a date"

rm -rf "$STAGE"
OPT=$STAGE/opt/nhc
mkdir -p "$OPT" "$STAGE/etc/nhc" "$STAGE/usr/share/bash-completion/completions"
cp -R "$APP/." "$OPT/"
# Archives made for the build's JDK: the package's launcher never uses that JDK.
rm -f "$OPT"/lib/cds/*

# ---- the runtime ---------------------------------------------------------------------------------
# The modules every jar nhc ships refers to, less java.desktop: jdeps finds it through JNA's AWT
# window helpers and snakeyaml's bean introspector, neither of which nhc ever reaches (it reads YAML
# through the Composer only, and JNA only for libc and NVML). The package test runs the host, GPU,
# script.js and daemon paths on this runtime.
jars=$(find "$OPT/lib" -name '*.jar' | sort | tr '\n' ' ')
# shellcheck disable=SC2086
modules=$("$JDK/bin/jdeps" --ignore-missing-deps --multi-release 17 --print-module-deps -q $jars) \
    || die "jdeps failed over $jars"
modules=$(printf '%s\n' "$modules" | tr ',' '\n' | grep -v -x -e java.desktop -e '' | sort -u | paste -s -d, -)
echo "stage.sh: runtime modules: $modules"
"$JDK/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files --compress=2 \
    --generate-cds-archive --output "$OPT/runtime" >/dev/null
# The base archive for compressed class pointers off (heaps over 32 GB): nhc's heaps are small
# (the one-shot run -Xmx256m, the daemon -Xmx64m: see bin/nhc).
rm -f "$OPT/runtime/lib/server/classes_nocoops.jsa"
# jlink links identical legal notices to one another; packages carry plain files.
find "$OPT/runtime" -type l | while read -r l; do
    cp --remove-destination -- "$(readlink -f -- "$l")" "$l"
done
# The launcher names the archive by the exact runtime version, which a linked runtime's release file lacks.
rtver=$("$OPT/runtime/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.runtime\.version = //p')
[ -n "$rtver" ] || die "cannot read the linked runtime's version"
grep -q '^JAVA_RUNTIME_VERSION=' "$OPT/runtime/release" || printf 'JAVA_RUNTIME_VERSION="%s"\n' "$rtver" >> "$OPT/runtime/release"

# ---- config, completion --------------------------------------------------------------------------
cp "$SRC/nhc.yaml" "$STAGE/etc/nhc/nhc.yaml"
# Validated from a private copy: as root nhc reads only a config no one else can change, and a build
# tree may well have group-writable directories (git archive | tar -x gives them); that says nothing
# of the config. mktemp -d makes a directory of the builder's alone under the sticky /tmp.
cfg=$(mktemp -d)
cp "$SRC/nhc.yaml" "$cfg/nhc.yaml"
NHC_CDS=off "$OPT/bin/nhc" check-config -c "$cfg/nhc.yaml" >/dev/null || { rm -rf "$cfg"; die "the default config does not validate"; }
rm -rf "$cfg"
NHC_CDS=off "$OPT/bin/nhc" completion bash > "$STAGE/usr/share/bash-completion/completions/nhc"

# ---- modes and times -----------------------------------------------------------------------------
find "$STAGE" -type d -exec chmod 755 {} +
find "$STAGE" -type f -exec chmod 644 {} +
# the same files as pkg.executables in cli/pom.xml
chmod 755 "$OPT"/bin/* "$OPT"/scripts/*.sh "$OPT"/lib/native/nhc-slurm-ask "$OPT"/runtime/bin/* "$OPT"/runtime/lib/jspawnhelper "$OPT"/runtime/lib/jexec
find "$STAGE" -exec touch -h -d "$TS" {} +

# ---- the class-data archive, trained at /opt/nhc -------------------------------------------------
ns="unshare --mount --propagation private"
[ "$(id -u)" = 0 ] || ns="unshare --map-root-user --mount --propagation private"
empty=$(mktemp -d)
trap 'rm -rf "$empty"' EXIT
# Inside: the staged tree at /opt, and an empty /etc/nhc (site jars in /etc/nhc/ext would be loaded by
# the training run). The check after training fails the build if the launcher does not
# map the archive: a run from the package would silently go without it.
# shellcheck disable=SC2016
env -u NHC_JAVA -u NHC_JAVA_OPTS -u NHC_EXTRA_CLASSPATH -u NHC_CDS $ns sh -c '
    set -e
    mount --bind "$1" /opt
    if [ -d /etc/nhc ]; then mount --bind "$2" /etc/nhc; fi
    /opt/nhc/bin/nhc-build-archive --fresh
    NHC_JAVA_OPTS=-Xlog:class+load=info /opt/nhc/bin/nhc version > "$2/classload.log" 2>&1
    grep -q "dev.nhc.cli.Main source: shared objects file (top)" "$2/classload.log" || {
        echo "stage.sh: the trained archive is not used by /opt/nhc/bin/nhc:" >&2; tail -n 5 "$2/classload.log" >&2; exit 1; }
' stage "$STAGE/opt" "$empty" || die "training the class-data archive failed"
ls "$OPT"/lib/cds/nhc-*.jsa >/dev/null 2>&1 || die "no class-data archive in $OPT/lib/cds"
chmod 644 "$OPT"/lib/cds/*
touch -d "$TS" "$OPT"/lib/cds "$OPT"/lib/cds/*
echo "stage.sh: $(cd "$STAGE" && du -sh opt/nhc/runtime | cut -f1) runtime $rtver, archive $(ls "$OPT/lib/cds")"
