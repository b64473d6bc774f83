/*
 * idup: non-blocking communicator creation mixed with non-blocking collectives, then the new
 * communicators used and freed. On each of three communicators (MPI_COMM_WORLD, the halves by
 * parity, the world in reverse order): 5 times a non-blocking collective (MPI_Ibarrier, MPI_Ibcast,
 * MPI_Iallreduce, MPI_Iscan, MPI_Ibarrier: 1 int each) followed by a non-blocking duplicate of the
 * same communicator (MPI_Comm_idup; with MPI-4, every other one MPI_Comm_idup_with_info), one
 * MPI_Waitall over the 10 requests, then on each duplicate MPI_Comm_size, MPI_Comm_rank, an
 * MPI_Sendrecv of 1 int around its ring and an MPI_Allreduce of 1 int, and MPI_Comm_free.
 * Per rank: 15 duplicates, 3 MPI_Waitall, 15 MPI_Sendrecv (4 bytes each way). Prints
 * "idup rank R: ok" when every value checks.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, ok = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comms[3] = {MPI_COMM_WORLD, MPI_COMM_NULL, MPI_COMM_NULL};
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &comms[1]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comms[2]);
    for (int c = 0; c < 3; c++) {
        MPI_Request reqs[10];
        MPI_Status statuses[10];
        MPI_Comm dups[5];
        int vals[5], outs[5], crank, csize;
        MPI_Comm_rank(comms[c], &crank);
        MPI_Comm_size(comms[c], &csize);
        for (int k = 0; k < 5; k++) {
            vals[k] = crank + k;
            outs[k] = -1;
            switch (k % 4) {
            case 0:
                MPI_Ibarrier(comms[c], &reqs[2 * k]);
                break;
            case 1:
                MPI_Ibcast(&vals[k], 1, MPI_INT, 0, comms[c], &reqs[2 * k]);
                break;
            case 2:
                MPI_Iallreduce(&vals[k], &outs[k], 1, MPI_INT, MPI_SUM, comms[c], &reqs[2 * k]);
                break;
            default:
                MPI_Iscan(&vals[k], &outs[k], 1, MPI_INT, MPI_SUM, comms[c], &reqs[2 * k]);
                break;
            }
#if MPI_VERSION >= 4
            if (k % 2) {
                MPI_Comm_idup_with_info(comms[c], MPI_INFO_NULL, &dups[k], &reqs[2 * k + 1]);
                continue;
            }
#endif
            MPI_Comm_idup(comms[c], &dups[k], &reqs[2 * k + 1]);
        }
        MPI_Waitall(10, reqs, statuses);
        ok &= vals[1] == 1;                                  /* the root's crank + 1 */
        ok &= outs[2] == csize * (csize - 1) / 2 + 2 * csize; /* sum of crank + 2 */
        ok &= outs[3] == crank * (crank + 1) / 2 + 3 * (crank + 1);
        for (int k = 0; k < 5; k++) {
            int dsize, drank, got = -1, one = 1, all = 0;
            MPI_Comm_size(dups[k], &dsize);
            MPI_Comm_rank(dups[k], &drank);
            MPI_Sendrecv(&drank, 1, MPI_INT, (drank + 1) % dsize, 9, &got, 1, MPI_INT, (drank + dsize - 1) % dsize, 9,
                         dups[k], MPI_STATUS_IGNORE);
            MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, dups[k]);
            ok &= dsize == csize && drank == crank && got == (drank + dsize - 1) % dsize && all == dsize;
            MPI_Comm_free(&dups[k]);
        }
    }
    MPI_Comm_free(&comms[1]);
    MPI_Comm_free(&comms[2]);
    printf("idup rank %d: %s\n", rank, ok ? "ok" : "WRONG");
    MPI_Finalize();
    return 0;
}
