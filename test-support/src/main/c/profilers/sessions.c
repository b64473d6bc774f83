/*
 * sessions: the MPI-4 sessions model.
 *   sessions only   - never MPI_Init: MPI_Session_init, MPI_Group_from_session_pset("mpi://world"),
 *                     MPI_Comm_create_from_group; on that communicator (world ranks in world order) an
 *                     MPI_Sendrecv of 1 int around the ring and an MPI_Allreduce of 1 int; then
 *                     MPI_Comm_free, MPI_Group_free, MPI_Session_finalize.
 *   sessions mixed  - MPI_Init, MPI_Comm_rank, MPI_Comm_size, the same session and its traffic, an
 *                     MPI_Allreduce of 1 int on MPI_COMM_WORLD, the session's end, MPI_Finalize.
 * Prints "sessions rank R: ok" when every value checks. An MPI without sessions (before MPI-4)
 * prints "sessions: no sessions in MPI <version>" and exits 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#if MPI_VERSION >= 4
static int traffic(MPI_Comm comm, int *rank)
{
    int size, got = -1, one = 1, all = 0;
    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, &size);
    MPI_Sendrecv(rank, 1, MPI_INT, (*rank + 1) % size, 0, &got, 1, MPI_INT, (*rank + size - 1) % size, 0, comm,
                 MPI_STATUS_IGNORE);
    MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, comm);
    return got == (*rank + size - 1) % size && all == size;
}

int main(int argc, char **argv)
{
    int mixed = argc > 1 && strcmp(argv[1], "mixed") == 0;
    int ok = 1, wrank = -1, srank = -1;
    if (mixed) {
        int wsize;
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
        MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    }
    MPI_Session s;
    MPI_Group g;
    MPI_Comm comm;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &s);
    MPI_Group_from_session_pset(s, "mpi://world", &g);
    MPI_Comm_create_from_group(g, "io.jpmpi.test.sessions", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &comm);
    ok &= traffic(comm, &srank);
    if (mixed) {
        int one = 1, all = 0, size;
        MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Comm_size(comm, &size);
        ok &= all == size && wrank == srank;
    }
    MPI_Comm_free(&comm);
    MPI_Group_free(&g);
    MPI_Session_finalize(&s);
    printf("sessions rank %d: %s\n", srank, ok ? "ok" : "WRONG");
    fflush(stdout);
    if (mixed) {
        MPI_Finalize();
    }
    return 0;
}
#else
int main(void)
{
    printf("sessions: no sessions in MPI %d.%d\n", MPI_VERSION, MPI_SUBVERSION);
    return 0;
}
#endif
