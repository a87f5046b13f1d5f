# Fault suite rows: root runs what a user wrote (issue 17 item 2). Sourced by ../fault-suite.sh.
#
# One row per kind of path nhc runs or loads: a site jar in lib/ext and in /etc/nhc/ext, the NVML
# library from settings.nvml_library and from --nvml-library, scontrol found by search in a
# directory a user can write and scontrol configured there, an `sh -c` and a `python3 -c` string
# naming a user's file, and a log_file that is a hard link. In each the attacker is uid 65534,
# who writes the file; its payload leaves a marker holding the user it ran as, so the proof is
# that no marker exists (for the library: that its constructor did not run). Each row fails on a
# build without the trust rule (the payload runs as root) and survives with it.
# /etc/nhc, /usr/local/bin and /usr/bin/scontrol are replaced only inside a mount namespace of
# the one nhc process (unshare -m), so nothing outside the suite's temp directory sees them; an
# /etc/nhc that does not exist is created empty for the mount and removed afterwards.

TRUST_USER=65534
# as_user CMD...: runs CMD as the attacker (no groups)
as_user() { setpriv --reuid="$TRUST_USER" --regid="$TRUST_USER" --clear-groups "$@"; }
# payload_sh MARKER: a shell script that records who ran it
payload_sh() { printf '#!/bin/sh\nid -un > %s 2>/dev/null || echo ran > %s\necho ok\n' "$1" "$1"; }
# no_marker MARKER WHAT: the payload did not run (or says as whom it did)
no_marker() {
  if [ -e "$1" ]; then
    miss "$2 RAN as $(cat "$1" 2>/dev/null | head -c 40)"
  else
    note "$2 never ran"
  fi
}
# refused_at DIR NAME LINE:COL TEXT [RUN-ARGS...]: check-config and run both exit 2 and name the place and the reason
refused_at() {
  local d=$1 n=$2 at=$3 text=$4
  shift 4
  nhc_run "$d" "$n-check" check-config -c "$d/nhc.yaml"
  expect_clean "$d" "$n-check"
  if [ "$RC" = 2 ] && has "$d/$n-check.err" "nhc\.yaml:$at: .*$text"; then
    note "check-config exit 2: \"$(snip "$d/$n-check.err" "nhc\.yaml:$at: .{0,150}")…\""
  else
    miss "check-config: exit $RC, not 2 with nhc.yaml:$at and '$text' ($(head -c 300 "$d/$n-check.out" "$d/$n-check.err" | tr '\n' ' '))"
  fi
  nhc_run "$d" "$n-run" run "$@" -c "$d/nhc.yaml"
  expect_clean "$d" "$n-run"
  [ "$RC" = 2 ] && note "run exit 2" || miss "run: exit $RC, not 2 ($(head -c 200 "$d/$n-run.out" | tr '\n' ' '))"
}
# user_dir DIR: DIR owned by the attacker (their home, say)
user_dir() { mkdir -p "$1" && chown "$TRUST_USER:$TRUST_USER" "$1"; }

