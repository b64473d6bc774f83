# configs.sh - sourced by dispatch/instructions.sh and dispatch/cold.sh after common.sh: the ranks'
# variables of each one-rank configuration they measure.
# config_env CONFIG: sets the array `env` for CONFIG (uses $lib, $recorder, $accounting_lib from
# common.sh, $b the build directory of the benchmark's programs, $work a scratch directory, $base
# JPMPI_BENCH_BASE_RECORDER or empty, $impl):
#   plain                the program alone
#   dispatcher           LD_PRELOAD=libmpiprofilesupport.so, no level
#   noop-level           one C level that defines MPI_Comm_rank and MPI_Iprobe and passes them on
#   accounting           the accounting tool's C level
#   profile              the profile tool's recorder as `jpmpi run --tools profile` lists it (a fresh
#                        output directory $work/profile-CONFIG each time)
#   profile-base         the same with $base/IMPL/libjpmpi-profile.so, under $base/IMPL/libmpiprofilesupport.so
#                        when that is there too (a whole base tree's lib/, as run.sh's -base configurations)
#   ...-exact            either of the two with JPMPI_PROFILE_TIMING=all (every call timed)
config_env() {
    local config=$1 rec="$recorder"
    env=()
    case "$config" in
        plain) ;;
        dispatcher) env=("LD_PRELOAD=$lib") ;;
        noop-level) env=("LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$b/libnoop1.so") ;;
        accounting) env=("LD_PRELOAD=$lib" "JPMPI_TOOLS_ENTRY=$accounting_lib" "JPMPI_ACCOUNTING_FILE=$work/accounting.jsonl") ;;
        profile | profile-exact | profile-base | profile-base-exact)
            local disp="$lib"
            if [[ "$config" == profile-base* ]]; then
                rec="$base/$impl/libjpmpi-profile.so"
                [[ ! -f "$base/$impl/libmpiprofilesupport.so" ]] || disp="$base/$impl/libmpiprofilesupport.so"
            fi
            rm -rf "$work/profile-$config"
            env=("LD_PRELOAD=$disp" "JPMPI_TOOLS_ENTRY=$rec" "JPMPI_OUTPUT_DIR=$work/profile-$config")
            [[ "$config" != *-exact ]] || env+=("JPMPI_PROFILE_TIMING=all") ;;
        *) echo "config_env: unknown configuration '$config'" >&2; return 2 ;;
    esac
}
