/*
 * fpstate: what a program sees of its floating-point environment around MPI (x86-64), 2 ranks.
 * Prints, on each rank:
 *   "fpstate rank R init mxcsr=M x87cw=W x87sw=S"  after MPI_Init: the whole MXCSR (control and
 *       the status flags MPI_Init left), the x87 control and status words;
 *   "fpstate rank R calls mxcsr=M x87sw=S"  after clearing the flags and making 1000
 *       MPI_Comm_rank, an MPI_Allreduce of a double and an MPI_Wtime;
 *   "fpstate rank R towardzero sum=X mxcsr=M"  an MPI_Allreduce (sum) of 1 and 2^-53 + 2^-105
 *       with MXCSR rounding toward zero: 0x1p+0 when the library computes under the program's
 *       rounding, 0x1.0000000000001p+0 under round-to-nearest; then the flags it raised (inexact);
 *   "fpstate rank R daz sum=X mxcsr=M"  an MPI_Allreduce (sum) of two denormals with
 *       denormals-are-zero and flush-to-zero set: 0x0p+0 under the program's MXCSR.
 * Elsewhere than x86-64 it prints "fpstate: not x86-64".
 */
#include <mpi.h>
#include <stdio.h>

#if defined(__x86_64__)
static unsigned mxcsr(void)
{
    unsigned m;
    __asm__ volatile("stmxcsr %0" : "=m"(m));
    return m;
}

static void set_mxcsr(unsigned m)
{
    __asm__ volatile("ldmxcsr %0" : : "m"(m));
}

/* An allreduce (sum) of `mine` under MXCSR `control` (flags cleared first); the MXCSR after it. */
static double sum_under(unsigned control, double mine, unsigned *after)
{
    unsigned before = mxcsr();
    double sum = 0.0;
    set_mxcsr(control & ~0x3fu);
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    *after = mxcsr();
    set_mxcsr(before);
    return sum;
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#if defined(__x86_64__)
    unsigned short cw, sw;
    unsigned m = mxcsr();
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    __asm__ volatile("fnstsw %0" : "=m"(sw));
    printf("fpstate rank %d init mxcsr=0x%x x87cw=0x%x x87sw=0x%x\n", rank, m, cw, sw);
    unsigned control = m & ~0x3fu;
    set_mxcsr(control);
    __asm__ volatile("fnclex");
    for (int i = 0; i < 1000; i++) {
        int r;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    }
    double x = 1.0, y = 0.0;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    volatile double t = MPI_Wtime();
    (void)t;
    m = mxcsr();
    __asm__ volatile("fnstsw %0" : "=m"(sw));
    printf("fpstate rank %d calls mxcsr=0x%x x87sw=0x%x\n", rank, m, sw);

    unsigned after;
    double sum = sum_under(control | 0x6000u, rank == 0 ? 1.0 : 0x1.0000000000001p-53, &after);
    printf("fpstate rank %d towardzero sum=%a mxcsr=0x%x\n", rank, sum, after);
    sum = sum_under(control | 0x8040u, 0x1p-1060, &after);
    printf("fpstate rank %d daz sum=%a mxcsr=0x%x\n", rank, sum, after);
#else
    printf("fpstate: not x86-64\n");
#endif
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
