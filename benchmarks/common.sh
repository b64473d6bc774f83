# common.sh - sourced by the benchmarks' scripts after setting `root` (the source tree) and `impl`:
# the JDK, the development installation (built first if missing) and where its parts are.
# shellcheck source=../scripts/lib.sh
source "$root/scripts/lib.sh"
jpmpi_allow_root
JPMPI_QUIET_JDK=1 jpmpi_find_jdk
jpmpi_tree
lib="$JPMPI_TREE/lib/$impl/libmpiprofilesupport.so"
recorder="$JPMPI_TREE/lib/$impl/libjpmpi-profile.so"
profile_jar="$JPMPI_TREE/share/jpmpi/java/tools/jpmpi-profile/jpmpi-profile.jar"
accounting_lib="$JPMPI_TREE/lib/$impl/libjpmpi-accounting.so"

# launch_np N VAR=VALUE... runs "${cmd[@]}" on N ranks of $impl (oversubscribed), each variable
# given to the ranks; $cc is $impl's C compiler wrapper.
case "$impl" in
    openmpi) cc=mpicc.openmpi
        launch_np() { local n=$1; shift; local args=(); for e in "$@"; do args+=(-x "$e"); done
            mpirun.openmpi --oversubscribe -np "$n" "${args[@]}" "${cmd[@]}"; } ;;
    mpich) cc=mpicc.mpich
        launch_np() { local n=$1; shift; local args=(); for e in "$@"; do args+=(-genv "${e%%=*}" "${e#*=}"); done
            mpiexec.hydra -n "$n" "${args[@]}" "${cmd[@]}"; } ;;
esac
