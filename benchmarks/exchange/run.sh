#!/usr/bin/env bash
# What the profile recorder adds to a halo exchange's calls between processes (exchange.c: MPI_Irecv,
# MPI_Isend, MPI_Waitall of one double with the neighbours, the fastest of 7 rounds of N):
#   benchmarks/exchange/run.sh [openmpi|mpich] [RUNS] [N] [RANKS]     (default: openmpi 11 100000 2)
# Each run is one job, plain and with the recorder as `jpmpi run --tools profile` lists it (A: the
# development installation, or JPMPI_A=DIR; with JPMPI_B=DIR that tree's recorder too, side by side),
# in an order rotated by one each run. The timing of two processes polling each other moves between
# jobs far more than within one (the cores they land on), so each configuration's figure is the
# median over RUNS jobs of each job's fastest round, with the range; a dispatch/ figure it is not.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=${1:-openmpi}
runs=${2:-11}
n=${3:-100000}
np=${4:-2}
case "$impl" in openmpi | mpich) ;; *) echo "usage: $0 [openmpi|mpich] [RUNS] [N] [RANKS]" >&2; exit 2 ;; esac
# shellcheck source=../common.sh
source "$root/benchmarks/common.sh"
compare_trees
b="$here/target/$impl"
mkdir -p "$b"
"$cc" -std=gnu11 -O2 -Wall -Wextra -Werror -o "$b/exchange" "$here/exchange.c"
out=$(mktemp -d "${TMPDIR:-/tmp}/jpmpi-exchange.XXXXXX")
trap 'rm -rf "$out"' EXIT
configs=(plain)
for t in "${trees[@]}"; do configs+=("$t:profile"); done
declare -A figures
cmd=("$b/exchange" "$n" 7)
for ((r = 0; r < runs; r++)); do
    for ((k = 0; k < ${#configs[@]}; k++)); do
        c=${configs[$(((k + r) % ${#configs[@]}))]}
        case "$c" in
            plain) f=$(launch_np "$np") ;;
            *) t=${c%%:*}; tree=$tree_a; [[ $t == B ]] && tree=$JPMPI_B
                f=$(launch_np "$np" "LD_PRELOAD=$tree/lib/$impl/libmpiprofilesupport.so" \
                    "JPMPI_TOOLS_ENTRY=$tree/lib/$impl/libjpmpi-profile.so" "JPMPI_OUTPUT_DIR=$out/$c-$r") ;;
        esac
        figures[$c]+="$f "
    done
done
echo "jpmpi exchange benchmark: $impl, $np ranks, $runs jobs x 7 rounds x $n exchanges; A = $tree_a${JPMPI_B:+, B = $JPMPI_B}; $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %12s  %-20s %s\n' "config" "ns/exchange" "[min .. max] of jobs" "vs plain"
# (awk -f twice: median.awk's function, then the program)
median() { awk -f "$root/benchmarks/median.awk" -f <(printf '%s\n' "$1") "${@:2}"; }
plain=$(median 'BEGIN { printf "%.1f", sorted_median(ARGV[1], a) }' "${figures[plain]}")
for c in "${configs[@]}"; do
    median 'BEGIN { m = sorted_median(ARGV[1], a); n = length(a)
        printf "%-12s %12.1f  [%.1f .. %.1f]  %+.1f ns\n", ARGV[2], m, a[1], a[n], m - ARGV[3] }' \
        "${figures[$c]}" "$c" "$plain"
done
