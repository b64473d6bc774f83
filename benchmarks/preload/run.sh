#!/usr/bin/env bash
# The one preload's cost (lib/libjpmpi-preload.so, native-stubs/README.md "One preload"): each case
# run ROUNDS times without and with it, alternated, in one run of this script.
#   benchmarks/preload/run.sh [openmpi|mpich] [ROUNDS]   (default openmpi 5)
# Cases:
#   true        /bin/true, 1000 times from a loop of bash (a non-MPI process, the preload inert)
#   script      one bash script of 1000 commands (/bin/true, echo, test, date, ...: 1000 processes)
#   linked      a program linked with libmpi that returns from main at once, 200 times: the
#               preload finds the MPI, executes the program again with the dispatcher (no tools)
#   mpi_init    the accounting tests' acct.c (2 ranks, 100 rounds) under the launcher: each rank's
#               MPI_Init time (in the program), with the preload and the site's accounting tool
#               (site.conf: tools = accounting), against no jpmpi at all; 10 jobs each way
# Prints per case the median time per process (or per MPI_Init) of each way and the difference.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=${1:-openmpi}
rounds=${2:-5}
source "$here/../common.sh"
preload="$JPMPI_TREE/lib/libjpmpi-preload.so"
[ -f "$preload" ] || { echo "no $preload: build the installation" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case "$impl" in
    openmpi) mpicc=mpicc.openmpi; launch() { mpirun.openmpi --oversubscribe -np 2 "$@"; } ;;
    mpich) mpicc=mpicc.mpich; launch() { mpiexec.hydra -n 2 "$@"; } ;;
    *) echo "usage: $0 [openmpi|mpich] [ROUNDS]" >&2; exit 2 ;;
esac
printf 'int main(void) { return 0; }\n' >"$work/linked.c"
$mpicc -Wl,--no-as-needed "$work/linked.c" -o "$work/linked"
{
    echo '#!/bin/bash'
    for ((i = 0; i < 200; i++)); do
        echo "/bin/true"; echo "/bin/echo $i >/dev/null"; echo "/usr/bin/test -d /"; echo "/bin/date +%s >/dev/null"
        echo "/bin/cat /dev/null"
    done
} >"$work/script.sh"
chmod +x "$work/script.sh"
acct="$root/test-support/target/test-native/$impl/acct"
printf 'tools = accounting\nset JPMPI_ACCOUNTING_FILE = %s/records.jsonl\n' "$work" >"$work/site.conf"

# seconds for CMD (wall), from bash's clock
seconds() { local s e; s=$EPOCHREALTIME; "$@"; e=$EPOCHREALTIME; echo "$e - $s" | bc -l; }
loop_true() { for ((i = 0; i < 1000; i++)); do /bin/true; done; }
loop_linked() { for ((i = 0; i < 200; i++)); do "$work/linked"; done; }
# a case: its name, the processes it starts, the command; alternates without/with the preload
measure() {
    local name=$1 n=$2; shift 2
    for ((r = 0; r < rounds; r++)); do
        echo "$name none $(seconds "$@")" >>"$work/times.txt"
        echo "$name preload $(LD_PRELOAD=$preload seconds "$@")" >>"$work/times.txt"
    done
    for way in none preload; do
        grep "^$name $way " "$work/times.txt" | awk -v n="$n" '{print $3 * 1e6 / n}' | sort -n \
            | awk -v w="$way" '{v[NR]=$1} END {printf "  %-8s %8.1f us per process (min %.1f, max %.1f)\n", w, v[int((NR+1)/2)], v[1], v[NR]}'
    done
}
echo "$impl, $rounds rounds alternated, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "true (1000 x /bin/true):"; measure true 1000 loop_true
echo "script (one bash script of 1000 commands):"; measure script 1000 "$work/script.sh"
echo "linked (a program linked with libmpi, main returns at once; 200 x):"; measure linked 200 loop_linked
if [ -x "$acct" ]; then
    for ((r = 0; r < 10; r++)); do
        launch "$acct" 100 | grep -o 'init_ms=[0-9.]*' | sed 's/^/none /' >>"$work/init.txt"
        if [ "$impl" = openmpi ]; then
            launch -x LD_PRELOAD="$preload" -x JPMPI_SITE_CONFIG="$work/site.conf" "$acct" 100
        else
            launch -genv LD_PRELOAD "$preload" -genv JPMPI_SITE_CONFIG "$work/site.conf" "$acct" 100
        fi | grep -o 'init_ms=[0-9.]*' | sed 's/^/preload /' >>"$work/init.txt"
    done
    echo "mpi_init (acct.c, 2 ranks, 10 jobs each way; with: the preload and the site's accounting tool):"
    for way in none preload; do
        grep "^$way " "$work/init.txt" | cut -d= -f2 | sort -n \
            | awk -v w="$way" '{v[NR]=$1} END {printf "  %-8s MPI_Init %6.2f ms median (min %.2f, max %.2f, %d ranks)\n", w, v[int((NR+1)/2)], v[1], v[NR], NR}'
    done
    echo "  records written: $(wc -l <"$work/records.jsonl" 2>/dev/null || echo 0)"
else
    echo "mpi_init: no $acct (./mvnw install builds test-support's programs)"
fi
