#!/usr/bin/env bash
# demo.sh - build jpmpi, then build and run the halo-exchange demo on 4 MPI ranks.
#
#   ./demo.sh [--mpi openmpi|mpich] [--np N] [--no-build] [-- HALO-ARGS...]
#
#   --mpi        MPI implementation to compile and launch with (default openmpi:
#                mpicc.openmpi + mpirun.openmpi; mpich: mpicc.mpich + mpiexec.hydra)
#   --np N       number of ranks (default 4)
#   --no-build   skip the Maven build of jpmpi
#   HALO-ARGS    passed to the demo: [cells-per-rank [iterations [tolerance]]]
#
# The functions below can also be used after `source demo.sh` (nothing runs then).
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/scripts/lib.sh"

JPMPI_DEMO_DIR="$JPMPI_ROOT/examples/halo-demo"
JPMPI_DEMO_BIN="$JPMPI_DEMO_DIR/target/halo"

# jpmpi_demo_compile MPI: compile halo.c with MPI's compiler wrapper into target/halo.
# Always recompiles: both MPIs write the same binary.
jpmpi_demo_compile() {
    local mpi=$1 mpicc
    case "$mpi" in
        openmpi) mpicc=$JPMPI_OMPI_MPICC ;;
        mpich) mpicc=$JPMPI_MPICH_MPICC ;;
        *) jpmpi_log "unknown MPI '$mpi' (expected openmpi or mpich)"; return 2 ;;
    esac
    mkdir -p -- "$JPMPI_DEMO_DIR/target"
    "$mpicc" -std=c99 -O2 -Wall -Wextra -Werror \
        -o "$JPMPI_DEMO_BIN" "$JPMPI_DEMO_DIR/halo.c" -lm
}

# jpmpi_demo_launcher MPI NP: print the launcher command line, one word per line.
jpmpi_demo_launcher() {
    local mpi=$1 np=$2
    case "$mpi" in
        openmpi) printf '%s\n' "$JPMPI_OMPI_MPIRUN" --oversubscribe -np "$np" ;;
        mpich) printf '%s\n' "$JPMPI_MPICH_MPIEXEC" -n "$np" ;;
        *) jpmpi_log "unknown MPI '$mpi' (expected openmpi or mpich)"; return 2 ;;
    esac
}

# jpmpi_demo_run MPI NP [HALO-ARGS...]: launch the compiled demo on NP ranks through the jpmpi
# dispatcher (libmpiprofilesupport.so, preloaded into the ranks only) with two levels: on top a
# Java level, the example interceptor examples/java-counter (one count line per rank on stderr at
# MPI_Finalize), below it the ordinary C PMPI tool examples/c-tools/mpicount (a call/time/byte
# table). The built-in Java profiler replaces them when it lands.
jpmpi_demo_run() {
    local mpi=$1 np=$2
    shift 2
    local dispatcher="$JPMPI_ROOT/native-stubs/target/classes/native/$mpi/libmpiprofilesupport.so"
    local tool="$JPMPI_ROOT/examples/c-tools/target/$mpi/libmpicount.so"
    local runtime="$JPMPI_ROOT/layering/target/jpmpi-java"
    local counter
    counter=$(ls "$JPMPI_ROOT"/examples/java-counter/target/jpmpi-example-java-counter-*.jar 2>/dev/null | head -n 1)
    local mpicc
    case "$mpi" in
        openmpi) mpicc=$JPMPI_OMPI_MPICC ;;
        mpich) mpicc=$JPMPI_MPICH_MPICC ;;
    esac
    if [ ! -f "$dispatcher" ] || [ ! -f "$runtime/jpmpi-layering.jar" ] || [ -z "$counter" ]; then
        jpmpi_log "jpmpi is not built (no dispatcher, Java runtime or example jar): run ./demo.sh without --no-build first"
        return 2
    fi
    make -s -C "$JPMPI_ROOT/examples/c-tools" MPICC="$mpicc" OUT="target/$mpi" || return
    local entry="v,$counter,$tool"
    local -a env=("LD_PRELOAD=$dispatcher" "JPMPI_TOOLS_ENTRY=$entry" "JAVA_HOME=$JAVA_HOME"
        "JPMPI_JAVA_CLASSPATH=$runtime/jpmpi-layering.jar:$runtime/asm.jar")
    local -a launch=()
    mapfile -t launch < <(jpmpi_demo_launcher "$mpi" "$np")
    ((${#launch[@]} > 0)) || return 2
    local e
    for e in "${env[@]}"; do
        case "$mpi" in
            openmpi) launch+=(-x "$e") ;;
            mpich) launch+=(-genv "${e%%=*}" "${e#*=}") ;;
        esac
    done
    jpmpi_log "running the demo through the jpmpi dispatcher: a Java level (examples/java-counter)"
    jpmpi_log "on top of a C level (examples/c-tools/mpicount)"
    jpmpi_log "${launch[*]} ${JPMPI_DEMO_BIN#"$JPMPI_ROOT"/}${*:+ $*}"
    "${launch[@]}" "$JPMPI_DEMO_BIN" "$@"
}

# jpmpi_demo MPI NP [HALO-ARGS...]: compile, then run.
jpmpi_demo() {
    local mpi=$1
    jpmpi_demo_compile "$mpi" || return
    jpmpi_demo_run "$@"
}

jpmpi_demo_usage() {
    sed -n '2,10s/^# \{0,1\}//p' "$JPMPI_ROOT/demo.sh"
}

jpmpi_demo_main() {
    local mpi=openmpi np=4 build=1
    while (($# > 0)); do
        case "$1" in
            --mpi) [[ $# -ge 2 ]] || { jpmpi_demo_usage >&2; return 2; }; mpi=$2; shift 2 ;;
            --mpi=*) mpi=${1#--mpi=}; shift ;;
            --np) [[ $# -ge 2 ]] || { jpmpi_demo_usage >&2; return 2; }; np=$2; shift 2 ;;
            --np=*) np=${1#--np=}; shift ;;
            --no-build) build=0; shift ;;
            -h | --help) jpmpi_demo_usage; return 0 ;;
            --) shift; break ;;
            *) jpmpi_log "unknown option '$1'"; jpmpi_demo_usage >&2; return 2 ;;
        esac
    done
    case "$mpi" in
        openmpi | mpich) ;;
        *) jpmpi_log "--mpi must be openmpi or mpich, not '$mpi'"; return 2 ;;
    esac
    [[ "$np" =~ ^[1-9][0-9]*$ ]] || { jpmpi_log "--np must be a positive integer, not '$np'"; return 2; }

    jpmpi_ensure_packages || return 1
    jpmpi_find_jdk || return 1
    if ((build)); then
        jpmpi_log "building jpmpi (mvn install -DskipTests)"
        jpmpi_mvn -q install -DskipTests || { jpmpi_log "Maven build failed"; return 1; }
    fi
    jpmpi_demo "$mpi" "$np" "$@"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    jpmpi_demo_main "$@"
fi
