#!/usr/bin/env bash
# Does a call through a Java level allocate? Young collections of the level's JVM over whole percall
# runs (benchmarks/dispatch/percall.c with noop.jar, the typed NoopLevel, as the only level), the heap
# fixed small (-Xms64m -Xmx64m -Xmn8m: a 7 MB eden), for few and for many calls: a byte per call
# would add a collection per 7 million calls through the level, 24 bytes (one record) one per
# ~290 000. Each line: calls per block, the calls through the level per function (percall's mpi
# and level0 variants, ROUNDS rounds), and the young collections with their times.
#   benchmarks/java-level/alloc.sh [openmpi|mpich] [ROUNDS] [CALLS-PER-BLOCK...]   (run.sh once first: noop.jar)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=${1:-openmpi}
rounds=${2:-21}
shift $(($# > 2 ? 2 : $#))
if (($#)); then blocks=("$@"); else blocks=(100000 4000000); fi
source "$root/benchmarks/common.sh"
jar="$here/target/$impl/noop.jar"
percall="$root/benchmarks/dispatch/target/$impl/percall"
if [[ ! -f "$jar" || ! -x "$percall" ]]; then
    echo "alloc.sh: $jar or $percall is missing; run benchmarks/java-level/run.sh $impl once first" >&2
    exit 2
fi
for calls in "${blocks[@]}"; do
    cmd=("$percall" java-noop-level "$calls" "$rounds")
    log=$(launch_np 1 "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$jar" "JAVA_HOME=$JAVA_HOME" \
        "JPMPI_JAVA_OPTIONS=-Xms64m -Xmx64m -Xmn8m -Xlog:gc:stderr" 2>&1 >/dev/null)
    young=$(grep 'Pause Young' <<<"$log" | sed -E 's/^\[([0-9.]+s)\].*Pause Young[^)]*\) /at \1: /' | paste -sd ';' || true)
    printf '%s: %d calls/block, %d calls through the level per function: %d young collections%s\n' "$impl" \
        "$calls" $((2 * rounds * calls)) "$(grep -c 'Pause Young' <<<"$log" || true)" "${young:+ ($young)}"
done
