#!/usr/bin/env bash
# What the accounting tool's sampling (the tool alone: a thread per rank that wakes RATE times a
# second of wall time, reads the rank's state, and signals it to walk its stack) costs a rank that
# only computes: sweep.c's sweeps per second with JPMPI_ACCOUNTING_SAMPLING at each of RATES,
# against the same tool at 0 (no sampling: the dispatcher and the level at MPI_Init and
# MPI_Finalize only) and against the job without jpmpi. The configurations are alternated, in an
# order rotated by one each run; a figure is the median over runs of (sweeps/s / the same run's
# rate 0 - 1), with its range, and the records' samples say that the rate was the one asked.
#   benchmarks/accounting/sampling.sh [openmpi|mpich] [RANKS] [RUNS] [SECONDS] [KB]
#   RATES="0 20 100 1000" (default "0 20 100")
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=${1:-openmpi}
ranks=${2:-2}
runs=${3:-10}
seconds=${4:-5}
kb=${5:-512}
read -r -a rates <<<"${RATES:-0 20 100}"
case "$impl" in
    openmpi|mpich) ;;
    *) echo "usage: $0 [openmpi|mpich] [RANKS] [RUNS] [SECONDS] [KB]" >&2; exit 2 ;;
esac
# the JDK, the development installation ($accounting_lib, $lib), launch_np and $cc
source "$root/benchmarks/common.sh"
[[ " ${rates[*]} " == *" 0 "* ]] || rates=(0 "${rates[@]}")
exe="$here/target/$impl/sweep"
mkdir -p "${exe%/*}"
"$cc" -std=gnu11 -O2 -Wall -Wextra -Werror -o "$exe" "$here/sweep.c"
cmd=("$exe" "$seconds" "$kb")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
configs=(plain)
for r in "${rates[@]}"; do configs+=("$r"); done
n=${#configs[@]}
echo "accounting sampling cost: $impl, $ranks ranks, $runs runs of $seconds s, ${kb} KB per rank; rates ${rates[*]};" \
    "$(getconf _NPROCESSORS_ONLN) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((run = 1; run <= runs; run++)); do
    for ((i = 0; i < n; i++)); do
        c=${configs[$(((i + run) % n))]}
        env_tool=()
        if [[ "$c" != plain ]]; then
            env_tool=("LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$accounting_lib"
                      "JPMPI_ACCOUNTING_SAMPLING=$c" "JPMPI_ACCOUNTING_FILE=$work/records-$c.jsonl")
        fi
        # (stderr kept aside, shown if the job fails)
        rate=$(launch_np "$ranks" "${env_tool[@]}" 2>"$work/stderr" | sed -n 's/^sweeps_per_s=\([0-9.]*\).*/\1/p')
        [[ -n "$rate" ]] || { echo "$0: run $run, $c: no sweeps_per_s line" >&2; cat "$work/stderr" >&2; exit 1; }
        echo "$run $c $rate" >>"$work/rates.txt"
    done
done
# Per configuration: the median of its sweeps/s, then pair by pair against rate 0 of the same run.
awk -v configs="${configs[*]}" -f "$root/benchmarks/median.awk" -f /dev/stdin "$work/rates.txt" <<'AWK'
{ v[$2, $1] = $3; runs[$1] = 1 }
END {
    nc = split(configs, cs, " ")
    printf "%-10s %14s %28s\n", "sampling", "sweeps/s", "against rate 0, pair by pair"
    for (c = 1; c <= nc; c++) {
        x = ""; d = ""
        for (r in runs) {
            if ((cs[c], r) in v) x = x " " v[cs[c], r]
            if ((cs[c], r) in v && ("0", r) in v) d = d " " 100 * (v[cs[c], r] / v["0", r] - 1)
        }
        med = sorted_median(x, xs)
        name = cs[c] == "plain" ? "no jpmpi" : cs[c] "/s"
        if (cs[c] == "0") { printf "%-10s %14.1f %28s\n", name, med, "(the base)"; continue }
        dmed = sorted_median(d, ds)
        printf "%-10s %14.1f %+10.2f %% [%+.2f .. %+.2f]\n", name, med, dmed, ds[1], ds[length(ds)]
    }
}
AWK
for r in "${rates[@]}"; do
    f="$work/records-$r.jsonl"
    [ -f "$f" ] || continue
    echo "rate $r: samples per record $(grep -o '"samples":[0-9]*' "$f" | cut -d: -f2 | sort -n | tr '\n' ' ')"
done
