/* bench.h - the clock and the median the benchmarks' C programs share. */
#ifndef JPMPI_BENCH_H
#define JPMPI_BENCH_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BENCH_MAX_ROUNDS = 1001 };

static inline double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n), 0 < n <= BENCH_MAX_ROUNDS; v is left as it was. */
static inline double median(const double *v, int n)
{
    double tmp[BENCH_MAX_ROUNDS];
    memcpy(tmp, v, sizeof(double) * (size_t)n);
    qsort(tmp, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

#endif
