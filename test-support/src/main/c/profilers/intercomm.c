/*
 * intercomm.c - traffic across an inter-communicator whose groups are not in world order. 4 ranks
 * split by parity with the order reversed (key -rank): group A = {2, 0}, group B = {3, 1} (local
 * rank 0 first). MPI_Intercomm_create joins them (leaders: local rank 0, world 2 and 3). Then:
 *  - point-to-point: local rank l sends 8 ints to remote rank 1-l and receives 8 from it, so the
 *    messages go 2->1, 0->3, 3->0, 1->2 (world ranks);
 *  - MPI_Bcast of 5 ints from group A's rank 0 (MPI_ROOT; its partner passes MPI_PROC_NULL) to B;
 *  - MPI_Allreduce (sum) of 3 ints: each group gets the sum of the other group's vectors.
 */
#include <mpi.h>
#include <stdio.h>

/* The world rank of local rank l of the group of parity `color` (order reversed by the split). */
static int world_of(int color, int l)
{
    return color + 2 * (1 - l);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        fprintf(stderr, "intercomm: needs 4 ranks, not %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int color = rank % 2;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &local);
    int l;
    MPI_Comm_rank(local, &l);
    /* the remote leader, named by its rank in the peer communicator (world) */
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, world_of(1 - color, 0), 7, &inter);
    int ok = l == (rank < 2 ? 1 : 0);

    int out[8], in[8];
    int partner = world_of(1 - color, 1 - l);
    for (int i = 0; i < 8; i++) {
        out[i] = 100 * rank + i;
        in[i] = -1;
    }
    /* group A sends first, B receives first: no reliance on buffering */
    if (color == 0) {
        MPI_Send(out, 8, MPI_INT, 1 - l, 1, inter);
        MPI_Recv(in, 8, MPI_INT, 1 - l, 1, inter, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in, 8, MPI_INT, 1 - l, 1, inter, MPI_STATUS_IGNORE);
        MPI_Send(out, 8, MPI_INT, 1 - l, 1, inter);
    }
    for (int i = 0; i < 8; i++) {
        ok &= in[i] == 100 * partner + i;
    }

    int b[5];
    for (int i = 0; i < 5; i++) {
        b[i] = color == 0 && l == 0 ? 50 + i : -1;
    }
    int root = color == 1 ? 0 : (l == 0 ? MPI_ROOT : MPI_PROC_NULL);
    MPI_Bcast(b, 5, MPI_INT, root, inter);
    for (int i = 0; i < 5; i++) {
        ok &= b[i] == (color == 1 || l == 0 ? 50 + i : -1);
    }

    int v[3] = {rank, rank * rank, 1}, s[3] = {-1, -1, -1};
    MPI_Allreduce(v, s, 3, MPI_INT, MPI_SUM, inter);
    int r0 = world_of(1 - color, 0), r1 = world_of(1 - color, 1);
    ok &= s[0] == r0 + r1 && s[1] == r0 * r0 + r1 * r1 && s[2] == 2;

    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    printf("intercomm rank %d: %s\n", rank, ok ? "ok" : "WRONG");
    MPI_Finalize();
    return ok ? 0 : 1;
}
