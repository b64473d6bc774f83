/*
 * mpiio.c - MPI-IO on a file in the working directory (mpiio.dat, deleted at the end): every rank
 * writes 16 ints at its own offset (rank x 64 bytes) with MPI_File_write_at, then (sync, barrier,
 * sync: the standard's way to make other processes' writes visible) reads its right neighbour's
 * block with MPI_File_read_at and checks it. Then two short reads at the end of the file (size x
 * 64 bytes long): 16 ints from 16 bytes before the end (4 ints come back; the status says so) and
 * 16 ints from 8 bytes before the end with MPI_STATUS_IGNORE (2 ints). Rank 0 deletes the file after
 * the collective close.
 */
#include <mpi.h>
#include <stdio.h>

#define INTS 16

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, "mpiio.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh)
        != MPI_SUCCESS) {
        fprintf(stderr, "mpiio rank %d: cannot open mpiio.dat\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int out[INTS], in[INTS];
    for (int i = 0; i < INTS; i++) {
        out[i] = 1000 * rank + i;
        in[i] = -1;
    }
    MPI_File_write_at(fh, (MPI_Offset)rank * sizeof out, out, INTS, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    int right = (rank + 1) % size;
    MPI_Status st;
    MPI_File_read_at(fh, (MPI_Offset)right * sizeof in, in, INTS, MPI_INT, &st);
    int n = -1;
    MPI_Get_count(&st, MPI_INT, &n);
    int ok = n == INTS;
    for (int i = 0; i < INTS; i++) {
        ok &= in[i] == 1000 * right + i;
    }
    MPI_Offset end = (MPI_Offset)size * sizeof out;
    MPI_File_read_at(fh, end - 16, in, INTS, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    ok &= n == 4 && in[3] == 1000 * (size - 1) + INTS - 1;
    MPI_File_read_at(fh, end - 8, in, INTS, MPI_INT, MPI_STATUS_IGNORE);
    ok &= in[1] == 1000 * (size - 1) + INTS - 1;
    MPI_File_close(&fh);
    if (rank == 0) {
        MPI_File_delete("mpiio.dat", MPI_INFO_NULL);
    }
    printf("mpiio rank %d: %s\n", rank, ok ? "ok" : "WRONG");
    MPI_Finalize();
    return ok ? 0 : 1;
}
