/*
 * colls: every blocking and non-blocking collective of MPI_COMM_WORLD, with and without
 * MPI_IN_PLACE where the standard allows it, with known counts; results are checked.
 *   colls [C=10]
 * Four rounds, in this order: blocking, blocking in place, non-blocking (each I-form completed at
 * once by one MPI_Wait), non-blocking in place. The plain rounds use the base count c = C, the in
 * place rounds c = 2C. Root (rooted collectives): the last rank, n-1. Per round, in this order
 * (MPI_INT unless said; MPI_Bcast and MPI_Barrier only in the plain rounds):
 *   Bcast(c)  Gather(c)  Gatherv(rank i sends c+i)  Scatter(c)  Scatterv(rank i gets c+i)
 *   Allgather(c)  Allgatherv(rank i sends c+i)  Alltoall(c per peer)
 *   Alltoallv(i sends c+i+2j to j; in place c+i+j)
 *   Alltoallw(i sends c+i+2j to j; in place c+i+j; type MPI_INT if i+j is even, else MPI_DOUBLE,
 *             but MPI_INT throughout in the non-blocking in-place round)
 *   Reduce(c, SUM)  Allreduce(c)  Reduce_scatter(rank i gets c+i)  Reduce_scatter_block(c)
 *   Scan(c)  Exscan(c)  Barrier
 * In place: the root for Gather(v)/Scatter(v)/Reduce, every rank for the others; the send count
 * and type the standard says are then ignored are given wrong on purpose (c+5, MPI_INT).
 * Every rank prints "colls rank R ok" (or "colls rank R FAILED <what>").
 * MPI calls besides: MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W MPI_COMM_WORLD
/* Blocking form, or the non-blocking one and an MPI_Wait. */
#define RUN(B, I, ...)                                                                                             \
    do {                                                                                                           \
        if (nb) {                                                                                                  \
            MPI_Request q_;                                                                                        \
            MPI_##I(__VA_ARGS__, &q_);                                                                             \
            MPI_Wait(&q_, MPI_STATUS_IGNORE);                                                                      \
        } else {                                                                                                   \
            MPI_##B(__VA_ARGS__);                                                                                  \
        }                                                                                                          \
    } while (0)

static int rank, n, root, nb, inplace;
static char failed[4096];

static void check(int ok, const char *what)
{
    if (!ok && strlen(failed) + strlen(what) + 32 < sizeof failed) {
        char tmp[128];
        snprintf(tmp, sizeof tmp, " %.60s(nb=%d,inplace=%d)", what, nb, inplace);
        if (!strstr(failed, tmp)) {
            strcat(failed, tmp);
        }
    }
}

/* Element k of what rank i contributes, and element k of what rank i sends to rank j. */
static int val(int i, int k)
{
    return i * 100000 + k;
}

static int x(int i, int j, int k)
{
    return i * 100000 + j * 1000 + k;
}

static int *ints(size_t count)
{
    int *p = malloc(sizeof(int) * (count ? count : 1));
    for (size_t k = 0; k < count; k++) {
        p[k] = -1;
    }
    return p;
}

/* MPI_Alltoallw's type from rank i to rank j (MPI_INT only in the non-blocking in-place round:
 * MPICH 4.0.2's MPI_Ialltoallw in place fails an assertion in its unpacking with mixed types). */
static int mixed(int i, int j)
{
    return (i + j) % 2 == 1 && !(nb && inplace);
}

static MPI_Datatype wtype(int i, int j)
{
    return mixed(i, j) ? MPI_DOUBLE : MPI_INT;
}

static int wsize(int i, int j)
{
    return mixed(i, j) ? (int)sizeof(double) : (int)sizeof(int);
}

static void put(char *p, MPI_Datatype t, int k, int v)
{
    if (t == MPI_INT) {
        ((int *)p)[k] = v;
    } else {
        ((double *)p)[k] = v;
    }
}

static int get(const char *p, MPI_Datatype t, int k)
{
    return t == MPI_INT ? ((const int *)p)[k] : (int)((const double *)p)[k];
}

