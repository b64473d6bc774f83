#!/usr/bin/env bash
# The CPU time of a rank's JVM threads (JIT compilers, VM thread, periodic tasks) over a run, next to
# the application's thread, 2 ranks each bound to one core as mpirun binds by default.
#   benchmarks/java-level/threads.sh [openmpi|mpich] [SECONDS] [RUNS]
# Configurations, alternated RUNS times: the dispatcher with no level ("none"), the no-op Java level
# ("java-noop"), jpmpi's profile tool ("profile": its Java level starts at MPI_Init). threads.c
# reads every thread's time on the CPU (/proc/self/task/*/schedstat) before MPI_Finalize.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=${1:-openmpi}
seconds=${2:-20}
runs=${3:-3}
source "$root/benchmarks/common.sh"
b="$here/target/$impl"
[ -f "$b/noop.jar" ] || { echo "run benchmarks/java-level/run.sh $impl once first (it builds noop.jar)" >&2; exit 2; }
case "$impl" in
    openmpi) cc=mpicc.openmpi
        launch() { local args=(); for e in "$@"; do args+=(-x "$e"); done; mpirun.openmpi -np 2 --bind-to core "${args[@]}" "${cmd[@]}"; } ;;
    mpich) cc=mpicc.mpich
        launch() { local args=(); for e in "$@"; do args+=(-genv "${e%%=*}" "${e#*=}"); done; mpiexec.hydra -n 2 -bind-to core "${args[@]}" "${cmd[@]}"; } ;;
    *) echo "usage: $0 [openmpi|mpich] [SECONDS] [RUNS]" >&2; exit 2 ;;
esac
"$cc" -std=gnu11 -O2 -Wall -Wextra -Werror -o "$b/threads" "$here/threads.c"
out=$(mktemp)
profile_out=$(mktemp -d)
trap 'rm -rf "$out" "$profile_out"' EXIT
for ((i = 1; i <= runs; i++)); do
    cmd=("$b/threads" none "$seconds"); launch "LD_PRELOAD=$lib" >>"$out"
    cmd=("$b/threads" java-noop "$seconds"); launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$b/noop.jar" "JAVA_HOME=$JAVA_HOME" >>"$out"
    cmd=("$b/threads" profile "$seconds")
    launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$recorder,$profile_jar" "JAVA_HOME=$JAVA_HOME" \
        "JPMPI_OUTPUT_DIR=$profile_out" "JPMPI_PROFILE_QUIET=1" >>"$out"
done
echo "CPU time per rank over a ${seconds} s run: $impl, 2 ranks bound to cores, $runs runs; $(nproc) cpus"
echo "median over ranks and runs [min .. max], ms"
awk -f "$root/benchmarks/median.awk" -f /dev/stdin "$out" <<'AWK'
$1 == "threads" {
    split($5, a, "="); split($6, m, "="); split($7, j, "=")
    app[$2] = app[$2] " " a[2]; mpi[$2] = mpi[$2] " " m[2]; jvm[$2] = jvm[$2] " " j[2]; seen[$2] = 1
}
$1 == "thread" { name = $5; for (k = 6; k < NF; k++) name = name " " $k; t[$2 "|" name] = t[$2 "|" name] " " $NF }
END {
    n = split("none java-noop profile", order, " ")
    for (i = 1; i <= n; i++) {
        c = order[i]; if (!(c in seen)) continue
        printf "  %-10s app %8.1f   mpi %6.1f   jvm %6.1f [%s]\n", c, sorted_median(app[c], x), sorted_median(mpi[c], y), \
            sorted_median(jvm[c], z), range(jvm[c])
    }
    print "JVM threads (median ms per rank):"
    for (k in t) { split(k, p, "|"); printf "  %-10s %-16s %6.1f\n", p[1], p[2], sorted_median(t[k], w) | "sort" }
}
function range(text,    r, m) { m = split(text, r, " "); sorted_median(text, r); return sprintf("%.1f .. %.1f", r[1], r[m]) }
AWK
