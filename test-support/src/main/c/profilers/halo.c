/*
 * halo: non-blocking 1-D periodic halo exchange, every completion path.
 *   halo [iters=10] [doubles=100]
 * One phase per completion function, `iters` exchanges each, in this order: MPI_Waitall,
 * MPI_Waitany, MPI_Waitsome, MPI_Wait, MPI_Testall, MPI_Testany, MPI_Testsome, MPI_Test. An
 * exchange posts, in this order, MPI_Irecv from the left (tag 1), MPI_Irecv from the right (tag 2),
 * MPI_Isend to the right (tag 1), MPI_Isend to the left (tag 2), `doubles` doubles each, and
 * completes the four requests with the phase's function: Waitall once; Waitany 4 times;
 * Waitsome, Testall, Testany, Testsome and Test as often as needed, which the program counts.
 * Every rank prints "halo rank R waitsome=A testall=B testany=C testsome=D test=E ok" with the
 * number of calls it made of each (FAILED instead of ok if some halo had the wrong values).
 * MPI calls besides: MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { WAITALL, WAITANY, WAITSOME, WAIT, TESTALL, TESTANY, TESTSOME, TEST, PHASES };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 10;
    int m = argc > 2 ? atoi(argv[2]) : 100;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    size_t bytes = sizeof(double) * (size_t)(m > 0 ? m : 1);
    double *from_left = malloc(bytes), *from_right = malloc(bytes), *to_right = malloc(bytes),
           *to_left = malloc(bytes);
    long waitsome = 0, testall = 0, testany = 0, testsome = 0, test = 0;
    int bad = 0;
    for (int phase = 0; phase < PHASES; phase++) {
        for (int it = 0; it < iters; it++) {
            double stamp = phase * 1000.0 + it;
            for (int j = 0; j < m; j++) {
                to_right[j] = rank * 1e6 + stamp + j;
                to_left[j] = -(rank * 1e6 + stamp + j);
                from_left[j] = from_right[j] = 0.5;
            }
            MPI_Request r[4];
            MPI_Status st[4];
            MPI_Irecv(from_left, m, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[0]);
            MPI_Irecv(from_right, m, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &r[1]);
            MPI_Isend(to_right, m, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[2]);
            MPI_Isend(to_left, m, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &r[3]);
            int done = 0, flag = 0, idx, n, ids[4];
            switch (phase) {
            case WAITALL:
                MPI_Waitall(4, r, st);
                break;
            case WAITANY:
                for (int k = 0; k < 4; k++) {
                    MPI_Waitany(4, r, &idx, MPI_STATUS_IGNORE);
                }
                break;
            case WAITSOME:
                while (done < 4) {
                    MPI_Waitsome(4, r, &n, ids, st);
                    waitsome++;
                    done += n == MPI_UNDEFINED ? 0 : n;
                }
                break;
            case WAIT:
                for (int k = 0; k < 4; k++) {
                    MPI_Wait(&r[k], MPI_STATUS_IGNORE);
                }
                break;
            case TESTALL:
                while (!flag) {
                    MPI_Testall(4, r, &flag, st);
                    testall++;
                }
                break;
            case TESTANY:
                while (done < 4) {
                    MPI_Testany(4, r, &idx, &flag, MPI_STATUS_IGNORE);
                    testany++;
                    done += flag && idx != MPI_UNDEFINED;
                }
                break;
            case TESTSOME:
                while (done < 4) {
                    MPI_Testsome(4, r, &n, ids, st);
                    testsome++;
                    done += n == MPI_UNDEFINED ? 0 : n;
                }
                break;
            case TEST:
                for (int k = 0; k < 4; k++) {
                    flag = 0;
                    while (!flag) {
                        MPI_Test(&r[k], &flag, MPI_STATUS_IGNORE);
                        test++;
                    }
                }
                break;
            }
            for (int j = 0; j < m; j++) {
                bad += from_left[j] != left * 1e6 + stamp + j;
                bad += from_right[j] != -(right * 1e6 + stamp + j);
            }
        }
    }
    printf("halo rank %d waitsome=%ld testall=%ld testany=%ld testsome=%ld test=%ld %s\n", rank, waitsome, testall,
           testany, testsome, test, bad ? "FAILED" : "ok");
    fflush(stdout);
    free(from_left);
    free(from_right);
    free(to_right);
    free(to_left);
    MPI_Finalize();
    return 0;
}
