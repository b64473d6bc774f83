/*
 * rec_colls.c - the profile recorder's collectives: the bytes each rank sends and receives, and the
 * pairwise messages of intra-communicator collectives in the matrix (inter-communicators and
 * neighbourhood collectives: bytes only).
 */
#define _GNU_SOURCE
#include "recorder_private.h"


/* ---------------------------------------------------------------- collectives */

struct jp_comm {
    int size, rank, inter;
};

static int jp_comm_info(MPI_Comm comm, struct jp_comm *ci)
{
    ci->inter = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &ci->inter) != MPI_SUCCESS) {
        return 0;
    }
    if (PMPI_Comm_rank(comm, &ci->rank) != MPI_SUCCESS) {
        return 0;
    }
    int rc = ci->inter ? PMPI_Comm_remote_size(comm, &ci->size) : PMPI_Comm_size(comm, &ci->size);
    return rc == MPI_SUCCESS;
}

static int64_t jp_at(const void *counts, size_t w, int i)
{
    if (!counts) {
        return 0;
    }
    return w == sizeof(int) ? ((const int *)counts)[i] : (int64_t)((const MPI_Count *)counts)[i];
}

/*
 * A collective call's own figures (snapshot version 3): its per-call buffer bytes (mpiP's "message
 * size": the count and type of the buffer the calling rank gives, PROFILE.md "Buffer bytes of
 * collectives"), and the call and its time in the log2 bucket of its communicator's size (the remote
 * group's for an inter-communicator), which jp_comm_info has just asked for: no MPI call more. The
 * time is the call's weight as jp_end adds it (jp_sampled: d x n for a sampled function, whose n
 * jp_end has not changed yet). Not at a persistent collective's set-up: its starts are its calls.
 */
static void jp_coll(struct jp_call *c, const struct jp_comm *ci, int64_t buf)
{
    if (!c->on || c->nomatrix) {
        return;
    }
    struct jp_thread *t = c->t;
    int id = c->id;
    t->cbuf[id] += buf > 0 ? (uint64_t)buf : 0;
    int k = ci->size > 1 ? 31 - __builtin_clz((unsigned)ci->size) : 0;
    k = k < JP_CBUCKETS ? k : JP_CBUCKETS - 1;
    t->ccalls[id][k]++;
    if (c->t0) {
        uint64_t n = t->f[id].n;
        t->cticks[id][k] += (c->t1 - c->t0) * (n > 1 ? n : 1);
    }
}

void jp_barrier(struct jp_call *c, MPI_Comm comm)
{
    struct jp_comm ci;
    if (jp_comm_info(comm, &ci)) {
        jp_coll(c, &ci, 0);
    }
}

/* Rank `me` of an intra-communicator sends `bytes` to comm rank `to`. */
static void jp_pair(struct jp_call *c, MPI_Comm comm, const struct jp_comm *ci, int to, int64_t bytes)
{
    if (to == ci->rank || ci->inter) {
        return;
    }
    c->sent += bytes;
    jp_matrix(c, jp_world(c->t, comm, to), bytes);
}

void jp_bcast(struct jp_call *c, int64_t count, MPI_Datatype t, int root, MPI_Comm comm)
{
    struct jp_comm ci;
    if (!jp_comm_info(comm, &ci)) {
        return;
    }
    jp_coll(c, &ci, root == MPI_PROC_NULL ? 0 : count * jp_tsize(c, t));
    if (ci.inter) {
        /* root passes MPI_ROOT, the other processes of its group MPI_PROC_NULL */
        if (root == MPI_ROOT) {
            c->sent += count * jp_tsize(c, t) * ci.size;
        } else if (root >= 0) {
            c->recv += count * jp_tsize(c, t);
        }
        return;
    }
    int64_t b = count * jp_tsize(c, t);
    if (ci.rank == root) {
        for (int i = 0; i < ci.size; i++) {
            jp_pair(c, comm, &ci, i, b);
        }
    } else {
        c->recv += b;
    }
}

