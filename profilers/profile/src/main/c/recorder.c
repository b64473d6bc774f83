/*
 * recorder.c - the hand-written half of the `profile` tool's C level: thread blocks, datatype
 * sizes, world-rank translation, request tracking, the byte/matrix semantics of every family of
 * MPI calls, the lifecycle wrappers (MPI_Init*, MPI_Finalize, MPI_Abort, MPI_Pcontrol), and the
 * snapshot the Java level reads at MPI_Finalize (or that is written to ranks/rank-R.bin when a
 * rank ends any other way), and the totals the accounting level reads. The per-function wrappers
 * are generated (jpmpi_profile.c).
 */
#define _GNU_SOURCE
#include "recorder.h"
#include "jobenv.h"
#include "jpmpi_settings.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

__thread struct jp_thread *jp_self __attribute__((tls_model("initial-exec")));
volatile int jp_on = 1;

static struct jp_thread *volatile jp_threads;
static int jp_world_rank = -1;
static int jp_world_size;
uint64_t jp_type_epoch = 1;

/* Lifecycle. */
enum { JP_RUNNING = 0, JP_FINALIZE = 1, JP_ABORT = 2, JP_EXIT = 3, JP_SIGNAL = 4, JP_FLUSH = 5 };
static volatile int jp_ended;           /* a final state was reached: no further dumps */
static volatile int jp_initialized;
static uint64_t jp_init_ticks;          /* end of MPI_Init */
static uint64_t jp_end_ticks;           /* start of MPI_Finalize (0: still running) */
static int64_t jp_init_unix_ns;
static struct timespec jp_init_mono;
static double jp_per_call_ns;
static char jp_outdir[PATH_MAX];
static char jp_dump_path[PATH_MAX + 64];
static char jp_host[64];
static char jp_exe[256];
static char jp_jobid[64];

/* ---------------------------------------------------------------- threads */

