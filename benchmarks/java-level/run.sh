#!/usr/bin/env bash
# What one no-op Java level costs: per call, at start-up (MPI_Init) and in memory.
#   benchmarks/java-level/run.sh [openmpi|mpich] [RUNS] [CALLS-PER-BLOCK] [ROUNDS]
# Per call: benchmarks/dispatch/percall.c with NoopLevel.jar as the only level; the figure is the
# in-process median of (MPI_Comm_rank through the Java level - the library's PMPI_Comm_rank), in
# blocks alternating within one process. Start-up and memory: startup.c, RUNS times each of three
# configurations in alternation - the dispatcher with no level ("none"), the no-op Java level
# with the JVM's defaults ("java-plain", JPMPI_JAVA_AOT=""), and with the AOT cache the build made
# ("java-aot") - reporting medians and the differences to "none", the resident set right after
# MPI_Init and again after HOT (default 2000000) more MPI_Comm_rank calls, when the JIT has compiled
# the level's path as it would in any real run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=${1:-openmpi}
runs=${2:-11}
calls=${3:-2000000}
rounds=${4:-21}
hot=${HOT:-2000000}   # MPI_Comm_rank calls after MPI_Init before the second resident-set reading
# shellcheck source=../common.sh
source "$root/benchmarks/common.sh"
rt="$JPMPI_TREE/share/jpmpi/java/runtime"
make -s -C "$root/benchmarks/dispatch" IMPL="$impl" >/dev/null
case "$impl" in
    openmpi) cc=mpicc.openmpi ;;
    mpich) cc=mpicc.mpich ;;
    *) echo "usage: $0 [openmpi|mpich]" >&2; exit 2 ;;
esac
b="$here/target/$impl"
mkdir -p "$b"
"$cc" -std=gnu11 -O2 -Wall -Wextra -Werror -o "$b/startup" "$here/startup.c"
build_noop_level "$JPMPI_TREE" "$b" >/dev/null
# The dispatcher finds the runtime and its AOT cache in the installation it belongs to.
java_env=("JAVA_HOME=$JAVA_HOME")
case "$impl" in
    openmpi) launch() { local args=(); for e in "$@"; do args+=(-x "$e"); done; mpirun.openmpi -np 1 "${args[@]}" "${cmd[@]}"; } ;;
    mpich) launch() { local args=(); for e in "$@"; do args+=(-genv "${e%%=*}" "${e#*=}"); done; mpiexec.hydra -n 1 "${args[@]}" "${cmd[@]}"; } ;;
esac
out=$(mktemp)
trap 'rm -f "$out"' EXIT
percall="$root/benchmarks/dispatch/target/$impl/percall"
for ((i = 1; i <= runs; i++)); do
    cmd=("$percall" "java-noop-level" "$calls" "$rounds")
    launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$b/noop.jar" "${java_env[@]}" >>"$out"
    cmd=("$b/startup" none "$hot"); launch "LD_PRELOAD=$lib" >>"$out"
    cmd=("$b/startup" java-plain "$hot"); launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$b/noop.jar" "JPMPI_JAVA_AOT=" "${java_env[@]}" >>"$out"
    cmd=("$b/startup" java-aot "$hot"); launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$b/noop.jar" "${java_env[@]}" >>"$out"
done
aot=$(ls "$rt"/jpmpi-jdk*.aot 2>/dev/null | head -1)
echo "jpmpi Java-level benchmark: $impl, $runs runs; JDK $JAVA_HOME; archive: ${aot:-none}; $(nproc) cpus"
awk '
function med(text,    arr, m, i, j, t) {
    m = split(text, arr, " ")
    for (i = 2; i <= m; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
    lo = arr[1]; hi = arr[m]
    return (m % 2) ? arr[(m + 1) / 2] : (arr[m / 2] + arr[m / 2 + 1]) / 2
}
$1 == "java-noop-level" && $3 != "bottom" { k = $1 " " $2 " " $3; d[k] = d[k] " " ($6 + 0); n[k] = n[k] " " ($4 + 0) }
$1 == "startup" {
    split($3, a, "="); split($4, r, "="); split($5, an, "="); split($6, fi, "="); split($7, hr, "=")
    ms[$2] = ms[$2] " " a[2]; kb[$2] = kb[$2] " " r[2]; anon[$2] = anon[$2] " " an[2]; file[$2] = file[$2] " " fi[2]
    hotkb[$2] = hotkb[$2] " " hr[2]
}
END {
    print "per call (one no-op Java level; in-process median of variant - bottom, [min .. max] over runs):"
    for (k in d) { x = med(d[k]); l = lo; h = hi; printf "  %-38s %+7.2f ns  [%+.2f .. %+.2f]  (%.2f ns/call)\n", k, x, l, h, med(n[k]) }
    base_ms = med(ms["none"]); base_kb = med(kb["none"]); base_anon = med(anon["none"]); base_file = med(file["none"])
    print "MPI_Init and resident set (median over runs, [min .. max]):"
    split("none java-plain java-aot", order, " ")
    for (i = 1; i <= 3; i++) {
        c = order[i]; x = med(ms[c]); l = lo; h = hi; y = med(kb[c]); yl = lo; yh = hi
        printf "  %-11s init %7.1f ms [%.1f .. %.1f]  (+%.1f ms)   rss %6.1f MB [%.1f .. %.1f]  (+%.1f MB:", c, x, l, h, x - base_ms, y / 1024, yl / 1024, yh / 1024, (y - base_kb) / 1024
        printf " +%.1f anonymous, +%.1f file-backed/shared)\n", (med(anon[c]) - base_anon) / 1024, (med(file[c]) - base_file) / 1024
    }
    base_hot = med(hotkb["none"])
    printf "resident set after %d more MPI_Comm_rank calls (the Java level compiled; median over runs, [min .. max]):\n", hotcalls
    for (i = 1; i <= 3; i++) {
        c = order[i]; y = med(hotkb[c]); yl = lo; yh = hi
        printf "  %-11s rss %6.1f MB [%.1f .. %.1f]  (+%.1f MB)\n", c, y / 1024, yl / 1024, yh / 1024, (y - base_hot) / 1024
    }
}' hotcalls="$hot" "$out"
# Part of the per-call figure on x86-64: the two MXCSR reads that keep the application's
# floating-point state across the level (layering/README.md, "Floating-point state").
"$root/benchmarks/dispatch/target/$impl/mxcsr" 10000000 11 | sed 's/^/this CPU: /'
