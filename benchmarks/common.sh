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