struct jp_thread *jp_thread_new(void)
{
    struct jp_thread *t = calloc(1, sizeof *t);
    if (!t) {
        fputs("jpmpi profile: out of memory for a thread's counters; this thread is not recorded\n", stderr);
        abort();
    }
    struct jp_thread *head;
    do {
        head = jp_threads;
        t->next = head;
    } while (!__atomic_compare_exchange_n(&jp_threads, &head, t, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    jp_self = t;
    return t;
}

/* Adds one message to `world` to thread t's matrix row (not to oneself, not outside the world). */
static void jp_matrix_add(struct jp_thread *t, int world, int64_t bytes)
{
    if (world < 0 || world >= jp_world_size || world == jp_world_rank) {
        return;
    }
    if (!t->matrix) {
        t->matrix = calloc(2 * (size_t)jp_world_size, sizeof(uint64_t));
        if (!t->matrix) {
            return;
        }
    }
    t->matrix[2 * world]++;
    t->matrix[2 * world + 1] += (uint64_t)bytes;
}

/* A message of the call being recorded (none while recording is off). */
static void jp_matrix(struct jp_call *c, int world, int64_t bytes)
{
    if (c->t0 && !c->nomatrix) {
        jp_matrix_add(c->t, world, bytes);
    }
}

/* ---------------------------------------------------------------- datatype sizes */

int64_t jp_tsize_miss(struct jp_thread *th, MPI_Datatype t, unsigned slot)
{
    if (t == MPI_DATATYPE_NULL) {
        return 0;
    }
    uint64_t epoch = __atomic_load_n(&jp_type_epoch, __ATOMIC_RELAXED);
    MPI_Count size = 0;
    if (PMPI_Type_size_x(t, &size) != MPI_SUCCESS || size < 0) {
        size = 0;
    }
    th->tcache[slot].key = (uintptr_t)t;
    th->tcache[slot].size = (int64_t)size;
    th->tcache[slot].epoch = epoch;
    return (int64_t)size;
}

void jp_type_freed(void)
{
    __atomic_add_fetch(&jp_type_epoch, 1, __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------- world ranks of communicators and windows */

/*
 * A small open-addressing map from a communicator (or a window's group) to the world ranks of its
 * (remote) group. MPI_COMM_WORLD never enters it. Entries go when the handle is freed.
 */
#define JP_MAPS 1024
struct jp_map {
    uintptr_t key;          /* 0: empty; kind in the low bit is not needed: comm and win keys differ */
    int kind;               /* 1 comm, 2 win, -1 tombstone */
    int n;
    int inter;
    int *world;
};
static struct jp_map jp_maps[JP_MAPS];
static pthread_mutex_t jp_maps_lock = PTHREAD_MUTEX_INITIALIZER;

static int *jp_translate(MPI_Group g, int *n_out)
{
    int n = 0;
    if (PMPI_Group_size(g, &n) != MPI_SUCCESS || n <= 0) {
        return NULL;
    }
    int *from = malloc(sizeof(int) * (size_t)n);
    int *to = malloc(sizeof(int) * (size_t)n);
    MPI_Group world;
    if (!from || !to || PMPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS) {
        free(from);
        free(to);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        from[i] = i;
    }
    int rc = PMPI_Group_translate_ranks(g, n, from, world, to);
    PMPI_Group_free(&world);
    free(from);
    if (rc != MPI_SUCCESS) {
        free(to);
        return NULL;
    }
    *n_out = n;
    return to;
}

static struct jp_map *jp_map_find(uintptr_t key, int kind, int create, MPI_Comm comm, MPI_Win win)
{
    unsigned h = (unsigned)((key >> 3) * 2654435761u) % JP_MAPS;
    struct jp_map *free_slot = NULL;
    for (unsigned i = 0; i < JP_MAPS; i++) {
        struct jp_map *m = &jp_maps[(h + i) % JP_MAPS];
        if (m->kind == kind && m->key == key) {
            return m;
        }
        if (m->kind == -1 && !free_slot) {
            free_slot = m;
        }
        if (m->kind == 0) {
            if (!free_slot) {
                free_slot = m;
            }
            break;
        }
    }
    if (!create || !free_slot) {
        return NULL;
    }
    MPI_Group g = MPI_GROUP_NULL;
    int inter = 0;
    if (kind == 1) {
        PMPI_Comm_test_inter(comm, &inter);
        if ((inter ? PMPI_Comm_remote_group(comm, &g) : PMPI_Comm_group(comm, &g)) != MPI_SUCCESS) {
            return NULL;
        }
    } else if (PMPI_Win_get_group(win, &g) != MPI_SUCCESS) {
        return NULL;
    }
    int n = 0;
    int *world = jp_translate(g, &n);
    PMPI_Group_free(&g);
    if (!world) {
        return NULL;
    }
    free_slot->key = key;
    free_slot->kind = kind;
    free_slot->n = n;
    free_slot->inter = inter;
    free_slot->world = world;
    return free_slot;
}

/* The world rank of rank `r` of comm (its remote group for an inter-communicator), or -1. */
static int jp_world(MPI_Comm comm, int r)
{
    if (r < 0) {
        return -1;
    }
    if (comm == MPI_COMM_WORLD) {
        return r;
    }
    pthread_mutex_lock(&jp_maps_lock);
    struct jp_map *m = jp_map_find((uintptr_t)comm, 1, 1, comm, MPI_WIN_NULL);
    int w = m && r < m->n ? m->world[r] : -1;
    pthread_mutex_unlock(&jp_maps_lock);
    return w == MPI_UNDEFINED ? -1 : w;
}

static int jp_win_world(MPI_Win win, int r)
{
    if (r < 0) {
        return -1;
    }
    pthread_mutex_lock(&jp_maps_lock);
    struct jp_map *m = jp_map_find((uintptr_t)win, 2, 1, MPI_COMM_NULL, win);
    int w = m && r < m->n ? m->world[r] : -1;
    pthread_mutex_unlock(&jp_maps_lock);
    return w == MPI_UNDEFINED ? -1 : w;
}

static void jp_map_forget(uintptr_t key, int kind)
{
    pthread_mutex_lock(&jp_maps_lock);
    struct jp_map *m = jp_map_find(key, kind, 0, MPI_COMM_NULL, MPI_WIN_NULL);
    if (m) {
        free(m->world);
        m->world = NULL;
        m->kind = -1;
        m->key = 0;
    }
    pthread_mutex_unlock(&jp_maps_lock);
}

void jp_comm_freed(MPI_Comm comm)
{
    if (comm != MPI_COMM_NULL && comm != MPI_COMM_WORLD) {
        jp_map_forget((uintptr_t)comm, 1);
    }
}

void jp_win_freed(MPI_Win win)
{
    if (win != MPI_WIN_NULL) {
        jp_map_forget((uintptr_t)win, 2);
    }
}

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
static volatile int jp_req_live;

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

void jp_isend(struct jp_call *c, int64_t count, MPI_Datatype t, int dest, MPI_Comm comm, MPI_Request req)
{
    if (dest == MPI_PROC_NULL) {
        return;
    }
    int64_t bytes = count > 0 ? count * jp_tsize(c, t) : 0;
    c->sent += bytes;
    int world = jp_world(comm, dest);
    if (world >= 0 && world != jp_world_rank) {
        jp_req_add(req, JP_RQ_SEND, 0, c->t0 != 0, world, bytes, 0);
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
        q->counted = c->t0 != 0;
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

void jp_reqs_save(struct jp_reqs *s, int n, const MPI_Request *reqs)
{
    s->r = NULL;
    s->n = 0;
    if (!jp_req_live || n <= 0 || !reqs) {
        return;
    }
    s->r = n <= JP_REQS_MAX_STACK ? s->stack : malloc(sizeof(MPI_Request) * (size_t)n);
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

void jp_reqs_release(struct jp_reqs *s)
{
    if (s->r && s->r != s->stack) {
        free(s->r);
    }
    s->r = NULL;
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

/* ---------------------------------------------------------------- point-to-point */

void jp_send_peer(struct jp_thread *t, int64_t bytes, int dest, MPI_Comm comm)
{
    jp_matrix_add(t, jp_world(comm, dest), bytes);
}

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

/* Rank `me` of an intra-communicator sends `bytes` to comm rank `to`. */
static void jp_pair(struct jp_call *c, MPI_Comm comm, const struct jp_comm *ci, int to, int64_t bytes)
{
    if (to == ci->rank || ci->inter) {
        return;
    }
    c->sent += bytes;
    jp_matrix(c, jp_world(comm, to), bytes);
}

void jp_bcast(struct jp_call *c, int64_t count, MPI_Datatype t, int root, MPI_Comm comm)
{
    struct jp_comm ci;
    if (!jp_comm_info(comm, &ci)) {
        return;
    }
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
    for (int i = 0; i < ci.size; i++) {
        int64_t rb = jp_at(rcs, rw, i) > 0 ? jp_at(rcs, rw, i) * jp_tsize(c, rts[i]) : 0;
        int64_t s = in_place ? rb : (jp_at(scs, sw, i) > 0 ? jp_at(scs, sw, i) * jp_tsize(c, sts[i]) : 0);
        if (ci.inter) {
            c->sent += s;
            c->recv += rb;
            continue;
        }
        jp_pair(c, comm, &ci, i, s);
        c->recv += i == ci.rank ? 0 : rb;
    }
}

void jp_reduce(struct jp_call *c, int64_t count, MPI_Datatype t, int root, MPI_Comm comm)
{
    struct jp_comm ci;
    if (!jp_comm_info(comm, &ci)) {
        return;
    }
    int64_t b = count * jp_tsize(c, t);
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
    if (!jp_comm_info(comm, &ci) || ci.inter) {
        return;
    }
    int64_t b = rc * jp_tsize(c, t);
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
    /* Rank i's result depends on ranks 0..i (0..i-1 for Exscan): rank r sends to every higher rank. */
    for (int i = ci.rank + 1; i < ci.size; i++) {
        jp_pair(c, comm, &ci, i, b);
    }
    c->recv += b * ci.rank;
}

/* In- and out-degree of a topology communicator (0, 0 without a topology). */
static void jp_degrees(MPI_Comm comm, int *in, int *out)
{
    int topo = MPI_UNDEFINED;
    *in = *out = 0;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS) {
        return;
    }
    if (topo == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        *in = *out = 2 * nd;
    } else if (topo == MPI_GRAPH) {
        int rank = 0, n = 0;
        PMPI_Comm_rank(comm, &rank);
        PMPI_Graph_neighbors_count(comm, rank, &n);
        *in = *out = n;
    } else if (topo == MPI_DIST_GRAPH) {
        int weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, in, out, &weighted);
    }
}

void jp_neighbor(struct jp_call *c, int64_t sc, MPI_Datatype st, int64_t rc, MPI_Datatype rt, MPI_Comm comm)
{
    int in, out;
    jp_degrees(comm, &in, &out);
    c->sent += sc * jp_tsize(c, st) * out;
    c->recv += rc * jp_tsize(c, rt) * in;
}

void jp_neighborv(struct jp_call *c, int64_t sc, MPI_Datatype st, const void *scs, size_t sw, const void *rcs,
                  size_t rw, MPI_Datatype rt, int64_t rc, MPI_Comm comm)
{
    int in, out;
    jp_degrees(comm, &in, &out);
    int64_t s = 0, r = 0;
    for (int i = 0; i < out; i++) {
        s += scs ? jp_at(scs, sw, i) : sc;
    }
    for (int i = 0; i < in; i++) {
        r += rcs ? jp_at(rcs, rw, i) : rc;
    }
    c->sent += s * jp_tsize(c, st);
    c->recv += r * jp_tsize(c, rt);
}

void jp_neighborw(struct jp_call *c, const void *scs, size_t sw, const MPI_Datatype *sts, const void *rcs, size_t rw,
                  const MPI_Datatype *rts, MPI_Comm comm)
{
    int in, out;
    jp_degrees(comm, &in, &out);
    for (int i = 0; i < out; i++) {
        c->sent += jp_at(scs, sw, i) * jp_tsize(c, sts[i]);
    }
    for (int i = 0; i < in; i++) {
        c->recv += jp_at(rcs, rw, i) * jp_tsize(c, rts[i]);
    }
}

/* ---------------------------------------------------------------- one-sided */

void jp_rma(struct jp_call *c, int64_t sent, int64_t recv, int target, MPI_Win win)
{
    c->sent += sent;
    c->recv += recv;
    if (c->t0 && sent > 0) {
        jp_matrix(c, jp_win_world(win, target), sent);
    }
}

/* ---------------------------------------------------------------- snapshot */

/*
 * The snapshot: little-endian, 8-byte aligned sections (Snapshot.java reads it):
 *   header (512 bytes, see jp_header below), names (nfunc x 48 bytes, NUL-padded),
 *   stats (nfunc x 6 u64: calls, ticks, min, max, sent, recv), histograms (nfunc x 48 u64),
 *   matrix (matrix_ranks x 2 u64: messages, bytes).
 */
struct jp_header {
    char magic[8];              /* "JPMPIPR1" */
    uint32_t version, header_size;
    uint32_t nfunc, nbuckets;
    int32_t world_rank, world_size;
    int32_t state, detail;      /* JP_* state; errorcode (abort) or signal number */
    uint64_t pid;
    double ticks_per_second;
    double per_call_ns;
    int64_t init_unix_ns;       /* wall clock when MPI_Init returned (0: never) */
    uint64_t app_ticks;         /* end of MPI_Init .. start of MPI_Finalize, or .. now */
    uint64_t matrix_ranks;
    char host[64];
    char impl[32];
    char jobid[64];
    char exe[256];
    char pad[512 - 8 - 4 * 8 - 8 - 16 - 8 - 8 - 8 - 64 - 32 - 64 - 256];
};
_Static_assert(sizeof(struct jp_header) == 512, "snapshot header is 512 bytes");

#define JP_NAME 48

typedef int (*jp_sink)(void *ctx, const void *data, size_t n);

static int jp_write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/*
 * A file sink that writes in 16 KiB blocks (on the stack: the dump may run in a signal handler):
 * the snapshot comes in ~3 pieces per function, and a dump of one write(2) per piece took long
 * enough (hundreds of system calls) for Open MPI's SIGKILL, ~10 ms after its SIGTERM, to cut it
 * short, leaving only rank-R.bin.tmp.
 */
struct jp_fdbuf {
    int fd;
    size_t used;
    char buf[16384];
};

static int jp_fd_sink(void *ctx, const void *data, size_t n)
{
    struct jp_fdbuf *b = ctx;
    if (b->used + n > sizeof b->buf) {
        if (jp_write_all(b->fd, b->buf, b->used)) {
            return -1;
        }
        b->used = 0;
        if (n > sizeof b->buf) {
            return jp_write_all(b->fd, data, n);
        }
    }
    memcpy(b->buf + b->used, data, n);
    b->used += n;
    return 0;
}

struct jp_membuf {
    char *p;
    size_t used, cap;
};

static int jp_mem_sink(void *ctx, const void *data, size_t n)
{
    struct jp_membuf *m = ctx;
    if (m->used + n > m->cap) {
        return -1;
    }
    memcpy(m->p + m->used, data, n);
    m->used += n;
    return 0;
}

static double jp_tick_rate(void)
{
#if defined(__x86_64__) || defined(__i386__)
    /*
     * Ticks per second from the time since MPI_Init. The two clocks are read ~50 ns apart, so 1 ms
     * already gives the rate to 1e-4; waiting longer would only delay a dump that SIGKILL may cut.
     */
    struct timespec a;
    uint64_t t0 = jp_init_ticks;
    struct timespec m0 = jp_init_mono;
    if (!t0) {
        t0 = jp_ticks();
        clock_gettime(CLOCK_MONOTONIC, &m0);
    }
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &a);
        uint64_t t1 = jp_ticks();
        double ns = (double)(a.tv_sec - m0.tv_sec) * 1e9 + (double)(a.tv_nsec - m0.tv_nsec);
        if (ns >= 1e6) {
            return (double)(t1 - t0) / ns * 1e9;
        }
    }
#else
    return 1e9;
#endif
}

static size_t jp_snapshot_size(void)
{
    size_t matrix = jp_world_size > 0 ? (size_t)jp_world_size : 0;
    return sizeof(struct jp_header) + (size_t)JP_NFUNC * JP_NAME + (size_t)JP_NFUNC * 6 * 8
            + (size_t)JP_NFUNC * JP_BUCKETS * 8 + matrix * 16;
}

extern const char *const jp_names[JP_NFUNC];
extern const char jp_impl[];

/* From the end of MPI_Init to the start of MPI_Finalize, or to now. */
static uint64_t jp_app_ticks(void)
{
    uint64_t end = jp_end_ticks ? jp_end_ticks : jp_ticks();
    return jp_init_ticks && end > jp_init_ticks ? end - jp_init_ticks : 0;
}

static void jp_header(struct jp_header *h, int state, int detail)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, "JPMPIPR1", 8);
    h->version = 1;
    h->header_size = sizeof *h;
    h->nfunc = JP_NFUNC;
    h->nbuckets = JP_BUCKETS;
    h->world_rank = jp_world_rank;
    h->world_size = jp_world_size;
    h->state = state;
    h->detail = detail;
    h->pid = (uint64_t)getpid();
    h->ticks_per_second = jp_tick_rate();
    h->per_call_ns = jp_per_call_ns;
    h->init_unix_ns = jp_init_unix_ns;
    h->app_ticks = jp_app_ticks();
    h->matrix_ranks = jp_world_size > 0 ? (uint64_t)jp_world_size : 0;
    memcpy(h->host, jp_host, sizeof h->host);
    strncpy(h->impl, jp_impl, sizeof h->impl - 1);
    memcpy(h->jobid, jp_jobid, sizeof h->jobid);
    memcpy(h->exe, jp_exe, sizeof h->exe);
}

/* Streams the snapshot, adding up every thread's counters on the way (no allocation). */
static int jp_emit(jp_sink sink, void *ctx, int state, int detail)
{
    struct jp_header h;
    jp_header(&h, state, detail);
    if (sink(ctx, &h, sizeof h)) {
        return -1;
    }
    char name[JP_NAME];
    for (int f = 0; f < JP_NFUNC; f++) {
        memset(name, 0, sizeof name);
        strncpy(name, jp_names[f], sizeof name - 1);
        if (sink(ctx, name, sizeof name)) {
            return -1;
        }
    }
    for (int f = 0; f < JP_NFUNC; f++) {
        uint64_t s[6] = {0, 0, 0, 0, 0, 0};
        for (struct jp_thread *t = jp_threads; t; t = t->next) {
            const struct jp_fstat *x = &t->f[f];
            s[0] += x->calls;
            s[1] += x->ticks;
            if (x->min && (!s[2] || x->min < s[2])) {
                s[2] = x->min;
            }
            if (x->max > s[3]) {
                s[3] = x->max;
            }
            s[4] += x->sent;
            s[5] += x->recv;
        }
        if (sink(ctx, s, sizeof s)) {
            return -1;
        }
    }
    for (int f = 0; f < JP_NFUNC; f++) {
        uint64_t b[JP_BUCKETS];
        memset(b, 0, sizeof b);
        for (struct jp_thread *t = jp_threads; t; t = t->next) {
            for (int k = 0; k < JP_BUCKETS; k++) {
                b[k] += t->hist[f][k];
            }
        }
        if (sink(ctx, b, sizeof b)) {
            return -1;
        }
    }
    uint64_t row[2 * 256];
    for (int base = 0; base < jp_world_size; base += 256) {
        int n = jp_world_size - base < 256 ? jp_world_size - base : 256;
        memset(row, 0, sizeof row);
        for (struct jp_thread *t = jp_threads; t; t = t->next) {
            if (t->matrix) {
                for (int i = 0; i < 2 * n; i++) {
                    row[i] += t->matrix[2 * (size_t)base + (size_t)i];
                }
            }
        }
        if (sink(ctx, row, sizeof(uint64_t) * 2 * (size_t)n)) {
            return -1;
        }
    }
    return 0;
}

/* Writes ranks/rank-R.bin (temp file + rename). Async-signal-safe apart from the clock reads. */
static void jp_dump(int state, int detail)
{
    if (!jp_dump_path[0]) {
        return;
    }
    char tmp[sizeof jp_dump_path + 8];
    size_t n = strlen(jp_dump_path);
    memcpy(tmp, jp_dump_path, n);
    memcpy(tmp + n, ".tmp", 5);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        return;
    }
    struct jp_fdbuf b;
    b.fd = fd;
    b.used = 0;
    int ok = jp_emit(jp_fd_sink, &b, state, detail) == 0 && jp_write_all(fd, b.buf, b.used) == 0;
    ok = close(fd) == 0 && ok;
    if (ok) {
        rename(tmp, jp_dump_path);
    } else {
        unlink(tmp);
    }
}

/* ---------------------------------------------------------------- what the other levels call */

JP_EXPORT size_t jpmpi_profile_snapshot_size(void)
{
    return jp_snapshot_size();
}

/* Fills buf with the snapshot; returns its size, or 0 if cap is too small. */
JP_EXPORT size_t jpmpi_profile_snapshot(void *buf, size_t cap)
{
    struct jp_membuf m = {buf, 0, cap};
    int state = jp_end_ticks ? JP_FINALIZE : JP_FLUSH;
    return jp_emit(jp_mem_sink, &m, state, 0) == 0 ? m.used : 0;
}

JP_EXPORT const char *jpmpi_profile_output_dir(void)
{
    return jp_outdir;
}

/*
 * What the accounting level takes instead of the snapshot: the number of functions and, for the
 * first `max`, their names, calls and seconds summed over the threads; the application's seconds
 * (from the end of MPI_Init to the start of MPI_Finalize, or to now) and the wall clock when
 * MPI_Init returned (Unix ns, 0 before).
 */
JP_EXPORT int jpmpi_profile_totals(int max, const char **names, unsigned long long *calls, double *seconds,
                                   double *app_seconds, long long *init_unix_ns)
{
    double rate = jp_tick_rate();
    for (int f = 0; f < JP_NFUNC && f < max; f++) {
        uint64_t c = 0, t = 0;
        for (struct jp_thread *th = jp_threads; th; th = th->next) {
            c += th->f[f].calls;
            t += th->f[f].ticks;
        }
        names[f] = jp_names[f];
        calls[f] = c;
        seconds[f] = rate > 0 ? (double)t / rate : 0;
    }
    *app_seconds = rate > 0 ? (double)jp_app_ticks() / rate : 0;
    *init_unix_ns = jp_init_unix_ns;
    return JP_NFUNC;
}

/* The profile was written: nothing to dump at exit. */
JP_EXPORT void jpmpi_profile_written(void)
{
    jp_ended = 1;
}

/* ---------------------------------------------------------------- start-up and abnormal ends */

static struct sigaction jp_old[3];
static const int jp_signals[3] = {SIGTERM, SIGINT, SIGHUP};

static void jp_on_signal(int sig)
{
    if (!jp_ended) {
        jp_ended = 1;
        jp_dump(JP_SIGNAL, sig);
    }
    for (int i = 0; i < 3; i++) {
        if (jp_signals[i] == sig) {
            sigaction(sig, &jp_old[i], NULL);
        }
    }
    raise(sig);
}

static void jp_at_exit(void)
{
    if (jp_initialized && !jp_ended) {
        jp_ended = 1;
        jp_dump(JP_EXIT, 0);
    }
}

/* The output directory: JPMPI_OUTPUT_DIR, else jpmpi-<job> in the working directory (rank 0 names it). */
static void jp_choose_outdir(void)
{
    const char *env = getenv(JPMPI_SETTING_OUTPUT_DIR);
    char name[PATH_MAX];
    memset(name, 0, sizeof name);
    if (env && *env) {
        snprintf(name, sizeof name, "%s", env);
    } else if (jp_world_rank == 0) {
        if (jp_jobid[0]) {
            snprintf(name, sizeof name, "jpmpi-%s", jp_jobid);
        } else {
            time_t now = time(NULL);
            struct tm tm;
            gmtime_r(&now, &tm);
            snprintf(name, sizeof name, "jpmpi-%04d%02d%02d-%02d%02d%02d-%d", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)getpid());
        }
        for (char *p = name; *p; p++) {
            if (*p == '/' || *p == ' ') {
                *p = '_';
            }
        }
    }
    if (!(env && *env)) {
        /* Every rank must agree: rank 0 broadcasts the name it chose (nothing of the application's is in flight yet). */
        MPI_Comm c;
        if (PMPI_Comm_dup(MPI_COMM_WORLD, &c) == MPI_SUCCESS) {
            PMPI_Bcast(name, (int)sizeof name, MPI_CHAR, 0, c);
            PMPI_Comm_free(&c);
        }
    }
    name[sizeof name - 1] = 0;
    if (name[0] != '/') {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd)) {
            snprintf(jp_outdir, sizeof jp_outdir, "%.2048s/%.2000s", cwd, name);
        } else {
            snprintf(jp_outdir, sizeof jp_outdir, "%s", name);
        }
    } else {
        snprintf(jp_outdir, sizeof jp_outdir, "%s", name);
    }
}

