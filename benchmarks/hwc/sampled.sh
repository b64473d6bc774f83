#!/usr/bin/env bash
# The hwc tool's sampled mode on hwcloop (ITERS rounds of N loop iterations between MPI calls),
# 2 ranks, C level alone, side by side in one sequence of runs (alternating the configurations):
#   benchmarks/hwc/sampled.sh [openmpi|mpich] [RUNS] [ITERS] [N]     (default openmpi 5 20 5000000)
# Configurations: calls (counters read around every call), sampled at 30 (the default), 1000 and
# 10000 overflows per second. Per run and rank it takes the program's own CPU time in its loop
# (hwcloop's "times": CLOCK_THREAD_CPUTIME_ID) and the tool's application task-clock and samples.
# Prints, per configuration, the medians over runs of:
#   own_app_s     the loop's CPU time as the program measured it (sum over ranks)
#   tool_app_s    the tool's application task-clock (sum over ranks)
#   err_%         tool_app_s against own_app_s
#   vs_calls_%    tool_app_s against the calls configuration's of the same run
#   samples       samples taken (sum over ranks)
#   ci95_%        the 95 % half-width of tool_app_s from the samples, in % of it (1.96 sqrt(p(1-p)/n)/(1-p),
#                 p the share of samples in MPI): an err_% inside it is all the sampling can tell
#   us/sample     (own_app_s - own_app_s of calls) / samples taken in the application: what one
#                 sample adds to the program (signal, read(2), stack walk)
# and the cost per second of run at the default rate (30 x us/sample of the 10000 configuration).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=${1:-openmpi}
runs=${2:-5}
iters=${3:-20}
n=${4:-5000000}
source "$root/benchmarks/common.sh"
hwc_lib="$JPMPI_TREE/lib/$impl/libjpmpi-hwc.so"
prog="$root/test-support/target/test-native/$impl/hwcloop"
[ -x "$prog" ] || { echo "missing $prog (./mvnw install builds it)" >&2; exit 2; }
case "$impl" in
    openmpi) launch() { local args=(); for e in "$@"; do args+=(-x "$e"); done; mpirun.openmpi -np 2 "${args[@]}" "$prog" "$iters" "$n" times; } ;;
    mpich) launch() { local args=(); for e in "$@"; do args+=(-genv "${e%%=*}" "${e#*=}"); done; mpiexec.hydra -n 2 "${args[@]}" "$prog" "$iters" "$n" times; } ;;
    *) echo "usage: $0 [openmpi|mpich]" >&2; exit 2 ;;
esac
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((i = 1; i <= runs; i++)); do
    for c in calls sampled-30 sampled-1000 sampled-10000; do
        mode=${c%%-*}; rate=${c#*-}; [ "$mode" = calls ] && rate=30
        launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$hwc_lib" "JPMPI_HWC_EVENTS=software" "JPMPI_HWC_MODE=$mode" \
            "JPMPI_HWC_SAMPLING=$rate" 2>&1 | awk -v run="$i" -v c="$c" '
            /^hwcloop rank [0-9]/ { split($4, a, "="); own += a[2] }
            /^jpmpi hwc \(pid/ { for (f = 1; f <= NF; f++) { if ($f ~ /^app=/ && $(f-1) == "task-clock") { split($f, b, "="); app += b[2] / 1e9 }
                                                              if ($f == "samples,") { s2 += substr($(f-1), 2) + 0 }
                                                              if ($f == "in" && $(f+1) ~ /^MPI[),]$/) { inm += $(f-1) + 0 } } }
            END { printf "%s %d %.6f %.6f %d %d\n", c, run, own, app, s2, inm }' >>"$out"
    done
done
echo "hwc sampled mode on hwcloop $iters x $n, $impl, 2 ranks, $runs runs alternating; $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
awk -f "$root/benchmarks/median.awk" -f /dev/stdin "$out" <<'AWK'
{ own[$1] = own[$1] " " $3; app[$1] = app[$1] " " $4; smp[$1] = smp[$1] " " $5
  ownrun[$1, $2] = $3; apprun[$1, $2] = $4; srun[$1, $2] = $5; irun[$1, $2] = $6; runs[$2] = 1; conf[$1] = 1 }
END {
    printf "%-14s %10s %10s %7s %7s %10s %8s %10s\n", "config", "own_app_s", "tool_app_s", "err_%", "ci95_%", "vs_calls_%", "samples", "us/sample"
    for (c in conf) {
        e = ""; v = ""; u = ""; ci = ""
        for (r in runs) {
            e = e " " 100 * (apprun[c, r] - ownrun[c, r]) / ownrun[c, r]
            v = v " " 100 * (apprun[c, r] - apprun["calls", r]) / apprun["calls", r]
            if (srun[c, r] > 0) { p = irun[c, r] / srun[c, r]; ci = ci " " 100 * 1.96 * sqrt(p * (1 - p) / srun[c, r]) / (1 - p) }
            appsamples = srun[c, r] - irun[c, r]
            if (appsamples > 0) u = u " " 1e6 * (ownrun[c, r] - ownrun["calls", r]) / appsamples
        }
        us = u == "" ? 0 : sorted_median(u, x)
        if (c == "sampled-10000") per = us
        printf "%-14s %10.4f %10.4f %+7.2f %7s %+10.2f %8d %10.2f\n", c, sorted_median(own[c], a), sorted_median(app[c], b),
            sorted_median(e, d), ci == "" ? "-" : sprintf("%.2f", sorted_median(ci, h)), sorted_median(v, f), sorted_median(smp[c], g), us
    }
    printf "cost per second of run at the default 30 per second: %.3f ms = %.4f %% of a core (from sampled-10000's us/sample)\n", per * 30 / 1000, per * 30 / 1e4
}
AWK
