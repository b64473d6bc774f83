# scripts/mpi.mk - the MPI implementations every jpmpi Makefile builds for: id -> compiler wrappers
# (Debian's names). This is the Makefiles' side of io.jpmpi.platform.Toolchain.KNOWN; a unit test
# (specs MpiTableTest) fails when the two disagree. Only the installed implementations are built.
MPI_KNOWN := openmpi mpich
MPICC_openmpi := mpicc.openmpi
MPICXX_openmpi := mpicxx.openmpi
MPIFC_openmpi := mpifort.openmpi
MPICC_mpich := mpicc.mpich
MPICXX_mpich := mpicxx.mpich
MPIFC_mpich := mpifort.mpich
IMPLS := $(foreach i,$(MPI_KNOWN),$(if $(shell command -v $(MPICC_$(i)) 2>/dev/null),$(i)))
