#!/usr/bin/env bash
# Instructions per MPI call, counted by valgrind's callgrind (no clock: the same count from run to run,
# however busy the machine, where dispatch/run.sh's nanoseconds move by several ns on this 2-core VM).
#   benchmarks/dispatch/instructions.sh [openmpi|mpich] [CALLS]     (default: openmpi 100000)
# instr.c on one rank: CALLS calls each of MPI_Comm_rank, an empty MPI_Iprobe, MPI_Send to
# MPI_PROC_NULL, MPI_Testany polling a started persistent receive (a request the profile tool
# follows: its completion calls then take the full wrapper, as hpcc's polling MPI_Testany does) and
# MPI_Sendrecv of one int to the rank itself on a duplicate of MPI_COMM_WORLD. Each
# configuration runs once under callgrind, collecting inside the five loops only (--toggle-collect),
# and prints the loop's instructions per call and that minus the same loop without jpmpi:
#   plain, dispatcher, noop-level, accounting, profile, profile-exact (every call timed), and with
#   JPMPI_BENCH_BASE_RECORDER=DIR profile-base, profile-base-exact (DIR/IMPL/libjpmpi-profile.so):
#   configs.sh says what each gives the rank.
# For the profile's rows, "timed" is the share of calls that took the recorder's timed path (its
# jp_timed_MPI_X). Under valgrind a call lasts ~50 times longer than on the machine, so the recorder's
# sampling (1 call in n timed, n from the calls' measured length) times far more of the short calls
# than it does natively: the profile row counts the quick and the timed path in that mix, which
# moves a little from run to run with valgrind's own speed (its timed share); profile-exact is the
# timed path alone, and every other row, the same count every run. The self instructions of each function on a path:
# callgrind_annotate --inclusive=no of the kept file (JPMPI_BENCH_KEEP=DIR keeps them there).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impl=${1:-openmpi}
calls=${2:-100000}
case "$impl" in openmpi | mpich) ;; *) echo "usage: $0 [openmpi|mpich] [CALLS]" >&2; exit 2 ;; esac
# shellcheck source=../common.sh
source "$root/benchmarks/common.sh"
# shellcheck source=configs.sh
source "$here/configs.sh"
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
    { echo "$0: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
make -s -C "$here" IMPL="$impl" >/dev/null
b="$here/target/$impl"
work=$(mktemp -d "${TMPDIR:-/tmp}/jpmpi-instructions.XXXXXX")
trap 'if [[ -n "${JPMPI_BENCH_KEEP:-}" ]]; then mkdir -p "$JPMPI_BENCH_KEEP" && cp "$work"/*.out "$JPMPI_BENCH_KEEP"/; fi; rm -rf "$work"' EXIT
base=${JPMPI_BENCH_BASE_RECORDER:-}
configs=(plain dispatcher noop-level accounting profile profile-exact)
[[ -z "$base" ]] || configs+=(profile-base profile-base-exact)

# one CONFIG: runs instr under callgrind with CONFIG's variables (configs.sh); its callgrind file is $work/CONFIG.out
one() {
    local config=$1 env
    config_env "$config"
    cmd=(valgrind -q --tool=callgrind --collect-atstart=no "--toggle-collect=instr_*"
        "--callgrind-out-file=$work/$config.out" "$b/instr" "$calls")
    if ! launch_np 1 "${env[@]}" >"$work/$config.log" 2>&1; then
        echo "$0: $config failed:" >&2
        cat "$work/$config.log" >&2
        exit 1
    fi
    callgrind_annotate --inclusive=yes --tree=caller "$work/$config.out" >"$work/$config.txt"
}
for c in "${configs[@]}"; do
    one "$c"
done

echo "instructions per call (valgrind's callgrind): $impl, $calls calls each, one rank; $(date -u +%FT%TZ)"
[[ -z "$base" ]] || echo "base recorder: $base/$impl/libjpmpi-profile.so"
printf '%-20s %-14s %12s %10s %8s\n' configuration function "instr/call" "vs plain" timed
for c in "${configs[@]}"; do
    awk -v c="$c" -v calls="$calls" '
        function num(s) { gsub(/,/, "", s); return s + 0 }
        # loop totals: the "*" line of each instr_ function; timed paths: jp_timed_MPI_X, with the
        # call counts of its callers ("< ...:MPI_X (N x)") just above it
        FNR == 1 { file++ }
        file == 1 && / \*  .*:instr_[a-z_]+ / { match($0, /instr_[a-z_]+/); plain[substr($0, RSTART, RLENGTH)] = num($1); next }
        file == 1 { next }
        /^ *$/ { n = 0; next }
        / < / { if (match($0, /\(([0-9,]+)x\)/)) { n += num(substr($0, RSTART + 1, RLENGTH - 3)) }; next }
        / \*  .*:instr_[a-z_]+ / { match($0, /instr_[a-z_]+/); loop[substr($0, RSTART, RLENGTH)] = num($1); next }
        / \*  .*:jp_timed_MPI_[A-Za-z_]+ / { match($0, /jp_timed_MPI_[A-Za-z_]+/); f = substr($0, RSTART + 9, RLENGTH - 9)
            timed[f] = n; next }
        END {
            split("instr_comm_rank MPI_Comm_rank instr_iprobe MPI_Iprobe instr_send MPI_Send instr_testany MPI_Testany instr_sendrecv MPI_Sendrecv", m, " ")
            for (i = 1; i < 10; i += 2) {
                l = m[i]; f = m[i + 1]
                if (!(l in loop)) { printf "%-20s %-14s %12s\n", c, f, "(none)"; continue }
                line = sprintf("%-20s %-14s %12.1f %+10.1f", c, f, loop[l] / calls, (loop[l] - plain[l]) / calls)
                if (c ~ /^profile/) {
                    line = line sprintf(" %7.1f%%", 100 * (timed[f] + 0) / calls)
                }
                print line
            }
        }' "$work/plain.txt" "$work/$c.txt"
done
