/*
 * subcomm.c - collectives on a communicator whose ranks are not the world's. 4 ranks split by
 * parity with the order reversed (key -rank): world 2 is rank 0 of {2, 0}, world 3 rank 0 of {3, 1}.
 * On it: MPI_Bcast of 10 ints from its rank 0, then MPI_Alltoall of one int. The profile's matrix
 * must name world ranks: 2->0 and 3->1 two messages of 44 bytes in all, 0->2 and 1->3 one of 4.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        fprintf(stderr, "subcomm: needs 4 ranks, not %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &sub);
    int subrank;
    MPI_Comm_rank(sub, &subrank);
    int buf[10];
    for (int i = 0; i < 10; i++) {
        buf[i] = subrank == 0 ? 100 * rank + i : -1;
    }
    MPI_Bcast(buf, 10, MPI_INT, 0, sub);
    int root = rank < 2 ? rank + 2 : rank; /* world rank of the sub-communicator's rank 0 */
    int ok = 1;
    for (int i = 0; i < 10; i++) {
        ok &= buf[i] == 100 * root + i;
    }
    int mine[2] = {rank, rank}, theirs[2] = {-1, -1};
    MPI_Alltoall(mine, 1, MPI_INT, theirs, 1, MPI_INT, sub);
    int other = rank < 2 ? rank + 2 : rank - 2;
    ok &= theirs[subrank] == rank && theirs[1 - subrank] == other;
    MPI_Comm_free(&sub);
    printf("subcomm rank %d: %s\n", rank, ok ? "ok" : "WRONG");
    MPI_Finalize();
    return ok ? 0 : 1;
}
