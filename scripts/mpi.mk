# mpi.mk - the MPI implementations the C parts are built for, for the Makefiles of test-support
# and of the profilers' tool modules: per implementation id its compiler wrappers; IMPLS, the
# ids whose C compiler wrapper is installed (only those are built).
MPICC_openmpi := mpicc.openmpi
MPICXX_openmpi := mpicxx.openmpi
MPIFC_openmpi := mpifort.openmpi
MPICC_mpich := mpicc.mpich
MPICXX_mpich := mpicxx.mpich
MPIFC_mpich := mpifort.mpich
IMPLS := $(foreach i,openmpi mpich,$(if $(shell command -v $(MPICC_$(i)) 2>/dev/null),$(i)))
