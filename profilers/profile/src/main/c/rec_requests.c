/*
 * rec_requests.c - the profile recorder's request tracking: persistent point-to-point requests,
 * whose sends are counted into the matrix when a start completes (Wait/Test families), and persistent
 * collectives, whose bytes are counted at each start. (A non-blocking send is counted when it is
 * called, as a blocking one: semantics.json; its request is not followed.)
 */
#define _GNU_SOURCE
#include "recorder_private.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- request tracking */

/*
 * Requests whose starts or completions the figures need: persistent sends (the matrix, when a
 * start completes) and receives, persistent collectives (bytes at each start). Keyed by handle, in
 * an open-addressing table with linear probing that grows (doubling, rehashed) to stay at most half
 * full, and deletes by shifting the entries after a removed one back (no tombstones). A lookup of a
 * handle that is not there (the completion of a receive, which is not tracked, on every test that
 * completes one) stops at the first empty entry, a few entries on. Before, removed entries stayed as
 * tombstones in a fixed table of 4096: after ~4096 sends a job had posted, every such lookup read the
 * whole table (196 KiB), and a job with more than 4096 sends in flight lost the matrix entries of
 * the rest. (hpcc's wall time did not move with the change: its lookups mostly found their handle.)
 */
enum { JP_RQ_SEND = 1, JP_RQ_RECV = 2, JP_RQ_COLL = 3 };
struct jp_req {
    uintptr_t key;
    int used;
    int kind;
    int active;             /* started and not yet completed */
    int counted;            /* recording was on at the start */
    int cancelled;
    int world;              /* destination (sends) */
    int64_t bytes;          /* sends/receives: per message; collectives: sent */
    int64_t recv;           /* collectives: received */
};
#define JP_REQS_FIRST 256   /* entries of the first table (a power of 2) */
static struct jp_req *jp_reqtab;
static size_t jp_reqcap;    /* a power of 2, or 0 before the first request */
static pthread_mutex_t jp_req_lock = PTHREAD_MUTEX_INITIALIZER;
volatile int jp_req_live; /* entries in the table (recorder.h) */
volatile uint64_t jp_req_gen; /* bumped by each new entry (recorder.h, jp_unfollowed) */

static size_t jp_req_home(uintptr_t key)
{
    return (size_t)(((uint64_t)(key >> 3) * 0x9e3779b97f4a7c15ull) >> 32) & (jp_reqcap - 1);
}

/* Room for one more entry with the table at most half full: a table twice as large, rehashed. 0 when
 * there is no memory for it (the request is then not tracked: its bytes are counted, not its matrix
 * entry). */
static int jp_req_room(void)
{
    if (jp_reqcap && ((size_t)jp_req_live + 1) * 2 <= jp_reqcap) {
        return 1;
    }
    size_t cap = jp_reqcap ? jp_reqcap * 2 : JP_REQS_FIRST;
    struct jp_req *tab = jp_mem_alloc(cap * sizeof *tab);
    if (!tab) {
        return 0;
    }
    struct jp_req *old = jp_reqtab;
    size_t oldcap = jp_reqcap;
    jp_reqtab = tab;
    jp_reqcap = cap;
    for (size_t i = 0; i < oldcap; i++) {
        if (old[i].used) {
            size_t j = jp_req_home(old[i].key);
            while (tab[j].used) {
                j = (j + 1) & (cap - 1);
            }
            tab[j] = old[i];
        }
    }
    jp_mem_free(old, oldcap * sizeof *old);
    return 1;
}

/* The first entry of `key`, or NULL. */
static struct jp_req *jp_req_find(uintptr_t key)
{
    if (!jp_req_live) {
        return NULL;
    }
    for (size_t i = jp_req_home(key);; i = (i + 1) & (jp_reqcap - 1)) {
        struct jp_req *q = &jp_reqtab[i];
        if (!q->used) {
            return NULL;
        }
        if (q->key == key) {
            return q;
        }
    }
}

/*
 * A new entry for `key`, even if the key is there already (each entry leaves with its own
 * MPI_Request_free). NULL without memory.
 */
