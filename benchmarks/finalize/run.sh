#!/usr/bin/env bash
# What MPI_Finalize costs the application as ranks grow: finalize.c's call-to-return time of
# MPI_Finalize on every rank (its maximum over ranks is what the job waits), with no tool, with
# `accounting`, with `profile` as `jpmpi run --tools profile` lists it (the recorder alone: every
# rank sends its figures to rank 0, which writes them; the launcher makes profile.json and the
# reports after the ranks exit) and with `profile-java` (the recorder over the profile's Java level,
# jpmpi-profile.jar, for a by-hand entry list: a JVM in every rank, rank 0 writes profile.json and
# renders the reports inside MPI_Finalize; only up to JAVA_MAX ranks, default 32), RUNS times each,
# oversubscribed on this machine. After each `profile` run, the launcher's part: `jpmpi report`
# merging the dumps into profile.json and both reports ("merge", its own wall time, not in the job).
#   benchmarks/finalize/run.sh [openmpi|mpich] [RUNS] [RANKS...]     (default: openmpi 3 2 8 32)
# CLUSTER=1: across the test cluster's hosts instead (scripts/cluster.sh up first): the launcher on
# jpn1 with the cluster's hostfile (mpirun --hostfile, mpiexec.hydra -f), the ranks spread over them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=${1:-openmpi}
runs=${2:-3}
shift $(($# > 2 ? 2 : $#))
sizes=("$@")
((${#sizes[@]})) || sizes=(2 8 32)
case "$impl" in openmpi | mpich) ;; *) echo "usage: $0 [openmpi|mpich] [RUNS] [RANKS...]" >&2; exit 2 ;; esac
source "$root/benchmarks/common.sh"
if [[ -n ${CLUSTER:-} ]]; then
    hostfile=$("$root/scripts/cluster.sh" hostfile "$impl")
    case "$impl" in
        openmpi) launch_np() { local n=$1; shift; local args=(); for e in "$@"; do args+=(-x "$e"); done
            "$root/scripts/cluster.sh" run jpn1 mpirun --oversubscribe --hostfile "$hostfile" -np "$n" "${args[@]}" \
                "${cmd[@]}"; } ;;
        mpich) launch_np() { local n=$1; shift; local args=(); for e in "$@"; do args+=(-genv "${e%%=*}" "${e#*=}"); done
            "$root/scripts/cluster.sh" run jpn1 mpiexec.hydra -f "$hostfile" -n "$n" "${args[@]}" "${cmd[@]}"; } ;;
    esac
fi
b="$here/target/$impl"
mkdir -p "$b"
"$cc" -std=gnu11 -O2 -Wall -Wextra -Werror -o "$b/finalize" "$here/finalize.c"
out=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$out" "$work"' EXIT
cmd=("$b/finalize" 100)
for ((i = 1; i <= runs; i++)); do
    for n in "${sizes[@]}"; do
        launch_np "$n" "LD_PRELOAD=$lib" | sed "s/^/none $n /" >>"$out"
        launch_np "$n" "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$accounting_lib" "JPMPI_ACCOUNTING_FILE=$work/acct.jsonl" \
            | sed "s/^/accounting $n /" >>"$out"
        rm -rf "$work/profile"
        launch_np "$n" "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$recorder" "JPMPI_OUTPUT_DIR=$work/profile" \
            | sed "s/^/profile $n /" >>"$out"
        t0=$(date +%s%N)
        "$JPMPI_TREE/bin/jpmpi" report "$work/profile" >/dev/null 2>"$work/report.err" || { cat "$work/report.err" >&2; exit 1; }
        t1=$(date +%s%N)
        [ -s "$work/profile/profile.json" ] || { echo "jpmpi report made no profile.json at $n ranks" >&2; exit 1; }
        echo "merge $n finalize rank 0 ms $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')" >>"$out"
        if ((n <= ${JAVA_MAX:-32})); then
            rm -rf "$work/profile"
            launch_np "$n" "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$recorder,$profile_jar" "JAVA_HOME=$JAVA_HOME" \
                "JPMPI_OUTPUT_DIR=$work/profile" | sed "s/^/profile-java $n /" >>"$out"
        fi
    done
done
echo "MPI_Finalize, call to return: $impl, $runs runs, ${CLUSTER:+across the test cluster hosts, }oversubscribed on $(nproc) cpus"
echo "per configuration and ranks: median over runs of the slowest rank [min .. max over runs], rank 0's median"
awk -f "$root/benchmarks/median.awk" -f /dev/stdin "$out" <<'AWK'
$3 == "finalize" {
    key = $1 " " $2; ms = $7 + 0
    # one line per rank: the slowest of a run is the max over its lines; runs are told apart by order
    count[key]++; r = int((count[key] - 1) / ($1 == "merge" ? 1 : $2))
    if (!((key, r) in worst) || ms > worst[key, r]) worst[key, r] = ms
    if ($5 == 0) zero[key] = zero[key] " " ms
    runs[key] = r + 1; seen[key] = 1
}
END {
    for (k in seen) {
        text = ""
        for (r = 0; r < runs[k]; r++) text = text " " worst[k, r]
        m = sorted_median(text, a); n = split(text, raw, " ")
        split(k, p, " ")
        printf "  %-10s %4d ranks  %9.1f ms [%.1f .. %.1f]   rank 0 %9.1f ms\n", p[1], p[2], m, a[1], a[n], sorted_median(zero[k], z) | "sort -k2,2n -k1,1"
    }
}
AWK
