/*
 * hwcloop.c - a compute loop with a known instruction count between MPI calls, for the hwc tool.
 *   hwcloop ITERS N
 * Each of ITERS rounds runs N iterations of a fixed asm block of HWC_BLOCK instructions (4 integer
 * adds, 2 addsd, 2 mulsd, dec, jnz: HWC_FLOPS floating-point operations) and then an MPI_Allreduce
 * and an MPI_Barrier. Application instructions per rank: ITERS x N x 10 plus a few hundred of the
 * loop's own; floating-point operations: ITERS x N x 4.
 *   hwcloop ITERS N times
 * also prints, per rank, the CPU time (CLOCK_THREAD_CPUTIME_ID) the program spent in its loop and
 * in its MPI calls: "hwcloop rank R app_s=... mpi_s=..." (the program's own timing, for the hwc
 * tool's software-event split).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HWC_BLOCK 10
#define HWC_FLOPS 4

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void block(long n)
{
    double x = 1.0, y = 1.0000001;
    long a = 0, b = 0;
    __asm__ __volatile__(
        "1:\n\t"
        "add $1, %[a]\n\t"
        "add $2, %[b]\n\t"
        "add $3, %[a]\n\t"
        "add $4, %[b]\n\t"
        "addsd %[y], %[x]\n\t"
        "mulsd %[y], %[x]\n\t"
        "addsd %[y], %[x]\n\t"
        "mulsd %[y], %[x]\n\t"
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        : [a] "+r"(a), [b] "+r"(b), [x] "+x"(x), [n] "+r"(n)
        : [y] "x"(y)
        : "cc");
    if (a + b == 42 && x < 0) { /* keeps the results alive */
        puts("unlikely");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 10;
    long n = argc > 2 ? atol(argv[2]) : 1000000;
    int times = argc > 3 && strcmp(argv[3], "times") == 0;
    double app = 0, in_mpi = 0;
    for (int i = 0; i < iters; i++) {
        double t0 = cpu_s();
        block(n);
        double t1 = cpu_s();
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        app += t1 - t0;
        in_mpi += cpu_s() - t1;
    }
    if (times) {
        printf("hwcloop rank %d app_s=%.6f mpi_s=%.6f\n", rank, app, in_mpi);
    }
    if (rank == 0) {
        printf("hwcloop ranks=%d iters=%d n=%ld ok\n", size, iters, n);
    }
    MPI_Finalize();
    return 0;
}
