/*
 * spawn: a parent job that starts a child job with MPI_Comm_spawn, and the child.
 *   spawn [children=2]
 * Parent (every rank): MPI_Comm_spawn of this program with "child" (root 0, MPI_COMM_WORLD), then
 * rank 0 sends 8 ints to each child over the intercommunicator (MPI_Send, remote rank c), every
 * parent rank calls MPI_Barrier on the intercommunicator, then MPI_Comm_disconnect. Child (every
 * rank): MPI_Comm_get_parent, MPI_Recv of 8 ints from parent rank 0, MPI_Barrier on the parent
 * intercommunicator, MPI_Allreduce of one int on its own MPI_COMM_WORLD, MPI_Comm_disconnect.
 * Each prints "spawn parent rank R: ok" or "spawn child rank R: ok".
 * Besides: MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, ok = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int child = argc > 1 && strcmp(argv[1], "child") == 0;
    if (!child) {
        int n = argc > 1 ? atoi(argv[1]) : 2;
        char *child_argv[] = {"child", NULL};
        MPI_Comm inter;
        MPI_Comm_spawn(argv[0], child_argv, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
        int data[8];
        for (int i = 0; i < 8; i++) {
            data[i] = 100 + i;
        }
        if (rank == 0) {
            for (int c = 0; c < n; c++) {
                MPI_Send(data, 8, MPI_INT, c, 5, inter);
            }
        }
        MPI_Barrier(inter);
        MPI_Comm_disconnect(&inter);
        printf("spawn parent rank %d: ok\n", rank);
    } else {
        MPI_Comm parent;
        MPI_Comm_get_parent(&parent);
        int data[8] = {0};
        MPI_Recv(data, 8, MPI_INT, 0, 5, parent, MPI_STATUS_IGNORE);
        ok = data[7] == 107;
        MPI_Barrier(parent);
        int one = 1, all = 0;
        MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        ok &= all == size;
        MPI_Comm_disconnect(&parent);
        printf("spawn child rank %d: %s\n", rank, ok ? "ok" : "WRONG");
    }
    fflush(stdout);
    MPI_Finalize();
    return ok ? 0 : 1;
}
