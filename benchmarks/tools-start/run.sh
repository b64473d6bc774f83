#!/usr/bin/env bash
# What the C-hot-path tools add to MPI_Init and to a rank's memory, as `jpmpi run --tools` lists
# them: java-level/startup.c (MPI_Init's wall time, the resident set after it and after HOT more
# MPI_Comm_rank calls) with the dispatcher alone ("none"), `accounting`, `profile` (the recorder
# alone: no JVM in the ranks; call sites kept, as by default), `profile-nosites` (the same with
# JPMPI_PROFILE_SITES=off) and `profile-java` (the recorder over jpmpi-profile.jar, as a by-hand
# entry list may still have it), alternated RUNS times, RANKS ranks each.
#   benchmarks/tools-start/run.sh [openmpi|mpich] [RUNS] [RANKS]     (default: openmpi 11 2)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=${1:-openmpi}
runs=${2:-11}
ranks=${3:-2}
hot=${HOT:-2000000}
case "$impl" in openmpi | mpich) ;; *) echo "usage: $0 [openmpi|mpich] [RUNS] [RANKS]" >&2; exit 2 ;; esac
source "$root/benchmarks/common.sh"
b="$here/target/$impl"
mkdir -p "$b"
"$cc" -std=gnu11 -O2 -Wall -Wextra -Werror -o "$b/startup" "$root/benchmarks/java-level/startup.c"
out=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$out" "$work"' EXIT
for ((i = 1; i <= runs; i++)); do
    cmd=("$b/startup" none "$hot"); launch_np "$ranks" "LD_PRELOAD=$lib" >>"$out"
    cmd=("$b/startup" accounting "$hot")
    launch_np "$ranks" "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$accounting_lib" "JPMPI_ACCOUNTING_FILE=$work/acct.jsonl" >>"$out"
    rm -rf "$work/p"
    cmd=("$b/startup" profile "$hot"); launch_np "$ranks" "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$recorder" "JPMPI_OUTPUT_DIR=$work/p" >>"$out"
    rm -rf "$work/p"
    cmd=("$b/startup" profile-nosites "$hot")
    launch_np "$ranks" "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$recorder" "JPMPI_OUTPUT_DIR=$work/p" "JPMPI_PROFILE_SITES=off" >>"$out"
    rm -rf "$work/p"
    cmd=("$b/startup" profile-java "$hot")
    launch_np "$ranks" "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$recorder,$profile_jar" "JAVA_HOME=$JAVA_HOME" "JPMPI_OUTPUT_DIR=$work/p" >>"$out"
done
echo "MPI_Init and resident set per rank: $impl, $ranks ranks, $runs runs, $(nproc) cpus; median over every rank of every run [min .. max]"
awk -f "$root/benchmarks/median.awk" -f /dev/stdin "$out" <<'AWK'
$1 == "startup" {
    split($3, a, "="); split($4, r, "="); split($7, h, "=")
    ms[$2] = ms[$2] " " a[2]; kb[$2] = kb[$2] " " r[2]; hot[$2] = hot[$2] " " h[2]
}
END {
    base_ms = sorted_median(ms["none"], x); base_kb = sorted_median(kb["none"], x); base_hot = sorted_median(hot["none"], x)
    split("none accounting profile profile-nosites profile-java", order, " ")
    for (i = 1; i <= 5; i++) {
        c = order[i]; if (!(c in ms)) continue
        m = sorted_median(ms[c], a); n = split(ms[c], raw, " ")
        k = sorted_median(kb[c], b); nb = split(kb[c], raw, " ")
        hk = sorted_median(hot[c], d)
        printf "  %-15s MPI_Init %7.1f ms [%.1f .. %.1f] (%+.1f ms)   rss %6.1f MB [%.1f .. %.1f] (%+.1f MB)   after the calls %+.1f MB\n", \
            c, m, a[1], a[n], m - base_ms, k / 1024, b[1] / 1024, b[nb] / 1024, (k - base_kb) / 1024, (hk - base_hot) / 1024
    }
}
AWK