/*
 * The count arguments of a collective: an array of int or MPI_Count (the v forms), or one count
 * for every process (the plain forms, a == NULL). Each family below has one body for both forms.
 */
struct jp_counts {
    const void *a;
    size_t w;
    int64_t all;
};

static struct jp_counts jp_each(int64_t count)
{
    return (struct jp_counts){NULL, 0, count};
}

static struct jp_counts jp_array(const void *a, size_t w)
{
    return (struct jp_counts){a, w, 0};
}

static int64_t jp_count(struct jp_counts k, int i)
{
    return k.a ? jp_at(k.a, k.w, i) : k.all;
}

/* The sum of the counts of processes 0..n-1 except `skip` (-1: none). */
static int64_t jp_sum(struct jp_counts k, int n, int skip)
{
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        sum += i == skip ? 0 : jp_count(k, i);
    }
    return sum;
}

/* Gather(v): every process sends its block to the root (not the root to itself). */
static void jp_gather_any(struct jp_call *c, int64_t sc, MPI_Datatype st, struct jp_counts rcs, MPI_Datatype rt,
                          int root, MPI_Comm comm)
{
    struct jp_comm ci;
    if (!jp_comm_info(comm, &ci)) {
        return;
    }
    /* the rank's block (the root's own, from the receive counts: its send arguments may be MPI_IN_PLACE's);
     * an inter-communicator's root only receives: all it receives */
    jp_coll(c, &ci, ci.inter ? (root == MPI_ROOT ? jp_sum(rcs, ci.size, -1) * jp_tsize(c, rt) : root >= 0 ? sc * jp_tsize(c, st) : 0)
                             : ci.rank == root ? jp_count(rcs, root) * jp_tsize(c, rt) : sc * jp_tsize(c, st));
    if (ci.inter) {
        if (root == MPI_ROOT) {
            c->recv += jp_sum(rcs, ci.size, -1) * jp_tsize(c, rt);
        } else if (root >= 0) {
            c->sent += sc * jp_tsize(c, st);
        }
    } else if (ci.rank == root) {
        c->recv += jp_sum(rcs, ci.size, root) * jp_tsize(c, rt);
    } else {
        jp_pair(c, comm, &ci, root, sc * jp_tsize(c, st));
    }
}

void jp_gather(struct jp_call *c, int64_t sc, MPI_Datatype st, int64_t rc, MPI_Datatype rt, int root, MPI_Comm comm)
{
    jp_gather_any(c, sc, st, jp_each(rc), rt, root, comm);
}

void jp_gatherv(struct jp_call *c, int64_t sc, MPI_Datatype st, const void *rcs, size_t w, MPI_Datatype rt, int root,
                MPI_Comm comm)
{
    jp_gather_any(c, sc, st, jp_array(rcs, w), rt, root, comm);
}

/* Scatter(v): the root sends each other process its block. */
static void jp_scatter_any(struct jp_call *c, struct jp_counts scs, MPI_Datatype st, int64_t rc, MPI_Datatype rt,
                           int root, MPI_Comm comm)
{
    struct jp_comm ci;
    if (!jp_comm_info(comm, &ci)) {
        return;
    }
    /* the root: its send buffer (one block for Scatter, all the blocks for Scatterv, as mpiP); the
     * others: the block they receive */
    int sends = ci.inter ? root == MPI_ROOT : ci.rank == root;
    jp_coll(c, &ci, sends ? (scs.a ? jp_sum(scs, ci.size, -1) : scs.all) * jp_tsize(c, st)
                          : root == MPI_PROC_NULL ? 0 : rc * jp_tsize(c, rt));
    if (ci.inter) {
        if (root == MPI_ROOT) {
            c->sent += jp_sum(scs, ci.size, -1) * jp_tsize(c, st);
        } else if (root >= 0) {
            c->recv += rc * jp_tsize(c, rt);
        }
    } else if (ci.rank == root) {
        int64_t size = jp_tsize(c, st);
        for (int i = 0; i < ci.size; i++) {
            jp_pair(c, comm, &ci, i, jp_count(scs, i) * size);
        }
    } else {
        c->recv += rc * jp_tsize(c, rt);
    }
}