static struct jp_req *jp_req_new(uintptr_t key)
{
    if (!jp_req_room()) {
        return NULL;
    }
    size_t i = jp_req_home(key);
    while (jp_reqtab[i].used) {
        i = (i + 1) & (jp_reqcap - 1);
    }
    struct jp_req *q = &jp_reqtab[i];
    memset(q, 0, sizeof *q);
    q->key = key;
    q->used = 1;
    jp_req_live++;
    __atomic_store_n(&jp_req_gen, jp_req_gen + 1, __ATOMIC_RELEASE);
    return q;
}

/* Removes q: each entry after it, up to the next empty one, that may sit in its place moves there. */
static void jp_req_drop(struct jp_req *q)
{
    size_t mask = jp_reqcap - 1, hole = (size_t)(q - jp_reqtab);
    for (size_t j = (hole + 1) & mask; jp_reqtab[j].used; j = (j + 1) & mask) {
        size_t home = jp_req_home(jp_reqtab[j].key);
        /* j's entry stays unless its home is outside (hole, j], cyclically */
        int stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) {
            jp_reqtab[hole] = jp_reqtab[j];
            hole = j;
        }
    }
    memset(&jp_reqtab[hole], 0, sizeof jp_reqtab[hole]);
    jp_req_live--;
}

/* A persistent request set up: what each of its starts moves (counted from its first start on). */
static void jp_req_add(MPI_Request req, int kind, int world, int64_t bytes, int64_t recv)
{
    if (req == MPI_REQUEST_NULL) {
        return;
    }
    pthread_mutex_lock(&jp_req_lock);
    struct jp_req *q = jp_req_new((uintptr_t)req);
    if (q) {
        q->kind = kind;
        q->world = world;
        q->bytes = bytes;
        q->recv = recv;
    }
    pthread_mutex_unlock(&jp_req_lock);
}

