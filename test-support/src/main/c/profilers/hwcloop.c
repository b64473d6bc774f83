/*
 * hwcloop.c - a compute loop with a known instruction count between MPI calls, for the hwc tool.
 *   hwcloop ITERS N
 * Each of ITERS rounds runs N iterations of a fixed asm block of HWC_BLOCK instructions (4 integer
 * adds, 2 addsd, 2 mulsd, dec, jnz: HWC_FLOPS floating-point operations) and then an MPI_Allreduce
 * and an MPI_Barrier. Application instructions per rank: ITERS x N x 10 plus a few hundred of the
 * loop's own; floating-point operations: ITERS x N x 4.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define HWC_BLOCK 10
#define HWC_FLOPS 4

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
    for (int i = 0; i < iters; i++) {
        block(n);
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) {
        printf("hwcloop ranks=%d iters=%d n=%ld ok\n", size, iters, n);
    }
    MPI_Finalize();
    return 0;
}
