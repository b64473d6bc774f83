#!/bin/sh
# build-info.sh IMPL MPICC ABI_LIBRARY - print what a dispatcher build was made for, as Java
# properties (native/<impl>/jpmpi-build.properties): `jpmpi doctor` compares it with the MPI
# library the ranks will load.
#   impl           the implementation id (openmpi, mpich)
#   mpi.version    the library version its mpi.h announces (OMPI_*_VERSION, MPICH_VERSION)
#   mpi.standard   MPI_VERSION.MPI_SUBVERSION
#   mpi.library    the soname of the C library the ABI tables link (NEEDED of libmpiprofilesupport-abi.so)
#   mpicc          the compiler wrapper used
set -eu
impl=$1 mpicc=$2 abi=$3
macros=$(printf '#include <mpi.h>\n' | $mpicc -E -dM -x c -)
macro() {
    printf '%s\n' "$macros" | awk -v n="$1" '$1 == "#define" && $2 == n { $1 = ""; $2 = ""; sub(/^ +/, ""); gsub(/"/, ""); print; exit }'
}
case "$impl" in
    openmpi) version="$(macro OMPI_MAJOR_VERSION).$(macro OMPI_MINOR_VERSION).$(macro OMPI_RELEASE_VERSION)" ;;
    mpich) version=$(macro MPICH_VERSION) ;;
    *) version=unknown ;;
esac
library=$(objdump -p "$abi" | awk '$1 == "NEEDED" && $2 ~ /^libmpi/ { print $2; exit }')
printf 'impl=%s\nmpi.version=%s\nmpi.standard=%s.%s\nmpi.library=%s\nmpicc=%s\n' \
    "$impl" "$version" "$(macro MPI_VERSION)" "$(macro MPI_SUBVERSION)" "$library" "$mpicc"
