/*
 * dlopenmpi: a program that is not linked to MPI and loads its MPI library at run time, as Python,
 * Julia or R do: dlopen(LIB, RTLD_NOW | RTLD_GLOBAL) (the library's soname, from the command line or
 * the build: libmpi.so.40 for Open MPI, libmpich.so.12 for MPICH), then every MPI function it calls
 * is looked up by name in the process (dlsym(RTLD_DEFAULT)), as a binding's stubs resolve them.
 * 2 ranks: MPI_Init, MPI_Comm_rank, MPI_Comm_size, rank 0 sends 16 ints to rank 1 (MPI_Send /
 * MPI_Recv), MPI_Allreduce of 1 int, MPI_Finalize. Prints "dlopenmpi rank R: ok".
 * The MPI handles are the library's own values: MPICH's are constants of its header; Open MPI's
 * are the addresses of objects in libmpi (MPI_COMM_WORLD is &ompi_mpi_comm_world), looked up by
 * name like the functions, so that no MPI symbol is linked.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef DLOPEN_LIBRARY
#error DLOPEN_LIBRARY, the soname of the MPI library, must be defined
#endif

typedef int (*init_t)(int *, char ***);
typedef int (*comm_int_t)(MPI_Comm, int *);
typedef int (*send_t)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_t)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
typedef int (*allreduce_t)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
typedef int (*finalize_t)(void);

static void *lookup(const char *name)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    if (f == NULL) {
        fprintf(stderr, "dlopenmpi: no %s in the process: %s\n", name, dlerror());
        exit(2);
    }
    return f;
}

int main(int argc, char **argv)
{
    const char *library = argc > 1 ? argv[1] : DLOPEN_LIBRARY;
    if (dlopen(library, RTLD_NOW | RTLD_GLOBAL) == NULL) {
        fprintf(stderr, "dlopenmpi: cannot load %s: %s\n", library, dlerror());
        return 2;
    }
    init_t MPI_Init_p = (init_t)lookup("MPI_Init");
    comm_int_t MPI_Comm_rank_p = (comm_int_t)lookup("MPI_Comm_rank");
    comm_int_t MPI_Comm_size_p = (comm_int_t)lookup("MPI_Comm_size");
    send_t MPI_Send_p = (send_t)lookup("MPI_Send");
    recv_t MPI_Recv_p = (recv_t)lookup("MPI_Recv");
    allreduce_t MPI_Allreduce_p = (allreduce_t)lookup("MPI_Allreduce");
    finalize_t MPI_Finalize_p = (finalize_t)lookup("MPI_Finalize");
#ifdef OPEN_MPI
    MPI_Comm world = (MPI_Comm)lookup("ompi_mpi_comm_world");
    MPI_Datatype mpi_int = (MPI_Datatype)lookup("ompi_mpi_int");
    MPI_Op sum = (MPI_Op)lookup("ompi_mpi_op_sum");
#else
    MPI_Comm world = MPI_COMM_WORLD;
    MPI_Datatype mpi_int = MPI_INT;
    MPI_Op sum = MPI_SUM;
#endif
    MPI_Init_p(&argc, &argv);
    int rank, size, ok = 1;
    MPI_Comm_rank_p(world, &rank);
    MPI_Comm_size_p(world, &size);
    int data[16];
    if (rank == 0) {
        for (int i = 0; i < 16; i++) {
            data[i] = i;
        }
        MPI_Send_p(data, 16, mpi_int, 1, 7, world);
    } else if (rank == 1) {
        MPI_Recv_p(data, 16, mpi_int, 0, 7, world, MPI_STATUS_IGNORE);
        for (int i = 0; i < 16; i++) {
            ok &= data[i] == i;
        }
    }
    int one = 1, all = 0;
    MPI_Allreduce_p(&one, &all, 1, mpi_int, sum, world);
    ok &= all == size;
    printf("dlopenmpi rank %d: %s\n", rank, ok ? "ok" : "WRONG");
    MPI_Finalize_p();
    return 0;
}