void jp_scatter(struct jp_call *c, int64_t sc, MPI_Datatype st, int64_t rc, MPI_Datatype rt, int root, MPI_Comm comm)
{
    jp_scatter_any(c, jp_each(sc), st, rc, rt, root, comm);
}

void jp_scatterv(struct jp_call *c, const void *scs, size_t w, MPI_Datatype st, int64_t rc, MPI_Datatype rt, int root,
                 MPI_Comm comm)
{
    jp_scatter_any(c, jp_array(scs, w), st, rc, rt, root, comm);
}

/* Allgather(v): every process sends its block to every other (in place: its block of recvbuf). */
static void jp_allgather_any(struct jp_call *c, const void *sbuf, int64_t sc, MPI_Datatype st, struct jp_counts rcs,
                             MPI_Datatype rt, MPI_Comm comm)
{
    struct jp_comm ci;
    if (!jp_comm_info(comm, &ci)) {
        return;
    }
    int64_t rsize = jp_tsize(c, rt);
    int64_t block = sbuf == MPI_IN_PLACE ? jp_count(rcs, ci.rank) * rsize : sc * jp_tsize(c, st);
    jp_coll(c, &ci, block);
    if (ci.inter) {
        c->sent += block * ci.size;
        c->recv += jp_sum(rcs, ci.size, -1) * rsize;
        return;
    }
    for (int i = 0; i < ci.size; i++) {
        jp_pair(c, comm, &ci, i, block);
    }
    c->recv += jp_sum(rcs, ci.size, ci.rank) * rsize;
}

void jp_allgather(struct jp_call *c, const void *sbuf, int64_t sc, MPI_Datatype st, int64_t rc, MPI_Datatype rt,
                  MPI_Comm comm)
{
    jp_allgather_any(c, sbuf, sc, st, jp_each(rc), rt, comm);
}

void jp_allgatherv(struct jp_call *c, const void *sbuf, int64_t sc, MPI_Datatype st, const void *rcs, size_t w,
                   MPI_Datatype rt, MPI_Comm comm)
{
    jp_allgather_any(c, sbuf, sc, st, jp_array(rcs, w), rt, comm);
}

/* Alltoall(v): block i to process i (in place: the receive counts and type). */
static void jp_alltoall_any(struct jp_call *c, const void *sbuf, struct jp_counts scs, MPI_Datatype st,
                            struct jp_counts rcs, MPI_Datatype rt, MPI_Comm comm)
{
    struct jp_comm ci;
    if (!jp_comm_info(comm, &ci)) {
        return;
    }
    int in_place = sbuf == MPI_IN_PLACE;
    int64_t ssize = in_place ? jp_tsize(c, rt) : jp_tsize(c, st);
    int64_t rsize = jp_tsize(c, rt);
    /* Alltoall: one block (mpiP's sendcount x sendtype); Alltoallv: all it sends */
    struct jp_counts own = in_place ? rcs : scs;
    jp_coll(c, &ci, (own.a ? jp_sum(own, ci.size, -1) : own.all) * ssize);
    for (int i = 0; i < ci.size; i++) {
        int64_t s = jp_count(in_place ? rcs : scs, i) * ssize;
        if (ci.inter) {
            c->sent += s;
            c->recv += jp_count(rcs, i) * rsize;
            continue;
        }
        jp_pair(c, comm, &ci, i, s);
        c->recv += i == ci.rank ? 0 : jp_count(rcs, i) * rsize;
    }
}

void jp_alltoall(struct jp_call *c, const void *sbuf, int64_t sc, MPI_Datatype st, int64_t rc, MPI_Datatype rt,
                 MPI_Comm comm)
{
    jp_alltoall_any(c, sbuf, jp_each(sc), st, jp_each(rc), rt, comm);
}

