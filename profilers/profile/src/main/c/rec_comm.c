/*
 * rec_comm.c - the profile recorder's view of ranks: the world ranks of the ranks of communicators
 * and windows (the matrix is by world rank), and the semantics that need only that: point-to-point
 * messages and one-sided operations (origin side).
 */
#define _GNU_SOURCE
#include "recorder_private.h"

#include <pthread.h>
#include <stdlib.h>

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
    size_t bytes = sizeof(int) * (size_t)n;
    int *from = jp_mem_alloc(bytes);
    int *to = jp_mem_alloc(bytes);
    if (!from || !to || jp_world_group == MPI_GROUP_NULL) {
        jp_mem_free(from, bytes);
        jp_mem_free(to, bytes);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        from[i] = i;
    }
    /* the world's group, not MPI_COMM_WORLD's: a program of sessions only has no MPI_COMM_WORLD */
    int rc = PMPI_Group_translate_ranks(g, n, from, jp_world_group, to);
    jp_mem_free(from, bytes);
    if (rc != MPI_SUCCESS) {
        jp_mem_free(to, bytes);
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

/*
 * Bumped whenever a map goes (under jp_maps_lock): a thread's copy of a map (jp_thread.wcache) is
 * good only while this stays what it was then, since a freed handle's value may come back as
 * another communicator's. It starts at 1, so that a new thread's zeroed copy is never good.
 */
uint64_t jp_maps_gen = 1;

/*
 * The world rank of rank `r` (>= 0) of the group `key` (a communicator's, its remote group for an
 * inter-communicator, or a window's), or -1, when the thread's last map (jp_wcache_hit) is another:
 * found or made under the lock, and kept (a program's messages mostly go to one communicator in a
 * row). Freeing a handle while another thread uses it is erroneous in MPI: the map another thread
 * holds is never freed under it.
 */
static int jp_world_locked(struct jp_thread *t, uintptr_t key, int kind, MPI_Comm comm, MPI_Win win, int r)
{
    pthread_mutex_lock(&jp_maps_lock);
    struct jp_map *m = jp_map_find(key, kind, 1, comm, win);
    int w = m && r < m->n ? m->world[r] : -1;
    if (m && t) {
        t->wcache.key = key;
        t->wcache.kind = kind;
        t->wcache.n = m->n;
        t->wcache.world = m->world;
        t->wcache.gen = __atomic_load_n(&jp_maps_gen, __ATOMIC_RELAXED); /* (only bumped under the lock) */
    }
    pthread_mutex_unlock(&jp_maps_lock);
    return w == MPI_UNDEFINED ? -1 : w;
}

int jp_world_miss(struct jp_thread *t, MPI_Comm comm, int r)
{
    return jp_world_locked(t, (uintptr_t)comm, 1, comm, MPI_WIN_NULL, r);
}

static int jp_win_world(struct jp_thread *t, MPI_Win win, int r)
{
    int w;
    if (r < 0) {
        return -1;
    }
    if (jp_wcache_hit(t, (uintptr_t)win, 2, r, 1, &w)) {
        return w < 0 ? -1 : w; /* (MPI_UNDEFINED is negative) */
    }
    return jp_world_locked(t, (uintptr_t)win, 2, MPI_COMM_NULL, win, r);
}

static void jp_map_forget(uintptr_t key, int kind)
{
    pthread_mutex_lock(&jp_maps_lock);
    struct jp_map *m = jp_map_find(key, kind, 0, MPI_COMM_NULL, MPI_WIN_NULL);
    if (m) {
        __atomic_add_fetch(&jp_maps_gen, 1, __ATOMIC_RELEASE); /* (before the ranks go: no thread's copy is good now) */
        jp_mem_free(m->world, sizeof(int) * (size_t)m->n);
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

/* ---------------------------------------------------------------- point-to-point */

void jp_send_peer(struct jp_thread *t, int64_t bytes, int dest, MPI_Comm comm)
{
    jp_matrix_add(t, jp_world(t, comm, dest), bytes);
}

/* ---------------------------------------------------------------- one-sided */

void jp_rma(struct jp_call *c, int64_t sent, int64_t recv, int target, MPI_Win win)
{
    if (target == MPI_PROC_NULL) { /* a valid target that moves nothing, as in point-to-point */
        return;
    }
    c->sent += sent;
    c->recv += recv;
    if (c->on && sent > 0) {
        jp_matrix(c, jp_win_world(c->t, win, target), sent);
    }
}

