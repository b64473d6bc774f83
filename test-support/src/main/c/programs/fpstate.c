/*
 * fpstate: what a program sees of its floating-point environment around MPI (x86-64). Prints, on
 * each rank:
 *   "fpstate rank R init control=C denormal=D x87cw=W"  after MPI_Init: MXCSR's control bits
 *       (rounding, flush-to-zero, masks), its denormal status flag, the x87 control word;
 *   "fpstate rank R calls mxcsr=M x87sw=S"  after clearing the flags and making 1000 MPI_Comm_rank
 *       and an MPI_Allreduce of a double: the whole MXCSR and the x87 status word.
 * Elsewhere than x86-64 it prints "fpstate: not x86-64".
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#if defined(__x86_64__)
    unsigned int mxcsr;
    unsigned short cw, sw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    printf("fpstate rank %d init control=0x%x denormal=%u x87cw=0x%x\n", rank, mxcsr & ~0x3fu, (mxcsr >> 1) & 1u, cw);
    unsigned int cleared = mxcsr & ~0x3fu;
    __asm__ volatile("ldmxcsr %0" : : "m"(cleared));
    __asm__ volatile("fnclex");
    for (int i = 0; i < 1000; i++) {
        int r;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    }
    double x = 1.0, y = 0.0;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstsw %0" : "=m"(sw));
    printf("fpstate rank %d calls mxcsr=0x%x x87sw=0x%x\n", rank, mxcsr, sw);
#else
    printf("fpstate: not x86-64\n");
#endif
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