void jp_alltoallv(struct jp_call *c, const void *sbuf, const void *scs, size_t sw, MPI_Datatype st, const void *rcs,
                  size_t rw, MPI_Datatype rt, MPI_Comm comm)
{
    jp_alltoall_any(c, sbuf, jp_array(scs, sw), st, jp_array(rcs, rw), rt, comm);
}

void jp_alltoallw(struct jp_call *c, const void *sbuf, const void *scs, size_t sw, const MPI_Datatype *sts,
                  const void *rcs, size_t rw, const MPI_Datatype *rts, MPI_Comm comm)
{
    struct jp_comm ci;
    if (!jp_comm_info(comm, &ci)) {
        return;
    }
    int in_place = sbuf == MPI_IN_PLACE;
    int64_t all = 0;
    for (int i = 0; i < ci.size; i++) {
        int64_t rb = jp_at(rcs, rw, i) > 0 ? jp_at(rcs, rw, i) * jp_tsize(c, rts[i]) : 0;
        int64_t s = in_place ? rb : (jp_at(scs, sw, i) > 0 ? jp_at(scs, sw, i) * jp_tsize(c, sts[i]) : 0);
        all += s;
        if (ci.inter) {
            c->sent += s;
            c->recv += rb;
            continue;
        }
        jp_pair(c, comm, &ci, i, s);
        c->recv += i == ci.rank ? 0 : rb;
    }
    jp_coll(c, &ci, all);
}

void jp_reduce(struct jp_call *c, int64_t count, MPI_Datatype t, int root, MPI_Comm comm)
{
    struct jp_comm ci;
    if (!jp_comm_info(comm, &ci)) {
        return;
    }
    int64_t b = count * jp_tsize(c, t);
    jp_coll(c, &ci, root == MPI_PROC_NULL ? 0 : b);
    if (ci.inter) {
        if (root == MPI_ROOT) {
            c->recv += b * ci.size;
        } else if (root >= 0) {
            c->sent += b;
        }
        return;
    }
    if (ci.rank == root) {
        c->recv += b * (ci.size - 1);
    } else {
        jp_pair(c, comm, &ci, root, b);
    }
}

void jp_allreduce(struct jp_call *c, int64_t count, MPI_Datatype t, MPI_Comm comm)
{
    struct jp_comm ci;
    if (!jp_comm_info(comm, &ci)) {
        return;
    }
    int64_t b = count * jp_tsize(c, t);
    jp_coll(c, &ci, b);
    if (ci.inter) {
        c->sent += b * ci.size;
        c->recv += b * ci.size;
        return;
    }
    for (int i = 0; i < ci.size; i++) {
        jp_pair(c, comm, &ci, i, b);
    }
    c->recv += b * (ci.size - 1);
}

void jp_reduce_scatter(struct jp_call *c, const void *rcs, size_t w, MPI_Datatype t, MPI_Comm comm)
{
    struct jp_comm ci;
    if (!jp_comm_info(comm, &ci)) {
        return;
    }
    int64_t size = jp_tsize(c, t);
    jp_coll(c, &ci, jp_sum(jp_array(rcs, w), ci.inter ? 0 : ci.size, -1) * size);
    if (ci.inter) {
        return;
    }
    for (int i = 0; i < ci.size; i++) {
        jp_pair(c, comm, &ci, i, jp_at(rcs, w, i) * size);
    }
    c->recv += jp_at(rcs, w, ci.rank) * size * (ci.size - 1);
}

void jp_reduce_scatter_block(struct jp_call *c, int64_t rc, MPI_Datatype t, MPI_Comm comm)
{
    struct jp_comm ci;
    if (!jp_comm_info(comm, &ci)) {
        return;
    }
    int64_t b = rc * jp_tsize(c, t);
    jp_coll(c, &ci, b);
    if (ci.inter) {
        return;
    }
    for (int i = 0; i < ci.size; i++) {
        jp_pair(c, comm, &ci, i, b);
    }
    c->recv += b * (ci.size - 1);
}

