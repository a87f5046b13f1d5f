package dev.nhc.slurm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A stand-in slurmctld for unit tests: executables named scontrol and sinfo, written by the test,
 * that record their argv (one call per line, arguments separated by a unit separator) and answer
 * from, and update, one file per node ("STATE" on the first line, the reason on the second).
 * Files "down", "slow" and "update-fails" in its directory make it behave like a sick controller.
 */
final class FakeSlurm {
    private static final String SEP = "\u001f";
    final Path dir;
    final Path scontrol;
    final Path sinfo;

    FakeSlurm(Path dir) throws IOException {
        this.dir = dir;
        Files.createDirectories(dir.resolve("nodes"));
        Files.createDirectories(dir.resolve("partitions"));
        this.scontrol = dir.resolve("scontrol");
        this.sinfo = dir.resolve("sinfo");
        String d = dir.toString();
        write(scontrol, """
                #!/bin/sh
                D='%s'
                { printf 'scontrol'; for a in "$@"; do printf '\\037%%s' "$a"; done; printf '\\n'; } >> "$D/argv.log"
                printf '%%s\\n' "${SLURM_CONF:-}" > "$D/last-slurm-conf"
                if [ -e "$D/slow" ]; then sleep 30; fi
                if [ -e "$D/down" ]; then echo 'slurm_load_node error: Unable to contact slurm controller (connect failure)' >&2; exit 1; fi
                emit() {
                  st=$(sed -n 1p "$D/nodes/$1"); re=$(sed -n 2p "$D/nodes/$1")
                  line="NodeName=$1 Arch=x86_64 CoresPerSocket=2  CPUAlloc=0 CPUTot=2 State=$st ThreadsPerCore=1 Partitions=debug  CfgTRES=cpu=2"
                  if [ -n "$re" ]; then line="$line Reason=$re [root@2026-11-22T04:05:06]"; fi
                  printf '%%s\\n' "$line"
                }
                case "$1" in
                show)
                  if [ -n "$4" ]; then
                    [ -f "$D/nodes/$4" ] || { echo "Node $4 not found" >&2; exit 1; }
                    emit "$4"
                  else
                    for f in "$D"/nodes/*; do [ -f "$f" ] && emit "${f##*/}"; done
                  fi ;;
                update)
                  if [ -e "$D/update-fails" ]; then echo 'slurm_update error: Unable to contact slurm controller (connect failure)' >&2; exit 1; fi
                  node=${2#NodeName=}; shift 2
                  [ -f "$D/nodes/$node" ] || { echo "Invalid node name specified" >&2; exit 1; }
                  st=$(sed -n 1p "$D/nodes/$node"); re=$(sed -n 2p "$D/nodes/$node"); base=${st%%%%+*}
                  for a in "$@"; do
                    case "$a" in
                    State=DRAIN) st="$base+DRAIN" ;;
                    State=FAIL) st="$base+FAIL" ;;
                    State=RESUME) [ "$base" = DOWN ] && base=IDLE; st="$base"; re="" ;;
                    Reason=*) re=${a#Reason=} ;;
                    *) echo "unexpected argument $a" >&2; exit 1 ;;
                    esac
                  done
                  printf '%%s\\n%%s\\n' "$st" "$re" > "$D/nodes/$node" ;;
                reboot)
                  if [ -e "$D/update-fails" ]; then echo 'slurm_update error: Unable to contact slurm controller (connect failure)' >&2; exit 1; fi
                  [ "$2" = ASAP ] && [ "$3" = nextstate=DOWN ] || { echo "fake scontrol: reboot wants ASAP nextstate=DOWN, got $2 $3" >&2; exit 1; }
                  case "$4" in reason=*) re=${4#reason=} ;; *) echo "fake scontrol: no reason" >&2; exit 1 ;; esac
                  node=$5
                  [ -f "$D/nodes/$node" ] || { echo "Invalid node name specified" >&2; exit 1; }
                  st=$(sed -n 1p "$D/nodes/$node")
                  case "$st" in *+DRAIN*) ;; *) st="$st+DRAIN" ;; esac
                  printf '%%s\n%%s\n' "$st+REBOOT_REQUESTED" "$re" > "$D/nodes/$node" ;;
                *) echo "fake scontrol: unexpected $1" >&2; exit 1 ;;
                esac
                """.formatted(d));
        write(sinfo, """
                #!/bin/sh
                D='%s'
                { printf 'sinfo'; for a in "$@"; do printf '\\037%%s' "$a"; done; printf '\\n'; } >> "$D/argv.log"
                if [ -e "$D/down" ]; then echo 'slurm_load_partitions: Unable to contact slurm controller (connect failure)' >&2; exit 1; fi
                p=$4
                cat "$D/partitions/$p"
                """.formatted(d));
    }

