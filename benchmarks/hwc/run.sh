#!/usr/bin/env bash
# What one read of 2 hardware counters costs here, every way there is (see readcost.c).
#   benchmarks/hwc/run.sh [RUNS] [ROUNDS] [BLOCK-US]        (default 5 201 200)
# Builds readcost (with PAPI when papi.h is installed: Debian libpapi-dev), runs it RUNS times,
# prints each run's table and then, per variant, the median over runs of the in-process median
# ns per operation [min .. max over runs], and for hwc-call-* the same of "minus call".
# Needs the hwc level's generated header (./mvnw install, run here when it is missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${1:-5}
rounds=${2:-201}
block_us=${3:-200}
source "$root/scripts/lib.sh"
gen="$root/profilers/hwc/target/generated-sources/c/openmpi"
if [ ! -f "$gen/jpmpi_hwc_ids.h" ]; then
    JPMPI_QUIET_JDK=1 jpmpi_find_jdk
    jpmpi_mvn -q install -DskipTests
fi
cc=${JPMPI_OPENMPI_MPICC:-mpicc.openmpi}
papi=()
if echo '#include <papi.h>' | "$cc" -E -x c - >/dev/null 2>&1; then
    papi=(-lpapi)
fi
mkdir -p "$here/target"
"$cc" -std=gnu11 -O2 -Wall -Wextra -Werror -I"$root/profilers/hwc/src/main/c" -I"$gen" -o "$here/target/readcost" \
    "$here/readcost.c" "${papi[@]}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((i = 1; i <= runs; i++)); do
    "$here/target/readcost" "$rounds" "$block_us" | tee -a "$out"
    echo
done
echo "over $runs runs: median of the in-process medians [min .. max over runs]"
awk -f "$root/benchmarks/median.awk" -f /dev/stdin "$out" <<'AWK'
/^readcost:|^PAPI|^variant/ { next }
NF >= 9 {
    if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
    ns[$1] = ns[$1] " " $3
    if (NF >= 10) minus[$1] = minus[$1] " " ($10 + 0)
}
END {
    for (k = 1; k <= n; k++) {
        v = order[k]
        med = sorted_median(ns[v], a); m = split(ns[v], raw, " ")
        line = sprintf("%-18s %10.1f ns  [%.1f .. %.1f]", v, med, a[1], a[m])
        if (v in minus) {
            d = sorted_median(minus[v], b); m = split(minus[v], raw, " ")
            line = line sprintf("   minus call %+.1f ns [%+.1f .. %+.1f]", d, b[1], b[m])
        }
        print line
    }
}
AWK
