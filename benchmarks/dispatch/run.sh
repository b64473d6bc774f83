#!/usr/bin/env bash
# Per-call overhead of jpmpi's dispatcher, side by side in one process per configuration.
#   benchmarks/dispatch/run.sh [openmpi|mpich] [RUNS] [CALLS-PER-BLOCK] [ROUNDS]
# Uses the development installation (dist/target/jpmpi-<version>/; built first if missing), runs every configuration RUNS
# times on one rank and prints the median, min and max over runs of each figure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=${1:-openmpi}
runs=${2:-5}
calls=${3:-2000000}
rounds=${4:-21}
source "$root/benchmarks/common.sh"
mpit_jar="$JPMPI_TREE/share/jpmpi/java/tools/jpmpi-mpit/jpmpi-mpit.jar"
hwc_lib="$JPMPI_TREE/lib/$impl/libjpmpi-hwc.so"
# Every call of the hwc tool reads the counters twice: microseconds on a VM, so fewer calls per block.
hwc_calls=$((calls / 100 > 1000 ? calls / 100 : 1000))
make -s -C "$here" IMPL="$impl" >/dev/null
b="$here/target/$impl"
case "$impl" in
    openmpi) launch() { local env=("$@"); local args=(); for e in "${env[@]}"; do args+=(-x "$e"); done; mpirun.openmpi -np 1 "${args[@]}" "${cmd[@]}"; } ;;
    mpich) launch() { local args=(); for e in "$@"; do args+=(-genv "${e%%=*}" "${e#*=}"); done; mpiexec.hydra -n 1 "${args[@]}" "${cmd[@]}"; } ;;
    *) echo "usage: $0 [openmpi|mpich]" >&2; exit 2 ;;
esac
# JPMPI_BENCH_CONFIGS="profile-c profile-base ...": only these configurations (default: all).
# JPMPI_BENCH_BASE_RECORDER=DIR: also "profile-base", the recorder DIR/$impl/libjpmpi-profile.so (e.g. a copy
# of main's) alone, under DIR/$impl/libmpiprofilesupport.so if there, beside "profile-c" (this tree's recorder
# alone, call sites on as by default), "profile-c-nosites" (JPMPI_PROFILE_SITES=off) and "profile-c-exact"
# (JPMPI_PROFILE_TIMING=all); "profile-base-exact": the base recorder with JPMPI_PROFILE_TIMING=all,
# beside "profile-c-exact"; "dispatcher-0-levels-base" and "dispatcher-1-level-base": DIR's dispatcher with
# no level and with the no-op C level, beside "dispatcher-0-levels" and "dispatcher-1-level".
want() { [[ -z "${JPMPI_BENCH_CONFIGS:-}" || " $JPMPI_BENCH_CONFIGS " == *" $1 "* ]]; }
# the base tree's dispatcher: DIR/$impl/libmpiprofilesupport.so if there (else the base recorder runs under this one)
base_lib=""
if [[ -n "${JPMPI_BENCH_BASE_RECORDER:-}" && -f "$JPMPI_BENCH_BASE_RECORDER/$impl/libmpiprofilesupport.so" ]]; then
    base_lib="$JPMPI_BENCH_BASE_RECORDER/$impl/libmpiprofilesupport.so"
