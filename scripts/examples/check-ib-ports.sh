#!/bin/sh
# nhc script example: InfiniBand port state and rate, per port, as nhc JSON findings.
#
#   - name: ib
#     use: script
#     with: { command: [/etc/nhc/scripts/check-ib-ports.sh, mlx5_0, "400"] }
#
# Arguments: [DEVICE] [MIN_RATE_GBPS]. Without DEVICE every HCA under /sys/class/infiniband is
# checked. A port must be "4: ACTIVE" and, when MIN_RATE_GBPS is given, run at least that rate
# ("400 Gb/sec (4X NDR)"). NHC_SYSROOT prefixes the sysfs path (for tests).
# Exit code follows the LBNL NHC convention too (0 all good, 1 a port is bad), so the script is
# also usable without the JSON.
set -u
sys="${NHC_SYSROOT:-}/sys/class/infiniband"
want_dev="${1:-}"
min_rate="${2:-0}"
bad=0
first=1

json_escape() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }

emit() { # entity severity message
  if [ $first -eq 1 ]; then printf '{"nhc_findings": ['; first=0; else printf ', '; fi
  printf '{"entity": "%s", "severity": "%s", "message": "%s"' "$(json_escape "$1")" "$2" "$(json_escape "$3")"
  [ "$2" = fail ] && printf ', "remedy": "hardware"'
  printf '}'
}

if [ ! -d "$sys" ]; then
  echo "no InfiniBand devices: $sys does not exist (is the HCA driver loaded?)"
  exit 1
fi
if [ -n "$want_dev" ] && [ ! -d "$sys/$want_dev" ]; then
  echo "InfiniBand device $want_dev not found under $sys"
  exit 1
fi

for dev in "$sys"/*; do
  [ -d "$dev" ] || continue
  name=${dev##*/}
  [ -n "$want_dev" ] && [ "$name" != "$want_dev" ] && continue
  for port in "$dev"/ports/*; do
    [ -d "$port" ] || continue
    p=${port##*/}
    state=$(cat "$port/state" 2>/dev/null || echo "unreadable")
    rate=$(cat "$port/rate" 2>/dev/null || echo "0")
    gbps=${rate%% *}
    gbps=${gbps%%.*}
    case "$gbps" in ''|*[!0-9]*) gbps=0 ;; esac
    if [ "${state#*: }" != "ACTIVE" ]; then
      emit "$name/$p" fail "$name port $p is ${state#*: } (expected ACTIVE)"; bad=1
    elif [ "$gbps" -lt "$min_rate" ]; then
      emit "$name/$p" fail "$name port $p runs at $rate, below $min_rate Gb/sec"; bad=1
    else
      emit "$name/$p" pass "$name port $p ACTIVE at $rate"
    fi
  done
done

if [ $first -eq 1 ]; then
  echo "no InfiniBand ports found under $sys${want_dev:+/$want_dev}"
  exit 1
fi
printf ']}\n'
exit $bad
