/*
 * rec_requests.c - the profile recorder's request tracking: non-blocking and persistent
 * point-to-point requests and persistent collectives, counted into the matrix when they complete
 * (Wait/Test families) or, for persistent collectives, at each start.
 */
#define _GNU_SOURCE
#include "recorder_private.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- request tracking */

/*
 * Requests whose completion the matrix needs: non-blocking sends (counted when they complete),
 * persistent sends and receives, persistent collectives (bytes at each start). Keyed by handle.
 */
enum { JP_RQ_SEND = 1, JP_RQ_RECV = 2, JP_RQ_COLL = 3 };
struct jp_req {
    uintptr_t key;
    int state;              /* 0 empty, 1 used, -1 tombstone */
    int kind;
    int persistent;
    int active;             /* a persistent request was started and not yet completed */
    int counted;            /* recording was on at the post or the start */
    int cancelled;
    int world;              /* destination (sends) */
    int64_t bytes;          /* sends/receives: per message; collectives: sent */
    int64_t recv;           /* collectives: received */
};
#define JP_REQS 4096
static struct jp_req jp_reqtab[JP_REQS];
static pthread_mutex_t jp_req_lock = PTHREAD_MUTEX_INITIALIZER;
volatile int jp_req_live; /* entries in the table (recorder.h) */

/*
 * create: a new entry even if `key` is there already. Handles are not unique: MPICH (4.x) returns
 * the same builtin handle for every send that completed at once (MPIR_Request_create_complete), so
 * two MPI_Isend posts can give equal handles that are both live; each post keeps its own entry and
 * each completion of the handle takes one of them (they complete together anyway).
 */
static struct jp_req *jp_req_slot(uintptr_t key, int create)
{
    unsigned h = (unsigned)((key >> 3) * 2654435761u) % JP_REQS;
    struct jp_req *free_slot = NULL;
    for (unsigned i = 0; i < JP_REQS; i++) {
        struct jp_req *q = &jp_reqtab[(h + i) % JP_REQS];
        if (!create && q->state == 1 && q->key == key) {
            return q;
        }
        if (q->state == -1 && !free_slot) {
            free_slot = q;
        }
        if (q->state == 0) {
            if (!free_slot) {
                free_slot = q;
            }
            break;
        }
    }
    if (!create || !free_slot) {
        return NULL;
    }
    memset(free_slot, 0, sizeof *free_slot);
    free_slot->key = key;
    free_slot->state = 1;
    jp_req_live++;
    return free_slot;
}

static void jp_req_drop(struct jp_req *q)
{
    q->state = -1;
    jp_req_live--;
}

static void jp_req_add(MPI_Request req, int kind, int persistent, int counted, int world, int64_t bytes,
                       int64_t recv)
{
    if (req == MPI_REQUEST_NULL) {
        return;
    }
    pthread_mutex_lock(&jp_req_lock);
    struct jp_req *q = jp_req_slot((uintptr_t)req, 1);
    if (q) {
        q->kind = kind;
        q->persistent = persistent;
        q->counted = counted;
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

void jp_isend(struct jp_call *c, int64_t count, MPI_Datatype t, int dest, MPI_Comm comm, MPI_Request req)
{
    if (dest == MPI_PROC_NULL) {
        return;
    }
    int64_t bytes = count > 0 ? count * jp_tsize(c, t) : 0;
    c->sent += bytes;
    int world = jp_world(comm, dest);
    if (world >= 0 && world != jp_world_rank) {
        jp_req_add(req, JP_RQ_SEND, 0, c->on != 0, world, bytes, 0);
    }
}

void jp_psend_init(int64_t count, MPI_Datatype t, int dest, MPI_Comm comm, MPI_Request req)
{
    if (dest == MPI_PROC_NULL) {
        return;
    }
    struct jp_call c = {.t = jp_self ? jp_self : jp_thread_new()};
    int64_t bytes = count > 0 ? count * jp_tsize(&c, t) : 0;
    jp_req_add(req, JP_RQ_SEND, 1, 0, jp_world(comm, dest), bytes, 0);
}

void jp_precv_init(int64_t count, MPI_Datatype t, MPI_Request req)
{
    struct jp_call c = {.t = jp_self ? jp_self : jp_thread_new()};
    int64_t bytes = count > 0 ? count * jp_tsize(&c, t) : 0;
    jp_req_add(req, JP_RQ_RECV, 1, 0, -1, bytes, 0);
}

void jp_pcoll_init(struct jp_call *c, MPI_Request req)
{
    jp_req_add(req, JP_RQ_COLL, 1, 0, -1, c->sent, c->recv);
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
        struct jp_req *q = reqs[i] == MPI_REQUEST_NULL ? NULL : jp_req_slot((uintptr_t)reqs[i], 0);
        if (!q || !q->persistent) {
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

void jp_reqs_save_heap(struct jp_reqs *s, int n, const MPI_Request *reqs)
{
    s->r = malloc(sizeof(MPI_Request) * (size_t)n);
    if (!s->r) {
        return;
    }
    memcpy(s->r, reqs, sizeof(MPI_Request) * (size_t)n);
    s->n = n;
}

/*
 * A tracked request completed: count a send in the matrix if recording was on when it was posted
 * (or started) - as its bytes were counted then - whether or not it is on now; forget
 * non-persistent ones.
 */
static void jp_req_done_locked(struct jp_call *c, struct jp_req *q)
{
    if (q->kind == JP_RQ_SEND && q->counted && !q->cancelled && (!q->persistent || q->active)) {
        jp_matrix_add(c->t, q->world, q->bytes);
    }
    if (q->persistent) {
        q->active = 0;
    } else {
        jp_req_drop(q);
    }
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
        struct jp_req *q = jp_req_slot((uintptr_t)s->r[k], 0);
        if (q) {
            jp_req_done_locked(c, q);
        }
    }
    pthread_mutex_unlock(&jp_req_lock);
}

void jp_request_freed(struct jp_call *c, MPI_Request req)
{
    if (!jp_req_live || req == MPI_REQUEST_NULL) {
        return;
    }
    pthread_mutex_lock(&jp_req_lock);
    struct jp_req *q = jp_req_slot((uintptr_t)req, 0);
    if (q) {
        /* A freed active send still goes out: count it now. */
        if (!q->persistent) {
            jp_req_done_locked(c, q);
        } else {
            if (q->active) {
                jp_req_done_locked(c, q);
            }
            jp_req_drop(q);
        }
    }
    pthread_mutex_unlock(&jp_req_lock);
}

void jp_request_cancelled(MPI_Request req)
{
    if (!jp_req_live || req == MPI_REQUEST_NULL) {
        return;
    }
    pthread_mutex_lock(&jp_req_lock);
    struct jp_req *q = jp_req_slot((uintptr_t)req, 0);
    if (q) {
        q->cancelled = 1;
    }
    pthread_mutex_unlock(&jp_req_lock);
}