/* MPI_Get_elements_x in MPI_BYTE: the bytes a completed file operation moved (MPI_Count: past 2 GiB too). */
int64_t jp_status_bytes(int rc, const MPI_Status *status)
{
    MPI_Count n = 0;
    if (rc != MPI_SUCCESS || PMPI_Get_elements_x(status, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0) {
        return 0;
    }
    return (int64_t)n;
}

void jp_psend_init(int64_t count, MPI_Datatype t, int dest, MPI_Comm comm, MPI_Request req)
{
    if (dest == MPI_PROC_NULL) {
        return;
    }
    struct jp_call c = {.t = jp_self ? jp_self : jp_thread_new()};
    int64_t bytes = count > 0 ? count * jp_tsize(&c, t) : 0;
    jp_req_add(req, JP_RQ_SEND, jp_world(c.t, comm, dest), bytes, 0);
}

void jp_precv_init(int64_t count, MPI_Datatype t, MPI_Request req)
{
    struct jp_call c = {.t = jp_self ? jp_self : jp_thread_new()};
    int64_t bytes = count > 0 ? count * jp_tsize(&c, t) : 0;
    jp_req_add(req, JP_RQ_RECV, -1, bytes, 0);
}

void jp_pcoll_init(struct jp_call *c, MPI_Request req)
{
    jp_req_add(req, JP_RQ_COLL, -1, c->sent, c->recv);
    c->sent = 0;
    c->recv = 0;
}

void jp_start(struct jp_call *c, int n, const MPI_Request *reqs)
{
    if (!jp_req_live) {
        return;
    }
    pthread_mutex_lock(&jp_req_lock);
    for (int i = 0; i < n; i++) {
        struct jp_req *q = reqs[i] == MPI_REQUEST_NULL ? NULL : jp_req_find((uintptr_t)reqs[i]);
        if (!q) {
            continue;
        }
        q->active = 1;
        q->cancelled = 0;
        q->counted = c->on != 0;
        if (q->kind == JP_RQ_SEND) {
            c->sent += q->bytes;
        } else if (q->kind == JP_RQ_RECV) {
            c->recv += q->bytes;
        } else {
            c->sent += q->bytes;
            c->recv += q->recv;
        }
    }
    pthread_mutex_unlock(&jp_req_lock);
}

/*
 * More handles than the stack copy holds: a buffer of the thread's own, kept for its next such call
 * (a program that tests 100 requests in a loop maps no memory per call), or one of this call's own
 * when the thread's is in use (a generalized request's callback testing others inside a completion
 * call) or there is no thread block.
 */
void jp_reqs_save_heap(struct jp_reqs *s, int n, const MPI_Request *reqs)
{
    struct jp_thread *t = jp_self;
    size_t need = (size_t)n;
    if (t && !t->rbusy) {
        if (t->rcap < need) {
            size_t cap = t->rcap * 2 > need ? t->rcap * 2 : need;
            MPI_Request *b = jp_mem_alloc(cap * sizeof *b);
            if (!b) {
                return;
            }
            jp_mem_free(t->rbuf, t->rcap * sizeof *t->rbuf);
            t->rbuf = b;
            t->rcap = cap;
        }
        t->rbusy = 1;
        s->r = t->rbuf;
    } else {
        s->r = jp_mem_alloc(need * sizeof *s->r);
        if (!s->r) {
            return;
        }
    }
    memcpy(s->r, reqs, sizeof(MPI_Request) * need);
    s->n = n;
}

void jp_reqs_release_heap(struct jp_reqs *s)
{
    struct jp_thread *t = jp_self;
    if (t && s->r == t->rbuf) {
        t->rbusy = 0;
    } else {
        jp_mem_free(s->r, (size_t)s->n * sizeof *s->r);
    }
}

/*
 * A tracked request's start completed: count a send in the matrix if recording was on when it was
 * started - as its bytes were counted then - whether or not it is on now.
 */
static void jp_req_done_locked(struct jp_call *c, struct jp_req *q)
{
    if (q->kind == JP_RQ_SEND && q->counted && !q->cancelled && q->active) {
        jp_matrix_add(c->t, q->world, q->bytes);
    }
    q->active = 0;
}

void jp_reqs_done(struct jp_call *c, struct jp_reqs *s, int n, const int *which)
{
    if (!s->r) {
        return;
    }
    if (n == MPI_UNDEFINED || n < 0) {
        return;
    }
    pthread_mutex_lock(&jp_req_lock);
    for (int i = 0; i < n; i++) {
        int k = which ? which[i] : i;
        if (k < 0 || k >= s->n || s->r[k] == MPI_REQUEST_NULL) {
            continue;
        }
        struct jp_req *q = jp_req_find((uintptr_t)s->r[k]);
        if (q) {
            jp_req_done_locked(c, q);
        }
    }
    pthread_mutex_unlock(&jp_req_lock);
}

/* What the table says of `req` now, noted in t for jp_unfollowed (recorder.h). */
void jp_req_note(struct jp_thread *t, uintptr_t req)
{
    pthread_mutex_lock(&jp_req_lock);
    uint64_t gen = jp_req_gen;
    int followed = req == (uintptr_t)MPI_REQUEST_NULL || jp_req_find(req) != NULL;
    pthread_mutex_unlock(&jp_req_lock);
    t->nf_req = req;
    t->nf_gen = followed ? gen | JP_FOLLOWED : gen;
}

void jp_request_freed(struct jp_call *c, MPI_Request req)
{
    if (!jp_req_live || req == MPI_REQUEST_NULL) {
        return;
    }
    pthread_mutex_lock(&jp_req_lock);
    struct jp_req *q = jp_req_find((uintptr_t)req);
    if (q) {
        /* A freed active send still goes out: count it now. */
        jp_req_done_locked(c, q);
        jp_req_drop(q);
    }
    pthread_mutex_unlock(&jp_req_lock);
}

void jp_request_cancelled(MPI_Request req)
{
    if (!jp_req_live || req == MPI_REQUEST_NULL) {
        return;
    }
    pthread_mutex_lock(&jp_req_lock);
    struct jp_req *q = jp_req_find((uintptr_t)req);
    if (q) {
        q->cancelled = 1;
    }
    pthread_mutex_unlock(&jp_req_lock);
}