/* What one recorded call costs the recorder itself: a loop of the same steps. */
static void jp_measure_cost(void)
{
    struct jp_thread *t = jp_self ? jp_self : jp_thread_new();
    struct jp_fstat scratch = {0, 0, 0, 0, 0, 0};
    enum { N = 200000 };
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < N; i++) {
        uint64_t t0 = jp_ticks();
        __asm__ __volatile__("" ::: "memory");
        uint64_t d = jp_ticks() - t0;
        scratch.calls++;
        scratch.ticks += d;
        if (d - 1 < scratch.min - 1) {
            scratch.min = d;
        }
        if (d > scratch.max) {
            scratch.max = d;
        }
        __asm__ __volatile__("" : : "r"(t) : "memory");
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    jp_per_call_ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / N;
}

/*
 * The profile output: the output directory, the rank dumps (at MPI_Finalize when no level wrote
 * the profile, at an early end), the measured cost of a recorded call. The levels that read the
 * recorder say whether they need it (jpmpi_profile_output): the accounting tool does not, the
 * profile tool's Java level does. It is on if one of them needs it or none said anything (the
 * recorder alone: its rank dumps are the profile).
 */
static int jp_output_no, jp_output_yes, jp_output_on;

static void jp_start_output(void)
{
    char ranks[PATH_MAX + 8];
    jp_output_on = 1;
    mkdir(jp_outdir, 0755);
    snprintf(ranks, sizeof ranks, "%s/ranks", jp_outdir);
    mkdir(ranks, 0755);
    snprintf(jp_dump_path, sizeof jp_dump_path, "%s/rank-%d.bin", ranks, jp_world_rank);
    jp_measure_cost();
}