# ---- site jars -------------------------------------------------------------------------------------
# site_jar DIR MARKER: DIR/build/site.jar, whose config section's constructor records who ran it
site_jar() {
  local d=$1 marker=$2 javac jarbin
  javac=$(command -v javac) || { miss "javac is not installed"; return 1; }
  jarbin=$(command -v jar) || { miss "jar is not installed"; return 1; }
  mkdir -p "$d/build/src/site" "$d/build/classes/META-INF/services"
  cat >"$d/build/src/site/Payload.java" <<EOF
package site;
public final class Payload implements dev.nhc.engine.config.ConfigSection {
    public Payload() {
        try {
            java.nio.file.Files.writeString(java.nio.file.Path.of("$marker"), System.getProperty("user.name") + "\n");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
    public String key() { return "site_payload"; }
    public String description() { return "a user's code"; }
    public java.util.List<dev.nhc.probe.ParamSpec<?>> params() { return java.util.List.of(); }
}
EOF
  echo site.Payload >"$d/build/classes/META-INF/services/dev.nhc.engine.config.ConfigSection"
  "$javac" --release 17 -cp "$app/lib/*" -d "$d/build/classes" "$d/build/src/site/Payload.java" >"$d/build/javac.log" 2>&1 \
    && "$jarbin" cf "$d/build/site.jar" -C "$d/build/classes" . \
    || { miss "cannot build the site jar ($(head -c 200 "$d/build/javac.log"))"; return 1; }
  chmod 0644 "$d/build/site.jar"
}
trust_config_ok() {
  cat >"$1/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $1/state }
checks:
  - { name: ok, use: command, with: { command: [/bin/true] } }
EOF
}
# jar_verdict DIR NAME MARKER: the run went on (exit 0), said which jar it left out, and the jar's code never ran
jar_verdict() {
  local d=$1 n=$2 marker=$3
  expect_clean "$d" "$n"
  [ "$RC" = 0 ] && note "run exit 0 (the checks ran without the jar)" || miss "run: exit $RC ($(head -c 200 "$d/$n.err" | tr '\n' ' '))"
  has "$d/$n.err" "site jar left out: .*(owned by uid $TRUST_USER|writable by every user)" \
    && note "\"$(snip "$d/$n.err" 'site jar left out: .{0,140}')…\"" || miss "no warning naming the jar left out: $(head -c 300 "$d/$n.err")"
  no_marker "$marker" "the jar's code"
}

row_trust_jar_lib_ext() {
  local d=$T/trust-libext marker=$T/trust-libext/ran; mkdir -p "$d/app/bin" "$d/app/lib"
  site_jar "$d" "$marker" || return 1
  # A copy of the installation whose lib/ext a user can write (the suite's APP_DIR stays untouched).
  cp "$app"/bin/* "$d/app/bin/"
  local f; for f in "$app"/lib/*; do [ "$(basename "$f")" = ext ] || ln -s "$f" "$d/app/lib/"; done
  user_dir "$d/app/lib/ext"
  as_user cp "$d/build/site.jar" "$d/app/lib/ext/site.jar"
  trust_config_ok "$d"
  local nhc=$d/app/bin/nhc
  nhc_run "$d" run run -c "$d/nhc.yaml"
  note "lib/ext owned by uid $TRUST_USER, site.jar written by them"
  jar_verdict "$d" run "$marker"
}

row_trust_jar_etc_ext() {
  local d=$T/trust-etcext marker=$T/trust-etcext/ran made=; mkdir -p "$d/etc-nhc/ext"
  site_jar "$d" "$marker" || return 1
  chmod 0777 "$d/etc-nhc/ext"   # a site that let anyone drop jars in
  as_user cp "$d/build/site.jar" "$d/etc-nhc/ext/site.jar"
  trust_config_ok "$d"
  if [ ! -d /etc/nhc ]; then mkdir -m 0755 /etc/nhc && made=yes; fi
  # /etc/nhc is this directory for the one nhc process only.
  cat >"$d/nhc-ns" <<EOF
#!/bin/sh
exec unshare -m sh -c 'mount --bind "\$0" /etc/nhc && exec "\$@"' "$d/etc-nhc" "$nhc" "\$@"
EOF
  chmod 0755 "$d/nhc-ns"
  local nhc=$d/nhc-ns
  nhc_run "$d" run run -c "$d/nhc.yaml"
  [ -n "$made" ] && rmdir /etc/nhc
  note "/etc/nhc/ext mode 777 (in a mount namespace), site.jar written by uid $TRUST_USER"
  jar_verdict "$d" run "$marker"
}

# ---- the NVML library ------------------------------------------------------------------------------
# user_library DIR MARKER: DIR/user/libnvidia-ml.so.1, the user's, whose constructor records who loaded it
user_library() {
  local d=$1 marker=$2
  command -v gcc >/dev/null || { miss "gcc is not installed"; return 1; }
  user_dir "$d/user"
  cat >"$d/payload.c" <<EOF
#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void payload(void) {
    FILE *f = fopen("$marker", "w");
    if (f) { fprintf(f, "uid %d\n", (int) getuid()); fclose(f); }
}
EOF
  gcc -shared -fPIC -o "$d/payload.so" "$d/payload.c" 2>"$d/gcc.log" || { miss "cannot build the library ($(head -c 200 "$d/gcc.log"))"; return 1; }
  chmod 0755 "$d/payload.so"
  as_user cp "$d/payload.so" "$d/user/libnvidia-ml.so.1"
}

row_trust_nvml_setting() {
  local d=$T/trust-nvml marker=$T/trust-nvml/ran; mkdir -p "$d"
  user_library "$d" "$marker" || return 1
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $d/state, nvml_library: $d/user/libnvidia-ml.so.1 }
checks:
  - { name: gpus, use: gpu.inventory }
EOF
  refused_at "$d" nvml "2:[0-9]+" "'nvml_library' in settings: refusing to load $d/user/libnvidia-ml.so.1 as root: directory $d/user is owned by uid $TRUST_USER"
  no_marker "$marker" "the library's constructor"
}

row_trust_nvml_option() {
  local d=$T/trust-nvml-opt marker=$T/trust-nvml-opt/ran; mkdir -p "$d"
  user_library "$d" "$marker" || return 1
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $d/state }
checks:
  - { name: gpus, use: gpu.inventory }
EOF
  nhc_run "$d" run run --nvml-library "$d/user/libnvidia-ml.so.1" -c "$d/nhc.yaml"
  expect_clean "$d" run
  if [ "$RC" = 2 ] && has "$d/run.err" "--nvml-library: refusing to load $d/user/libnvidia-ml.so.1 as root: directory $d/user is owned by uid $TRUST_USER"; then
    note "run --nvml-library: exit 2, \"$(snip "$d/run.err" 'nhc: --nvml-library: .{0,140}')…\""
  else
    miss "run --nvml-library: exit $RC, not 2 with the refusal ($(head -c 300 "$d/run.out" "$d/run.err" | tr '\n' ' '))"
  fi
  no_marker "$marker" "the library's constructor"
}

# ---- scontrol ----------------------------------------------------------------------------------------
# user_scontrol DIR MARKER: DIR/user-bin/scontrol (and sinfo), the user's, answering like Slurm
user_scontrol() {
  local d=$1 marker=$2
  user_dir "$d/user-bin"
  { payload_sh "$marker" | head -n 2
    printf 'case "$1" in show) echo "NodeName=fault-node Arch=x86_64 State=IDLE ThreadsPerCore=1 Reason=(null)";; esac\nexit 0\n'
  } >"$d/scontrol.src"
  as_user cp "$d/scontrol.src" "$d/user-bin/scontrol"
  as_user cp "$d/scontrol.src" "$d/user-bin/sinfo"
  as_user chmod 0755 "$d/user-bin/scontrol" "$d/user-bin/sinfo"
}
trust_slurm_config() {
  cat >"$1/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $1/state }
slurm: { resume_after: 1$2 }
checks:
  - { name: broken, use: command, with: { command: [/bin/false] } }
EOF
}

row_trust_scontrol_search() {
  local d=$T/trust-scontrol marker=$T/trust-scontrol/ran; mkdir -p "$d"
  user_scontrol "$d" "$marker"
  trust_slurm_config "$d" ""
  # The search's second place, /usr/local/bin, writable by a user (as where /usr/local is group staff's), and no
  # scontrol in /usr/bin: for the one nhc process only.
  cat >"$d/nhc-ns" <<EOF
#!/bin/sh
exec unshare -m sh -c '
  mount --bind "\$0" /usr/local/bin || exit 3
  for t in scontrol sinfo; do [ -e /usr/bin/\$t ] && { mount --bind /dev/null /usr/bin/\$t || exit 3; }; done
  exec "\$@"' "$d/user-bin" "$nhc" "\$@"
EOF
  chmod 0755 "$d/nhc-ns"
  local nhc=$d/nhc-ns
  PATH=/usr/sbin:/usr/bin:/sbin:/bin nhc_run "$d" run run --slurm --hostname fault-node -c "$d/nhc.yaml"
  expect_clean "$d" run
  note "a failing check asks Slurm for a drain: exit $RC"
  [ "$RC" = 1 ] || miss "exit $RC, not 1"
  if has "$d/run.out" "refusing to run /usr/local/bin/scontrol as root: directory /usr/local/bin is owned by uid $TRUST_USER"; then
    note "\"$(snip "$d/run.out" 'refusing to run .{0,150}')…\""
  else
    miss "the report does not say why Slurm could not be told: $(grep -i slurm "$d/run.out" | head -n 2 | tr '\n' ' ' | cut -c1-300)"
  fi
  no_marker "$marker" "the user's scontrol"
}

row_trust_scontrol_config() {
  local d=$T/trust-scontrol-cfg marker=$T/trust-scontrol-cfg/ran; mkdir -p "$d"
  user_scontrol "$d" "$marker"
  trust_slurm_config "$d" ", scontrol: $d/user-bin/scontrol"
  refused_at "$d" scontrol "3:[0-9]+" "'scontrol' in slurm: refusing to run $d/user-bin/scontrol as root: directory $d/user-bin is owned by uid $TRUST_USER"
  nhc_run "$d" slurm run --slurm --hostname fault-node -c "$d/nhc.yaml"
  [ "$RC" = 2 ] && note "run --slurm exit 2" || miss "run --slurm: exit $RC, not 2"
  no_marker "$marker" "the user's scontrol"
}

# ---- code strings ----------------------------------------------------------------------------------
row_trust_sh_c() {
  local d=$T/trust-sh marker=$T/trust-sh/ran; mkdir -p "$d"
  user_dir "$d/home"
  payload_sh "$marker" >"$d/check.src"
  as_user cp "$d/check.src" "$d/home/check.sh"; as_user chmod 0755 "$d/home/check.sh"
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $d/state }
checks:
  - { name: site, use: command, with: { command: [/bin/sh, -c, "exec $d/home/check.sh"] } }
EOF
  refused_at "$d" sh "4:[0-9]+" "refusing to run /bin/sh as root: directory $d/home is owned by uid $TRUST_USER"
  no_marker "$marker" "the user's check.sh"
}

row_trust_python_c() {
  local d=$T/trust-py marker=$T/trust-py/ran; mkdir -p "$d"
  user_dir "$d/home"
  printf 'import getpass\nopen("%s", "w").write(getpass.getuser())\n' "$marker" >"$d/c.src"
  as_user cp "$d/c.src" "$d/home/c.py"
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $d/state }
checks:
  - { name: site, use: command, with: { command: [python3, -c, "exec(open('$d/home/c.py').read())"] } }
EOF
  refused_at "$d" py "4:[0-9]+" "refusing to run python3 as root: directory $d/home is owned by uid $TRUST_USER"
  no_marker "$marker" "the user's c.py"
}

# ---- log_file ----------------------------------------------------------------------------------------
row_trust_log_hardlink() {
  local d=$T/trust-log; mkdir -p "$d/sticky"
  chmod 1777 "$d/sticky"   # like /tmp
  fake_shadow "$d/shadow"
  local sum; sum=$(sha256sum <"$d/shadow")
  # The user links the log file's name to root's file: possible where fs.protected_hardlinks is 0
  # (set so for this one command when /proc/sys allows it, else the link is made as root).
  local ph; ph=$(cat /proc/sys/fs/protected_hardlinks 2>/dev/null)
  if [ -n "$ph" ] && echo 0 2>/dev/null >/proc/sys/fs/protected_hardlinks; then
    as_user ln "$d/shadow" "$d/sticky/nhc.log"
    echo "$ph" >/proc/sys/fs/protected_hardlinks
    note "uid $TRUST_USER hard-linked sticky/nhc.log to root's 0600 file (fs.protected_hardlinks 0 for that ln)"
  else
    ln "$d/shadow" "$d/sticky/nhc.log"
    note "sticky/nhc.log hard-linked to root's 0600 file (made as root: /proc/sys is read-only here)"
  fi
  # A run that logs: a failing check whose drain cannot reach Slurm is a warning.
  cat >"$d/nhc.yaml" <<EOF
nhc: 1
settings: { state_dir: $d/state, log_file: $d/sticky/nhc.log }
slurm: { scontrol: $d/no-such/scontrol, retries: 0 }
checks:
  - { name: broken, use: command, with: { command: [/bin/false] } }
EOF
  refused_at "$d" sticky "2:[0-9]+" "'log_file' in settings: refusing to write to $d/sticky/nhc.log as root: directory $d/sticky is writable by every user" \
    --slurm --hostname fault-node
  # The same link where only root can create names: the link itself is refused.
  mkdir -p "$d/rootonly"; ln "$d/shadow" "$d/rootonly/nhc.log"
  sed -i "s#$d/sticky/nhc.log#$d/rootonly/nhc.log#" "$d/nhc.yaml"
  refused_at "$d" rootonly "2:[0-9]+" "'log_file' in settings: refusing to write to $d/rootonly/nhc.log as root: .* has 3 links" \
    --slurm --hostname fault-node
  [ "$(sha256sum <"$d/shadow")" = "$sum" ] && note "root's file unchanged (sha256)" || miss "root's file was written through the hard link"
}

row "site jar in lib/ext that a user can write" row_trust_jar_lib_ext
row "site jar in /etc/nhc/ext that a user can write" row_trust_jar_etc_ext
row "settings.nvml_library: a user's .so (constructor writes a marker)" row_trust_nvml_setting
row "--nvml-library: a user's .so (constructor writes a marker)" row_trust_nvml_option
row "scontrol found by search in a directory a user can write" row_trust_scontrol_search
row "slurm.scontrol configured in a user's directory" row_trust_scontrol_config
row "command [sh, -c, \"exec ~user's check.sh\"]" row_trust_sh_c
row "command [python3, -c, \"exec(open(user's file))\"]" row_trust_python_c
row "log_file a hard link to a root-only file (sticky and root-only directories)" row_trust_log_hardlink