    FakeSlurm node(String name, String state, String reason) throws IOException {
        Files.writeString(dir.resolve("nodes").resolve(name), state + "\n" + (reason == null ? "" : reason) + "\n");
        return this;
    }

    /**
     * What slurmctld does with a reboot nhc asked for (as Slurm 22.05 showed it): "issued" once the
     * node is idle (DOWN+DRAIN+REBOOT_ISSUED, " : reboot issued" appended to the reason), then
     * "complete" when slurmd registers on the new boot (DOWN, FAIL kept, " : reboot complete").
     */
    FakeSlurm rebootIssued(String node) throws IOException {
        String st = state(node);
        String flags = st.contains("+FAIL") ? "+DRAIN+FAIL" : "+DRAIN";
        return node(node, "DOWN" + flags + "+REBOOT_ISSUED", reason(node) + " : reboot issued");
    }

    FakeSlurm rebootComplete(String node) throws IOException {
        String st = state(node);
        return node(node, st.contains("+FAIL") ? "DOWN+FAIL" : "DOWN", reason(node) + " : reboot complete");
    }

    /** Only the calls that ask for a reboot. */
    List<List<String>> reboots() throws IOException {
        return calls().stream().filter(c -> c.size() > 1 && c.get(1).equals("reboot")).toList();
    }

    FakeSlurm partition(String name, String... nodes) throws IOException {
        Files.writeString(dir.resolve("partitions").resolve(name), String.join("\n", nodes) + "\n");
        return this;
    }

    String state(String node) throws IOException {
        return Files.readAllLines(dir.resolve("nodes").resolve(node)).get(0);
    }

    String reason(String node) throws IOException {
        List<String> lines = Files.readAllLines(dir.resolve("nodes").resolve(node));
        return lines.size() > 1 ? lines.get(1) : "";
    }

    /** Makes the controller unreachable (true) or back (false). */
    void down(boolean down) throws IOException {
        flag("down", down);
    }

    void slow(boolean slow) throws IOException {
        flag("slow", slow);
    }

    void updateFails(boolean fails) throws IOException {
        flag("update-fails", fails);
    }

    private void flag(String name, boolean on) throws IOException {
        if (on) {
            Files.writeString(dir.resolve(name), "");
        } else {
            Files.deleteIfExists(dir.resolve(name));
        }
    }

    /** Every call so far, each as its argv. */
    List<List<String>> calls() throws IOException {
        Path log = dir.resolve("argv.log");
        if (!Files.exists(log)) {
            return List.of();
        }
        List<List<String>> out = new ArrayList<>();
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            out.add(Arrays.asList(line.split(SEP, -1)));
        }
        return out;
    }

    /** Only the calls that change Slurm. */
    List<List<String>> updates() throws IOException {
        return calls().stream().filter(c -> c.size() > 1 && c.get(1).equals("update")).toList();
    }

    void forgetCalls() throws IOException {
        Files.deleteIfExists(dir.resolve("argv.log"));
    }

    String lastSlurmConf() throws IOException {
        return Files.readString(dir.resolve("last-slurm-conf")).strip();
    }

    private static void write(Path p, String text) throws IOException {
        Files.writeString(p, text);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
