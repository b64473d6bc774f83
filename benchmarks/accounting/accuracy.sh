#!/usr/bin/env bash
# How close the accounting tool's sampled MPI % and per-function seconds come to what the program
# measured around its own calls (test-support's acctsplit.c: random-length MPI_Allreduce rounds, a
# barrier every fourth where rank 1 waits for rank 0; each rank prints its split). One job per run,
# the tool alone (sampled, no recorder), JPMPI_ACCOUNTING_SAMPLING samples a second.
#   benchmarks/accounting/accuracy.sh [openmpi|mpich] [RANKS] [RUNS] [SECONDS] [RATE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=${1:-openmpi}
ranks=${2:-2}
runs=${3:-5}
seconds=${4:-3}
rate=${5:-1000}
source "$root/scripts/lib.sh"
jpmpi_allow_root
JPMPI_QUIET_JDK=1 jpmpi_find_jdk
jpmpi_tree
exe="$root/test-support/target/test-native/$impl/acctsplit"
if [ ! -f "$exe" ]; then
    jpmpi_mvn -q install -DskipTests
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
env_tool=("LD_PRELOAD=$JPMPI_TREE/lib/$impl/libmpiprofilesupport.so"
          "JPMPI_TOOLS_ENTRY=$JPMPI_TREE/lib/$impl/libjpmpi-accounting.so"
          "JPMPI_ACCOUNTING_SAMPLING=$rate")
case "$impl" in
    openmpi) launch() { local args=(); for e in "$@"; do args+=(-x "$e"); done
                        mpirun.openmpi --oversubscribe -np "$ranks" "${args[@]}" "$exe" "$seconds"; } ;;
    mpich) launch() { local args=(); for e in "$@"; do args+=(-genv "${e%%=*}" "${e#*=}"); done
                      mpiexec.hydra -n "$ranks" "${args[@]}" "$exe" "$seconds"; } ;;
    *) echo "usage: $0 [openmpi|mpich] [RANKS] [RUNS] [SECONDS] [RATE]" >&2; exit 2 ;;
esac
echo "accounting accuracy: $impl, $ranks ranks, $runs jobs of $seconds s, $rate samples/s; $(nproc) cpus"
printf '%-4s %18s %26s %26s %8s\n' run "MPI % sampled/own" "MPI_Allreduce s sampled/own" "MPI_Barrier s sampled/own" samples
for ((i = 1; i <= runs; i++)); do
    : >"$work/records.jsonl"
    launch "${env_tool[@]}" "JPMPI_ACCOUNTING_FILE=$work/records.jsonl" >"$work/out.txt"
    rec=$(cat "$work/records.jsonl")
    pct=$(grep -o '"mpi_pct":[0-9.]*' <<<"$rec" | cut -d: -f2)
    samples=$(grep -o '"samples":[0-9]*' <<<"$rec" | cut -d: -f2)
    fn() { grep -o "\[\"$1\",[0-9.]*\]" <<<"$rec" | tr -d '[]"' | cut -d, -f2; }
    awk -v run="$i" -v pct="$pct" -v ar="$(fn MPI_Allreduce)" -v ba="$(fn MPI_Barrier)" -v samples="$samples" '
        /^split rank=/ { for (f = 3; f <= 6; f++) { split($f, kv, "="); sum[f] += kv[2] } }
        END { printf "%-4d %8.2f / %6.2f %12.3f / %8.3f %12.3f / %8.3f %8d\n", run, pct, 100 * sum[4] / sum[3],
                     ar + 0, sum[5] / 1e9, ba + 0, sum[6] / 1e9, samples }' "$work/out.txt"
done
