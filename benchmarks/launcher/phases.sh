#!/usr/bin/env bash
# Where `jpmpi run`'s fixed cost falls (issue 26): before the job, the job, after it.
#   benchmarks/launcher/phases.sh [openmpi|mpich] [RUNS] [PROGRAM]     (default: openmpi 15 empty.c; 2 ranks)
# Per round, rotated, each a fresh output directory: `jpmpi run --tools profile -o DIR --
# mpirun.openmpi -np 2 PROGRAM` (MPICH: mpiexec.hydra -n 2) of A (JPMPI_A or the development
# installation), of A with JPMPI_LAUNCHER_WARMUP=off ("A:off"), and of B (JPMPI_B, if given). The MPI's
# launcher is a script of its own first on a PATH of this run's that notes the time and runs the real
# one: before = from the
# command's start to mpirun's, job = mpirun's own time, after = from mpirun's end to the command's
# end (the merge and the reports). Medians [min .. max], wall ms; the wrapper's own start (a bash) is
# in "before" and is the same for every configuration. TOOLS=LIST runs `--tools LIST` instead of
# profile; a list without profile has no output directory and no A:off (the warm-up is profile's).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=openmpi
case "${1:-}" in openmpi | mpich) impl=$1; shift ;; esac
runs=${1:-15}
# shellcheck source=../common.sh
source "$root/benchmarks/common.sh"
b="$here/target/$impl"
mkdir -p "$b"
"$cc" -std=gnu11 -O2 -Wall -Wextra -Werror -o "$b/empty" "$here/empty.c"
program=${2:-$b/empty}
work=$(mktemp -d "${TMPDIR:-/tmp}/jpmpi-phases.XXXXXX")
trap 'rm -rf "$work"' EXIT
case "$impl" in
    openmpi) launcher=mpirun.openmpi; launch=(mpirun.openmpi -np 2) ;;
    mpich) launcher=mpiexec.hydra; launch=(mpiexec.hydra -n 2) ;;
esac
real=$(command -v "$launcher")
mkdir -p "$work/bin"
cat >"$work/bin/$launcher" <<EOF
#!/usr/bin/env bash
echo "start \$EPOCHREALTIME" >>"$work/marks"
"$real" "\$@"
rc=\$?
echo "end \$EPOCHREALTIME" >>"$work/marks"
exit \$rc
EOF
chmod +x "$work/bin/$launcher"
compare_trees
tools=${TOOLS:-profile}
configs=(A A:off)
if [[ ",$tools," != *,profile,* ]]; then
    configs=(A)
fi
[[ -z "${JPMPI_B:-}" ]] || configs+=(B)
n=${#configs[@]}
for ((r = 1; r <= runs; r++)); do
    for ((i = 0; i < n; i++)); do
        c=${configs[$(((i + r) % n))]}
        t=${c%%:*}
        env=()
        [[ "$c" != *:off ]] || env=(JPMPI_LAUNCHER_WARMUP=off)
        : >"$work/marks"
        start=$EPOCHREALTIME
        output=()
        [[ ",$tools," != *,profile,* ]] || output=(-o "$work/out-$r-$i")
        if ! env "${env[@]}" PATH="$work/bin:$PATH" "${jp[$t]}" run --tools "$tools" "${output[@]}" -- \
            "${launch[@]}" "$program" >"$work/out" 2>&1; then
            echo "$0: $c failed" >&2
            cat "$work/out" >&2
            exit 1
        fi
        end=$EPOCHREALTIME
        awk -v c="$c" -v s="$start" -v e="$end" '/^start/ { a = $2 } /^end/ { z = $2 }
            END { printf "%s %.1f %.1f %.1f\n", c, (a - s) * 1000, (z - a) * 1000, (e - z) * 1000 }' \
            "$work/marks" >>"$work/times.txt"
        rm -rf "$work/out-$r-$i"
    done
done
echo "jpmpi run --tools $tools, phases: $impl, 2 ranks, $runs rounds, $(basename "$program"); A = $tree_a${JPMPI_B:+, B = $JPMPI_B};" \
    "$(getconf _NPROCESSORS_ONLN) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v order="${configs[*]}" -f "$root/benchmarks/median.awk" -f /dev/stdin "$work/times.txt" <<'AWK'
{ before[$1] = before[$1] " " $2; job[$1] = job[$1] " " $3; after[$1] = after[$1] " " $4 }
END {
    printf "%-6s %-22s %-22s %-22s\n", "", "before ms", "job ms", "after ms"
    nc = split(order, conf, " ")
    for (i = 1; i <= nc; i++) {
        c = conf[i]; line = sprintf("%-6s", c)
        split(before[c] "|" job[c] "|" after[c], parts, "|")
        for (k = 1; k <= 3; k++) {
            m = sorted_median(parts[k], s)
            line = line sprintf(" %6.1f [%.0f .. %.0f]%*s", m, s[1], s[length(s)], 6, "")
        }
        print line
    }
}
AWK
