/*
 * mxcsr: what reading and loading MXCSR cost on this CPU, the price of keeping an application's
 * floating-point state across a Java level (layering/README.md, "Floating-point state": two
 * stmxcsr and at most two ldmxcsr per call). Prints ns per instruction, median of ROUNDS blocks.
 *   target/<impl>/mxcsr [CALLS-PER-BLOCK] [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include "../bench.h"

int main(int argc, char **argv)
{
#if defined(__x86_64__)
    long calls = argc > 1 ? atol(argv[1]) : 10000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 11;
    if (calls < 1 || rounds < 1 || rounds > BENCH_MAX_ROUNDS) {
        fprintf(stderr, "usage: %s [CALLS-PER-BLOCK >= 1] [ROUNDS 1..1001]\n", argv[0]);
        return 2;
    }
    double st[BENCH_MAX_ROUNDS], ld[BENCH_MAX_ROUNDS], none[BENCH_MAX_ROUNDS];
    unsigned m = 0, sum = 0;
    for (int r = 0; r < rounds; r++) {
        double t0 = now_ns();
        for (long i = 0; i < calls; i++) {
            __asm__ volatile("stmxcsr %0" : "=m"(m));
            sum += m;
        }
        double t1 = now_ns();
        for (long i = 0; i < calls; i++) {
            __asm__ volatile("ldmxcsr %0" : : "m"(m));
            sum += (unsigned)i;
        }
        double t2 = now_ns();
        for (long i = 0; i < calls; i++) {
            __asm__ volatile("" : : : "memory");
            sum += (unsigned)i;
        }
        double t3 = now_ns();
        st[r] = (t1 - t0) / calls;
        ld[r] = (t2 - t1) / calls;
        none[r] = (t3 - t2) / calls;
    }
    printf("stmxcsr %.2f ns, ldmxcsr %.2f ns, empty loop %.2f ns per iteration (median of %d x %ld; %u)\n",
           median(st, rounds), median(ld, rounds), median(none, rounds), rounds, calls, sum & 1u);
    return 0;
#else
    (void)argc;
    (void)argv;
    printf("mxcsr: not x86-64\n");
    return 0;
#endif
}