fi
out=$(mktemp)
profile_out=$(mktemp -d)
trap 'rm -rf "$out" "$out.err" "$profile_out"' EXIT
for ((i = 1; i <= runs; i++)); do
    if want "no-dispatcher"; then
        cmd=("$b/percall" "no-dispatcher" "$calls" "$rounds"); launch JPMPI_BENCH=1 >>"$out"
    fi
    if want "classic-wrapper"; then
        cmd=("$b/percall-classic" "classic-wrapper" "$calls" "$rounds"); launch JPMPI_BENCH=1 >>"$out"
    fi
    if want "dispatcher-0-levels"; then
        cmd=("$b/percall" "dispatcher-0-levels" "$calls" "$rounds"); launch "LD_PRELOAD=$lib" >>"$out"
    fi
    if want "dispatcher-1-level"; then
        cmd=("$b/percall" "dispatcher-1-level" "$calls" "$rounds"); launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$b/libnoop1.so" >>"$out"
    fi
    # the same two with the base tree's dispatcher
    if [[ -n "$base_lib" ]]; then
        if want "dispatcher-0-levels-base"; then
            cmd=("$b/percall" "dispatcher-0-levels-base" "$calls" "$rounds"); launch "LD_PRELOAD=$base_lib" >>"$out"
        fi
        if want "dispatcher-1-level-base"; then
            cmd=("$b/percall" "dispatcher-1-level-base" "$calls" "$rounds")
            launch "LD_PRELOAD=$base_lib" "JPMPI_TOOLS_ENTRY=$b/libnoop1.so" >>"$out"
        fi
    fi
    if want "dispatcher-4-levels"; then
        cmd=("$b/percall" "dispatcher-4-levels" "$calls" "$rounds")
        launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$b/libnoop1.so,$b/libnoop2.so,$b/libnoop3.so,$b/libnoop4.so" >>"$out"
    fi
    # jpmpi's profile tool: its C level records every call; its Java level only runs at MPI_Finalize.
    if want "profile"; then
        cmd=("$b/percall" "profile" "$calls" "$rounds")
        launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$recorder,$profile_jar" "JAVA_HOME=$JAVA_HOME" \
        "JPMPI_OUTPUT_DIR=$profile_out" \
        "JPMPI_PROFILE_QUIET=1" >>"$out"
    fi
    # the recorder alone (as jpmpi run lists the profile tool): as by default (sampled timing, call sites
    # kept), without call sites, every call timed, and a base recorder (JPMPI_BENCH_BASE_RECORDER) to
    # compare with, side by side
    if want profile-c; then
        cmd=("$b/percall" "profile-c" "$calls" "$rounds")
        launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$recorder" "JPMPI_OUTPUT_DIR=$profile_out" >>"$out"
    fi
    if want profile-c-exact; then
        cmd=("$b/percall" "profile-c-exact" "$calls" "$rounds")
        launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$recorder" "JPMPI_OUTPUT_DIR=$profile_out" \
            "JPMPI_PROFILE_TIMING=all" >>"$out"
    fi
    if want profile-c-nosites; then
        cmd=("$b/percall" "profile-c-nosites" "$calls" "$rounds")
        launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$recorder" "JPMPI_OUTPUT_DIR=$profile_out" \
            "JPMPI_PROFILE_SITES=off" >>"$out"
    fi
    if [[ -n "${JPMPI_BENCH_BASE_RECORDER:-}" ]] && want profile-base; then
        cmd=("$b/percall" "profile-base" "$calls" "$rounds")
        launch "LD_PRELOAD=${base_lib:-$lib}" "JPMPI_TOOLS_ENTRY=$JPMPI_BENCH_BASE_RECORDER/$impl/libjpmpi-profile.so" \
            "JPMPI_OUTPUT_DIR=$profile_out" >>"$out"
    fi
    if [[ -n "${JPMPI_BENCH_BASE_RECORDER:-}" ]] && want profile-base-exact; then
        cmd=("$b/percall" "profile-base-exact" "$calls" "$rounds")
        launch "LD_PRELOAD=${base_lib:-$lib}" "JPMPI_TOOLS_ENTRY=$JPMPI_BENCH_BASE_RECORDER/$impl/libjpmpi-profile.so" \
            "JPMPI_OUTPUT_DIR=$profile_out" "JPMPI_PROFILE_TIMING=all" >>"$out"
    fi
    # jpmpi's accounting tool as --tools accounting lists it: a C level that only has MPI_Init* and
    # MPI_Finalize and samples the stack 100 times a second (no JVM, nothing on other calls); and
    # with the recorder above it (every call counted and timed: the recorder's cost, as profile).
    if want "accounting"; then
        cmd=("$b/percall" "accounting" "$calls" "$rounds")
        launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$accounting_lib" \
        "JPMPI_ACCOUNTING_FILE=$profile_out/accounting.jsonl" >>"$out"
    fi
    if want "accounting-counted"; then
        cmd=("$b/percall" "accounting-counted" "$calls" "$rounds")
        launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$recorder,$accounting_lib" \
        "JPMPI_ACCOUNTING_FILE=$profile_out/accounting.jsonl" >>"$out"
    fi
    # jpmpi's mpit tool: by default it reads at MPI_Init, MPI_Pcontrol and MPI_Finalize only (no upcall
    # on these calls); with JPMPI_MPIT_READ=calls it reads every MPI_T variable before and after each call.
    for mode in regions calls; do
        if want "mpit-$mode"; then
            cmd=("$b/percall" "mpit-$mode" "$calls" "$rounds")
            launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$mpit_jar" "JAVA_HOME=$JAVA_HOME" \
            "JPMPI_OUTPUT_DIR=$profile_out" \
            "JPMPI_MPIT_READ=$mode" >>"$out" 2>/dev/null
        fi
    done
    # jpmpi's hwc tool in sampled mode (C level alone, its default events: the software set without a
    # PMU; the overflows at 30 per second). percall calls MPI_Init (MPI_THREAD_SINGLE): the level
    # leaves the chain after it, nothing per call is left. hwc-sampled-multiple: the same with the
    # library asked for MPI_THREAD_MULTIPLE by its own variable, so the wrappers stay (the level's
    # entry and guard and the wrapper's two branches per call).
    if want "hwc-sampled"; then
        cmd=("$b/percall" "hwc-sampled" "$calls" "$rounds")
        launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$hwc_lib" "JPMPI_HWC_MODE=sampled" >>"$out" 2>/dev/null
    fi
    if want "hwc-sampled-multiple"; then
        case "$impl" in
            openmpi) level=OMPI_MPI_THREAD_LEVEL=3 ;;
            mpich) level=MPIR_CVAR_DEFAULT_THREAD_LEVEL=MPI_THREAD_MULTIPLE ;;
        esac
        cmd=("$b/percall" "hwc-sampled-multiple" "$calls" "$rounds")
        launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=v,$hwc_lib" "JPMPI_HWC_MODE=sampled" "$level" >>"$out" 2>"$out.err"
        if grep -q "left the chain" "$out.err"; then
            echo "hwc-sampled-multiple: the library did not provide MPI_THREAD_MULTIPLE ($level)" >&2
        fi
    fi
    # jpmpi's hwc tool, C level alone, 2 counters read around every call (calls mode), each way of
    # reading them (auto keeps the faster).
    for m in rdpmc read; do
        if want "hwc-2-$m"; then
            cmd=("$b/percall" "hwc-2-$m" "$hwc_calls" "$rounds")
            launch "LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$hwc_lib" "JPMPI_HWC_EVENTS=instructions,cycles" \
            "JPMPI_HWC_READ=$m" "JPMPI_HWC_MODE=calls" >>"$out" 2>/dev/null
        fi
    done
