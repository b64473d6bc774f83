/*
 * soak.c - traffic for a fixed time, to prove the JVM of Java levels and the MPI library live
 * together: every iteration each rank exchanges a buffer with both ring neighbours (MPI_Irecv,
 * MPI_Isend, MPI_Waitall), checks what it got, then calls MPI_Allreduce and, every 64
 * iterations, MPI_Barrier. Usage: soak SECONDS. Rank 0 decides when to stop (broadcast each
 * iteration), so all ranks run the same number of iterations. Rank 0 prints
 * "soak: ranks=<n> iterations=<i> errors=0" (errors counts wrong payloads and sums).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    static int out[N], in_left[N], in_right[N];
    long iterations = 0, errors = 0;
    double start = MPI_Wtime();
    int go = 1;
    while (go) {
        for (int i = 0; i < N; i++) {
            out[i] = (int)(rank * 1000003L + iterations * 7 + i);
        }
        MPI_Request req[4];
        MPI_Irecv(in_left, N, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(in_right, N, MPI_INT, right, 2, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(out, N, MPI_INT, right, 1, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(out, N, MPI_INT, left, 2, MPI_COMM_WORLD, &req[3]);
        MPI_Status st[4];
        MPI_Waitall(4, req, st);
        for (int i = 0; i < N; i++) {
            errors += in_left[i] != (int)(left * 1000003L + iterations * 7 + i);
            errors += in_right[i] != (int)(right * 1000003L + iterations * 7 + i);
        }
        long one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        errors += sum != size;
        if (iterations % 64 == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
        }
        iterations++;
        go = MPI_Wtime() - start < seconds;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    long total = 0;
    MPI_Reduce(&errors, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("soak: ranks=%d iterations=%ld errors=%ld\n", size, iterations, total);
    }
    MPI_Finalize();
    return total != 0;
}
