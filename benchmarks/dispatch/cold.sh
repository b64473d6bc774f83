#!/usr/bin/env bash
# What a call costs through jpmpi when the application's own work between two MPI calls evicts the
# tool's code and data: cold.c's loop (HPCC MPIRandomAccess's: one update of a random word of a
# large table, then one MPI call), on one rank, plain and through jpmpi, the configurations
# interleaved round by round (per-call figures in a hot loop: run.sh; instructions: instructions.sh).
#   benchmarks/dispatch/cold.sh [openmpi|mpich] [ROUNDS] [CALLS] [MIWORDS] [iprobe|testany]
#   (defaults: openmpi 5 5000000 4 testany: a 32 MiB table, MPI_Testany polling one receive while a
#   send is pending, as hpcc's RandomAccess does)
# A step, not a slope: what a call executes costs the core the overlap of the next update's cache miss
# with this one, so a few more instructions can cost 20 ns here (benchmarks/README.md, "The eleventh
# session"); the loop's one update a call sits just under such a step. Measure an application's own
# loop (hpcc) before taking a change's figure here for what it does to one.
# Configurations (configs.sh): plain, dispatcher, noop-level (a level for iprobe only), accounting,
# profile, and profile-base with JPMPI_BENCH_BASE_RECORDER=DIR (DIR/IMPL/libjpmpi-profile.so). Each round runs
# each once (cold prints 5 passes; the round's figure is their median); the table gives per
# configuration the median over rounds of ns per iteration and that minus the same round's plain.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=${1:-openmpi}
rounds=${2:-5}
calls=${3:-5000000}
miwords=${4:-4}
what=${5:-testany}
case "$impl" in openmpi | mpich) ;; *) echo "usage: $0 [openmpi|mpich] [ROUNDS] [CALLS] [MIWORDS] [iprobe|testany]" >&2; exit 2 ;; esac
case "$what" in iprobe | testany) ;; *) echo "$0: iprobe or testany, not '$what'" >&2; exit 2 ;; esac
# shellcheck source=../common.sh
source "$root/benchmarks/common.sh"
# shellcheck source=configs.sh
source "$here/configs.sh"
make -s -C "$here" IMPL="$impl" >/dev/null
b="$here/target/$impl"
work=$(mktemp -d "${TMPDIR:-/tmp}/jpmpi-cold.XXXXXX")
trap 'rm -rf "$work"' EXIT
base=${JPMPI_BENCH_BASE_RECORDER:-}
configs=(plain dispatcher noop-level accounting profile)
[[ -z "$base" ]] || configs+=(profile-base)
cmd=("$b/cold" "$calls" "$miwords" "$what")
for ((r = 1; r <= rounds; r++)); do
    for c in "${configs[@]}"; do
        config_env "$c"
        line=$(launch_np 1 "${env[@]}" 2>"$work/err" | grep '^cold ') || { echo "$0: $c failed:" >&2; cat "$work/err" >&2; exit 1; }
        # the median of the pass figures (fields 3 .. NF-1)
        passes=$(tr ' ' '\n' <<<"$line" | grep -E '^[0-9.]+$' | sort -g)
        echo "$c $r $(sed -n "$(( ($(wc -l <<<"$passes") + 1) / 2 ))p" <<<"$passes")" >>"$work/times"
    done
done
echo "cold calls ($what, a ${miwords} Mi-word table), $impl, $rounds rounds x $calls iterations, one rank; $(date -u +%FT%TZ)," \
    "load $(cut -d' ' -f1-3 /proc/loadavg)"
[[ -z "$base" ]] || echo "base recorder: $base/$impl/libjpmpi-profile.so"
printf '%-14s %14s %12s  %s\n' configuration "ns/iteration" "vs plain" "[min .. max] over rounds"
awk -v order="${configs[*]}" -f "$root/benchmarks/median.awk" -f /dev/stdin "$work/times" <<'AWK'
{ t[$1 " " $2] = $3; rounds[$2] = 1 }
END {
    n = split(order, conf, " ")
    for (i = 1; i <= n; i++) {
        c = conf[i]; vals = ""; diffs = ""
        for (r in rounds) { vals = vals " " t[c " " r]; diffs = diffs " " (t[c " " r] - t["plain " r]) }
        m = sorted_median(vals, a)
        d = sorted_median(diffs, b)
        k = split(diffs, unused, " ")
        printf "%-14s %14.2f %+12.2f  [%+.2f .. %+.2f]\n", c, m, d, b[1], b[k]
    }
}
AWK