done
echo "jpmpi per-call benchmark: $impl, $runs runs x $rounds rounds x $calls calls (MPI_Send to MPI_PROC_NULL; MPI_Iprobe, MPI_Sendrecv of one double to itself on a duplicate of MPI_COMM_WORLD, and MPI_Irecv + MPI_Isend + MPI_Waitall of one double to itself there: calls/10; MPI_Sendrecv/64KiB, 64 KiB to itself there: calls/200; hwc-*: $hwc_calls calls); $(nproc) cpus"
echo "figure = median over runs of the in-process median of (variant - bottom) [min .. max over runs]"
awk -f "$root/benchmarks/median.awk" -f /dev/stdin "$out" <<'AWK' | sort
{ key = $1 " " $2 " " $3; deltas[key] = deltas[key] " " ($6 + 0); ns[key] = ns[key] " " ($4 + 0) }
END {
    for (k in deltas) {
        split(k, parts, " ")
        med = sorted_median(deltas[k], a); m = split(deltas[k], raw, " ")
        nmed = sorted_median(ns[k], b)
        printf "%-22s %-14s %-7s %8.2f ns/call  %+6.2f ns  [%+.2f .. %+.2f]\n", parts[1], parts[2], parts[3], nmed, med, a[1], a[m]
    }
}
AWK