void jp_scan(struct jp_call *c, int64_t count, MPI_Datatype t, MPI_Comm comm, int exclusive)
{
    struct jp_comm ci;
    (void)exclusive;
    if (!jp_comm_info(comm, &ci) || ci.inter) {
        return;
    }
    int64_t b = count * jp_tsize(c, t);
    jp_coll(c, &ci, b);
    /* Rank i's result depends on ranks 0..i (0..i-1 for Exscan): rank r sends to every higher rank. */
    for (int i = ci.rank + 1; i < ci.size; i++) {
        jp_pair(c, comm, &ci, i, b);
    }
    c->recv += b * ci.rank;
}

/*
 * The neighbourhood of a topology communicator: in- and out-degree (0, 0 without a topology).
 * A Cartesian one's slots go by dimension, the negative direction first, the same neighbour in
 * both lists; at the edge of a non-periodic dimension it is MPI_PROC_NULL, to and from which
 * nothing moves (MPI 4.0, 8.6: as in point-to-point).
 */
struct jp_nbrs {
    MPI_Comm comm;
    int in, out, cart;
};

static struct jp_nbrs jp_degrees(MPI_Comm comm)
{
    struct jp_nbrs n = {comm, 0, 0, 0};
    int topo = MPI_UNDEFINED;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS) {
        return n;
    }
    if (topo == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        n.in = n.out = 2 * nd;
        n.cart = 1;
    } else if (topo == MPI_GRAPH) {
        int rank = 0;
        PMPI_Comm_rank(comm, &rank);
        PMPI_Graph_neighbors_count(comm, rank, &n.in);
        n.out = n.in;
    } else if (topo == MPI_DIST_GRAPH) {
        int weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &n.in, &n.out, &weighted);
    }
    return n;
}

/* Whether slot i of the neighbourhood moves data (not a Cartesian edge's MPI_PROC_NULL). */
static int jp_live(const struct jp_nbrs *n, int i)
{
    if (!n->cart) {
        return 1;
    }
    int neg = MPI_PROC_NULL, pos = MPI_PROC_NULL;
    if (PMPI_Cart_shift(n->comm, i / 2, 1, &neg, &pos) != MPI_SUCCESS) {
        return 1;
    }
    return (i % 2 ? pos : neg) != MPI_PROC_NULL;
}

void jp_neighbor(struct jp_call *c, int64_t sc, MPI_Datatype st, int64_t rc, MPI_Datatype rt, MPI_Comm comm)
{
    jp_neighborv(c, sc, st, NULL, sizeof(int), NULL, sizeof(int), rt, rc, comm);
}

void jp_neighborv(struct jp_call *c, int64_t sc, MPI_Datatype st, const void *scs, size_t sw, const void *rcs,
                  size_t rw, MPI_Datatype rt, int64_t rc, MPI_Comm comm)
{
    struct jp_nbrs n = jp_degrees(comm);
    int64_t s = 0, r = 0;
    for (int i = 0; i < n.out; i++) {
        s += !jp_live(&n, i) ? 0 : scs ? jp_at(scs, sw, i) : sc;
    }
    for (int i = 0; i < n.in; i++) {
        r += !jp_live(&n, i) ? 0 : rcs ? jp_at(rcs, rw, i) : rc;
    }
    c->sent += s * jp_tsize(c, st);
    c->recv += r * jp_tsize(c, rt);
}

void jp_neighborw(struct jp_call *c, const void *scs, size_t sw, const MPI_Datatype *sts, const void *rcs, size_t rw,
                  const MPI_Datatype *rts, MPI_Comm comm)
{
    struct jp_nbrs n = jp_degrees(comm);
    for (int i = 0; i < n.out; i++) {
        c->sent += jp_live(&n, i) ? jp_at(scs, sw, i) * jp_tsize(c, sts[i]) : 0;
    }
    for (int i = 0; i < n.in; i++) {
        c->recv += jp_live(&n, i) ? jp_at(rcs, rw, i) * jp_tsize(c, rts[i]) : 0;
    }
}
