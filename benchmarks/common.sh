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

# build_noop_level TREE DIR [SRC]: builds benchmarks/java-level's no-op Java level (NoopLevel, every
# call straight down) against installation TREE's API into DIR and prints the jar's path; SRC: the
# level's source directory matching TREE's API when TREE is older than this one (e.g. from
# `git archive COMMIT benchmarks/java-level/src`).
build_noop_level() {
    local tree=$1 dir=$2 src=${3:-"$root/benchmarks/java-level/src"}
    mkdir -p "$dir/classes"
    "$JAVA_HOME/bin/javac" -Xlint:all -Werror -d "$dir/classes" -cp "$tree/share/jpmpi/java/runtime/jpmpi-layering.jar" \
        "$src/io/jpmpi/benchmarks/NoopLevel.java"
    cp -r "$src/META-INF" "$dir/classes/"
    "$JAVA_HOME/bin/jar" cf "$dir/noop.jar" -C "$dir/classes" .
    printf '%s\n' "$dir/noop.jar"
}

# compare_trees: the installations a benchmark measures side by side: A, the development one
# (JPMPI_A=DIR: that one instead), and with JPMPI_B=DIR also B (e.g. a `jpmpi install --prefix` of
# a build before a change). Sets trees (A, or A B), tree_a and jp[A], jp[B]: each one's bin/jpmpi.
compare_trees() {
    trees=(A)
    tree_a=${JPMPI_A:-$JPMPI_TREE}
    declare -gA jp=([A]="$tree_a/bin/jpmpi")
    [[ -x "${jp[A]}" ]] || { echo "$0: JPMPI_A=$tree_a has no bin/jpmpi" >&2; exit 2; }
    if [[ -n "${JPMPI_B:-}" ]]; then
        [[ -x "$JPMPI_B/bin/jpmpi" ]] || { echo "$0: JPMPI_B=$JPMPI_B has no bin/jpmpi" >&2; exit 2; }
        trees+=(B)
        jp[B]="$JPMPI_B/bin/jpmpi"
    fi
}