/* Said by a level before MPI_Init returns to the recorder; a late 1 starts the output then. */
JP_EXPORT void jpmpi_profile_output(int needed)
{
    if (!needed) {
        jp_output_no = 1;
        return;
    }
    jp_output_yes = 1;
    if (jp_initialized && !jp_output_on) {
        jp_start_output();
    }
}

static void jp_started(void)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &jp_world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &jp_world_size);
    jp_first_env(jp_job_variables, jp_jobid, sizeof jp_jobid);
    gethostname(jp_host, sizeof jp_host - 1);
    ssize_t n = readlink("/proc/self/exe", jp_exe, sizeof jp_exe - 1);
    jp_exe[n > 0 ? n : 0] = 0;
    jp_choose_outdir();
    if (jp_output_yes || !jp_output_no) {
        jp_start_output();
    }
    for (int i = 0; i < 3; i++) {
        struct sigaction now;
        if (sigaction(jp_signals[i], NULL, &now) == 0 && now.sa_handler == SIG_DFL) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = jp_on_signal;
            sigemptyset(&sa.sa_mask);
            sigaction(jp_signals[i], &sa, &jp_old[i]);
        }
    }
    atexit(jp_at_exit);
    struct timespec real;
    clock_gettime(CLOCK_REALTIME, &real);
    jp_init_unix_ns = (int64_t)real.tv_sec * 1000000000 + real.tv_nsec;
    clock_gettime(CLOCK_MONOTONIC, &jp_init_mono);
    jp_init_ticks = jp_ticks();
    jp_initialized = 1;
    jp_on = 1;
}

