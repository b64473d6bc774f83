#!/usr/bin/env bash
# The accounting tool's cost per job: acct_ms of the records (its work at MPI_Finalize on rank 0),
# and per rank MPI_Init's time, the resident memory before MPI_Finalize and whether a JVM is
# loaded, next to the same job without jpmpi. The job is the tests' test-support/src/main/c/profilers/acct.c
# (ITERS rounds of a little computation, an MPI_Allreduce of 1000 doubles, an MPI_Bcast every
# tenth; each rank prints its MPI_Init time, VmRSS and whether libjvm.so is mapped).
#   benchmarks/accounting/run.sh [openmpi|mpich] [RANKS] [JOBS] [ITERS]
# ITERS 100 is a job of a few ms between MPI_Init and MPI_Finalize, 20000 one of 1-5 s.
# ENTRY=list replaces the tool's entry list (paths, as JPMPI_TOOLS_ENTRY takes them; a .jar item
# makes the script pass the Java runtime's variables too).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=${1:-openmpi}
ranks=${2:-2}
jobs=${3:-10}
iters=${4:-20000}
source "$root/scripts/lib.sh"
jpmpi_allow_root
JPMPI_QUIET_JDK=1 jpmpi_find_jdk
jpmpi_tree
lib="$JPMPI_TREE/lib/$impl/libmpiprofilesupport.so"
native="$JPMPI_TREE/lib/$impl"
entry=${ENTRY:-$native/libjpmpi-profile.so,$native/libjpmpi-accounting.so}
# The accounting tests' program (test-support builds it with the test programs).
exe="$root/test-support/target/test-native/$impl/acct"
if [ ! -f "$exe" ]; then
    jpmpi_mvn -q install -DskipTests
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case "$impl" in
    openmpi) launch() { local args=(); for e in "$@"; do args+=(-x "$e"); done
                        mpirun.openmpi --oversubscribe -np "$ranks" "${args[@]}" "$exe" "$iters"; } ;;
    mpich) launch() { local args=(); for e in "$@"; do args+=(-genv "${e%%=*}" "${e#*=}"); done
                      mpiexec.hydra -n "$ranks" "${args[@]}" "$exe" "$iters"; } ;;
    *) echo "usage: $0 [openmpi|mpich] [RANKS] [JOBS] [ITERS]" >&2; exit 2 ;;
esac
# (A profile tool in ENTRY writes into the work directory, which goes at the end.)
env_tool=("LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$entry" "JPMPI_ACCOUNTING_FILE=$work/records.jsonl"
          "JPMPI_PROFILE_QUIET=1")
if [[ "$entry" == *.jar* ]]; then
    JPMPI_QUIET_JDK=1 jpmpi_find_jdk
    env_tool+=("JAVA_HOME=$JAVA_HOME")
fi
cd "$work"
for ((i = 1; i <= jobs; i++)); do
    launch JPMPI_BENCH=1 | grep ' rank=' | sed 's/^/none /' >>"$work/ranks.txt"
    start=$(date +%s.%N)
    launch "${env_tool[@]}" | grep ' rank=' | sed 's/^/accounting /' >>"$work/ranks.txt"
    echo "$(date +%s.%N) - $start" | bc >>"$work/jobs.txt"
done
# Median, min and max of the values of key $2 (key=value) on the lines of configuration $1.
stat() {
    grep "^$1 " "$work/ranks.txt" | grep -o "$2=[0-9.]*" | cut -d= -f2 | sort -n \
        | awk '{v[NR]=$1} END {if (NR) printf "%s median %s (min %s, max %s, %d values)", "'"$2"'", v[int((NR+1)/2)], v[1], v[NR], NR}'
}
echo "$impl, $ranks ranks, $jobs jobs of acct $iters, entry $entry"
if [ -f "$work/records.jsonl" ]; then
    grep -o '"acct_ms":[0-9.]*' "$work/records.jsonl" | cut -d: -f2 | sort -n \
        | awk '{v[NR]=$1; printf "%s ", $1} END {printf "\nacct_ms median %s (min %s, max %s, %d records)\n", v[int((NR+1)/2)], v[1], v[NR], NR}'
    grep -o '"wall_s":[0-9.]*' "$work/records.jsonl" | cut -d: -f2 | sort -n \
        | awk '{v[NR]=$1} END {printf "wall_s median %s (min %s, max %s)\n", v[int((NR+1)/2)], v[1], v[NR]}'
else
    echo "no records (no accounting tool in the entry list)"
fi
sort -n "$work/jobs.txt" | awk '{v[NR]=$1} END {printf "job with the tool, launcher to exit: median %.2f s (min %.2f, max %.2f)\n", v[int((NR+1)/2)], v[1], v[NR]}'
for c in none accounting; do
    echo "$c: $(stat $c init_ms); $(stat $c rss_kb); $(stat $c jvm)"
done