static void round_of(int C)
{
    int c = inplace ? 2 * C : C;
    int me = rank;
    int *cnt = malloc(sizeof(int) * (size_t)n), *dsp = malloc(sizeof(int) * (size_t)n);
    int total = 0;
    for (int i = 0; i < n; i++) {
        cnt[i] = c + i;
        dsp[i] = total;
        total += cnt[i];
    }
    int *s, *r;

    if (!inplace) {
        r = ints((size_t)c);
        for (int k = 0; k < c && me == root; k++) {
            r[k] = val(root, k);
        }
        RUN(Bcast, Ibcast, r, c, MPI_INT, root, W);
        for (int k = 0; k < c; k++) {
            check(r[k] == val(root, k), "Bcast");
        }
        free(r);
    }

    /* Gather */
    s = ints((size_t)c);
    r = ints((size_t)n * c);
    for (int k = 0; k < c; k++) {
        s[k] = val(me, k);
    }
    if (inplace && me == root) {
        memcpy(r + (size_t)root * c, s, sizeof(int) * (size_t)c);
        RUN(Gather, Igather, MPI_IN_PLACE, c + 5, MPI_INT, r, c, MPI_INT, root, W);
    } else {
        RUN(Gather, Igather, s, c, MPI_INT, r, c, MPI_INT, root, W);
    }
    for (int i = 0; i < n && me == root; i++) {
        for (int k = 0; k < c; k++) {
            check(r[(size_t)i * c + k] == val(i, k), "Gather");
        }
    }
    free(s);
    free(r);

    /* Gatherv */
    s = ints((size_t)cnt[me]);
    r = ints((size_t)total);
    for (int k = 0; k < cnt[me]; k++) {
        s[k] = val(me, k);
    }
    if (inplace && me == root) {
        memcpy(r + dsp[root], s, sizeof(int) * (size_t)cnt[root]);
        RUN(Gatherv, Igatherv, MPI_IN_PLACE, c + 5, MPI_INT, r, cnt, dsp, MPI_INT, root, W);
    } else {
        RUN(Gatherv, Igatherv, s, cnt[me], MPI_INT, r, cnt, dsp, MPI_INT, root, W);
    }
    for (int i = 0; i < n && me == root; i++) {
        for (int k = 0; k < cnt[i]; k++) {
            check(r[dsp[i] + k] == val(i, k), "Gatherv");
        }
    }
    free(s);
    free(r);

    /* Scatter */
    s = ints((size_t)n * c);
    r = ints((size_t)c);
    for (int i = 0; i < n && me == root; i++) {
        for (int k = 0; k < c; k++) {
            s[(size_t)i * c + k] = val(i, k);
        }
    }
    if (inplace && me == root) {
        RUN(Scatter, Iscatter, s, c, MPI_INT, MPI_IN_PLACE, c + 5, MPI_INT, root, W);
        memcpy(r, s + (size_t)root * c, sizeof(int) * (size_t)c);
    } else {
        RUN(Scatter, Iscatter, s, c, MPI_INT, r, c, MPI_INT, root, W);
    }
    for (int k = 0; k < c; k++) {
        check(r[k] == val(me, k), "Scatter");
    }
    free(s);
    free(r);

    /* Scatterv */
    s = ints((size_t)total);
    r = ints((size_t)cnt[me]);
    for (int i = 0; i < n && me == root; i++) {
        for (int k = 0; k < cnt[i]; k++) {
            s[dsp[i] + k] = val(i, k);
        }
    }
    if (inplace && me == root) {
        RUN(Scatterv, Iscatterv, s, cnt, dsp, MPI_INT, MPI_IN_PLACE, c + 5, MPI_INT, root, W);
        memcpy(r, s + dsp[root], sizeof(int) * (size_t)cnt[root]);
    } else {
        RUN(Scatterv, Iscatterv, s, cnt, dsp, MPI_INT, r, cnt[me], MPI_INT, root, W);
    }
    for (int k = 0; k < cnt[me]; k++) {
        check(r[k] == val(me, k), "Scatterv");
    }
    free(s);
    free(r);

    /* Allgather */
    s = ints((size_t)c);
    r = ints((size_t)n * c);
    for (int k = 0; k < c; k++) {
        s[k] = val(me, k);
    }
    if (inplace) {
        memcpy(r + (size_t)me * c, s, sizeof(int) * (size_t)c);
        RUN(Allgather, Iallgather, MPI_IN_PLACE, c + 5, MPI_INT, r, c, MPI_INT, W);
    } else {
        RUN(Allgather, Iallgather, s, c, MPI_INT, r, c, MPI_INT, W);
    }
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < c; k++) {
            check(r[(size_t)i * c + k] == val(i, k), "Allgather");
        }
    }
    free(s);
    free(r);

    /* Allgatherv */
    s = ints((size_t)cnt[me]);
    r = ints((size_t)total);
    for (int k = 0; k < cnt[me]; k++) {
        s[k] = val(me, k);
    }
    if (inplace) {
        memcpy(r + dsp[me], s, sizeof(int) * (size_t)cnt[me]);
        RUN(Allgatherv, Iallgatherv, MPI_IN_PLACE, c + 5, MPI_INT, r, cnt, dsp, MPI_INT, W);
    } else {
        RUN(Allgatherv, Iallgatherv, s, cnt[me], MPI_INT, r, cnt, dsp, MPI_INT, W);
    }
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < cnt[i]; k++) {
            check(r[dsp[i] + k] == val(i, k), "Allgatherv");
        }
    }
    free(s);
    free(r);

    /* Alltoall */
    s = ints((size_t)n * c);
    r = ints((size_t)n * c);
    for (int j = 0; j < n; j++) {
        for (int k = 0; k < c; k++) {
            (inplace ? r : s)[(size_t)j * c + k] = x(me, j, k);
        }
    }
    if (inplace) {
        RUN(Alltoall, Ialltoall, MPI_IN_PLACE, c + 5, MPI_INT, r, c, MPI_INT, W);
    } else {
        RUN(Alltoall, Ialltoall, s, c, MPI_INT, r, c, MPI_INT, W);
    }
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < c; k++) {
            check(r[(size_t)i * c + k] == x(i, me, k), "Alltoall");
        }
    }
    free(s);
    free(r);

    /* Alltoallv: i sends c+i+2j to j (in place: c+i+j, symmetric as the standard needs) */
    {
        int *sc = malloc(sizeof(int) * (size_t)n), *sd = malloc(sizeof(int) * (size_t)n);
        int *rc = malloc(sizeof(int) * (size_t)n), *rd = malloc(sizeof(int) * (size_t)n);
        int st = 0, rt = 0;
        for (int j = 0; j < n; j++) {
            sc[j] = inplace ? c + me + j : c + me + 2 * j;
            rc[j] = inplace ? c + j + me : c + j + 2 * me;
            sd[j] = st;
            rd[j] = rt;
            st += sc[j];
            rt += rc[j];
        }
        s = ints((size_t)st);
        r = ints((size_t)rt);
        for (int j = 0; j < n; j++) {
            for (int k = 0; k < (inplace ? rc[j] : sc[j]); k++) {
                (inplace ? r + rd[j] : s + sd[j])[k] = x(me, j, k);
            }
        }
        if (inplace) {
            RUN(Alltoallv, Ialltoallv, MPI_IN_PLACE, sc, sd, MPI_INT, r, rc, rd, MPI_INT, W);
        } else {
            RUN(Alltoallv, Ialltoallv, s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, W);
        }
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < rc[i]; k++) {
                check(r[rd[i] + k] == x(i, me, k), "Alltoallv");
            }
        }
        free(s);
        free(r);

        /* Alltoallw: the same counts, per-pair types, byte displacements */
        MPI_Datatype stypes[64], rtypes[64];
        int sb = 0, rb = 0;
        for (int j = 0; j < n && j < 64; j++) {
            stypes[j] = wtype(me, j);
            rtypes[j] = wtype(j, me);
            sd[j] = sb;
            rd[j] = rb;
            sb += sc[j] * wsize(me, j);
            rb += rc[j] * wsize(j, me);
        }
        char *sw = calloc((size_t)sb + 8, 1), *rw = calloc((size_t)rb + 8, 1);
        for (int j = 0; j < n; j++) {
            for (int k = 0; k < (inplace ? rc[j] : sc[j]); k++) {
                if (inplace) {
                    put(rw + rd[j], rtypes[j], k, x(me, j, k));
                } else {
                    put(sw + sd[j], stypes[j], k, x(me, j, k));
                }
            }
        }
        if (inplace) {
            RUN(Alltoallw, Ialltoallw, MPI_IN_PLACE, sc, sd, stypes, rw, rc, rd, rtypes, W);
        } else {
            RUN(Alltoallw, Ialltoallw, sw, sc, sd, stypes, rw, rc, rd, rtypes, W);
        }
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < rc[i]; k++) {
                check(get(rw + rd[i], rtypes[i], k) == x(i, me, k), "Alltoallw");
            }
        }
        free(sw);
        free(rw);
        free(sc);
        free(sd);
        free(rc);
        free(rd);
    }

    /* Reduce, Allreduce, Scan, Exscan: element k of rank i is val(i, k) */
    long base = 0;
    for (int i = 0; i < n; i++) {
        base += val(i, 0);
    }
    s = ints((size_t)c);
    r = ints((size_t)c);
    for (int k = 0; k < c; k++) {
        (inplace && me == root ? r : s)[k] = val(me, k);
    }
    if (inplace && me == root) {
        RUN(Reduce, Ireduce, MPI_IN_PLACE, r, c, MPI_INT, MPI_SUM, root, W);
    } else {
        RUN(Reduce, Ireduce, s, r, c, MPI_INT, MPI_SUM, root, W);
    }
    for (int k = 0; k < c && me == root; k++) {
        check(r[k] == base + (long)n * k, "Reduce");
    }
    for (int k = 0; k < c; k++) {
        s[k] = -1;
        r[k] = -1;
        (inplace ? r : s)[k] = val(me, k);
    }
    if (inplace) {
        RUN(Allreduce, Iallreduce, MPI_IN_PLACE, r, c, MPI_INT, MPI_SUM, W);
    } else {
        RUN(Allreduce, Iallreduce, s, r, c, MPI_INT, MPI_SUM, W);
    }
    for (int k = 0; k < c; k++) {
        check(r[k] == base + (long)n * k, "Allreduce");
    }
    free(s);
    free(r);

    /* Reduce_scatter: element k (of `total`) of rank i is i*100000 + k; rank i gets cnt[i] */
    s = ints((size_t)total);
    r = ints((size_t)total);
    for (int k = 0; k < total; k++) {
        (inplace ? r : s)[k] = val(me, k);
    }
    if (inplace) {
        RUN(Reduce_scatter, Ireduce_scatter, MPI_IN_PLACE, r, cnt, MPI_INT, MPI_SUM, W);
    } else {
        RUN(Reduce_scatter, Ireduce_scatter, s, r, cnt, MPI_INT, MPI_SUM, W);
    }
    for (int k = 0; k < cnt[me]; k++) {
        check(r[k] == base + (long)n * (dsp[me] + k), "Reduce_scatter");
    }
    for (int k = 0; k < total; k++) {
        s[k] = r[k] = -1;
        (inplace ? r : s)[k] = val(me, k);
    }
    if (inplace) {
        RUN(Reduce_scatter_block, Ireduce_scatter_block, MPI_IN_PLACE, r, c, MPI_INT, MPI_SUM, W);
    } else {
        RUN(Reduce_scatter_block, Ireduce_scatter_block, s, r, c, MPI_INT, MPI_SUM, W);
    }
    for (int k = 0; k < c; k++) {
        check(r[k] == base + (long)n * ((long)me * c + k), "Reduce_scatter_block");
    }
    free(s);
    free(r);

    /* Scan, Exscan */
    s = ints((size_t)c);
    r = ints((size_t)c);
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < c; k++) {
            s[k] = r[k] = -1;
            (inplace ? r : s)[k] = val(me, k);
        }
        int upto = pass == 0 ? me : me - 1; /* the last rank whose value is in the result */
        if (pass == 0) {
            if (inplace) {
                RUN(Scan, Iscan, MPI_IN_PLACE, r, c, MPI_INT, MPI_SUM, W);
            } else {
                RUN(Scan, Iscan, s, r, c, MPI_INT, MPI_SUM, W);
            }
        } else {
            if (inplace) {
                RUN(Exscan, Iexscan, MPI_IN_PLACE, r, c, MPI_INT, MPI_SUM, W);
            } else {
                RUN(Exscan, Iexscan, s, r, c, MPI_INT, MPI_SUM, W);
            }
        }
        for (int k = 0; k < c && upto >= 0; k++) {
            long want = 0;
            for (int i = 0; i <= upto; i++) {
                want += val(i, k);
            }
            check(r[k] == want, pass == 0 ? "Scan" : "Exscan");
        }
    }
    free(s);
    free(r);

    if (!inplace) {
        if (nb) {
            MPI_Request q;
            MPI_Ibarrier(W, &q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        } else {
            MPI_Barrier(W);
        }
    }
    free(cnt);
    free(dsp);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &n);
    int C = argc > 1 ? atoi(argv[1]) : 10;
    root = n - 1;
    for (nb = 0; nb < 2; nb++) {
        for (inplace = 0; inplace < 2; inplace++) {
            round_of(C);
        }
    }
    printf("colls rank %d %s%s\n", rank, failed[0] ? "FAILED" : "ok", failed);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