/* ---------------------------------------------------------------- lifecycle wrappers */

JP_EXPORT int MPI_Init(int *argc, char ***argv)
{
    struct jp_call c;
    jp_begin(&c);
    int rc = PMPI_Init(argc, argv);
    c.t1 = c.t0; /* counted, not timed: the application's time starts when it returns */
    jp_end(&c, JP_F_MPI_Init, 0);
    if (rc == MPI_SUCCESS) {
        jp_started();
    }
    return rc;
}

JP_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    struct jp_call c;
    jp_begin(&c);
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    c.t1 = c.t0; /* counted, not timed: the application's time starts when it returns */
    jp_end(&c, JP_F_MPI_Init_thread, 0);
    if (rc == MPI_SUCCESS) {
        jp_started();
    }
    return rc;
}

JP_EXPORT int MPI_Finalize(void)
{
    struct jp_call c;
    jp_begin(&c);
    jp_end_ticks = jp_ticks();
    c.t1 = c.t0;
    jp_end(&c, JP_F_MPI_Finalize, 0);
    jp_on = 0;
    int rc = PMPI_Finalize();
    if (!jp_ended) {
        /* No Java level wrote the profile (not in the entry list, or it failed): keep what we have. */
        jp_ended = 1;
        jp_dump(JP_FINALIZE, 0);
    }
    return rc;
}

JP_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    struct jp_call c;
    jp_begin(&c);
    c.t1 = c.t0;
    jp_end(&c, JP_F_MPI_Abort, 0);
    if (!jp_ended) {
        jp_ended = 1;
        jp_end_ticks = jp_ticks();
        jp_dump(JP_ABORT, errorcode);
    }
    return PMPI_Abort(comm, errorcode);
}

JP_EXPORT int MPI_Pcontrol(const int level, ...)
{
    struct jp_call c;
    jp_begin(&c);
    int rc = PMPI_Pcontrol(level);
    jp_stop(&c);
    jp_end(&c, JP_F_MPI_Pcontrol, 0);
    if (level == 0) {
        jp_on = 0;
    } else if (level == 1) {
        jp_on = 1;
    } else if (level == 2 && jp_initialized && !jp_ended) {
        jp_dump(JP_FLUSH, 0);
    }
    return rc;
}
