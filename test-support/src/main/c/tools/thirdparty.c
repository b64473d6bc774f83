/*
 * thirdparty.c - a PMPI tool written the way typical third-party profilers are (it knows nothing of
 * jpmpi): its own MPI calls are everywhere.
 *   - MPI_Init / MPI_Init_thread: PMPI_Comm_rank and PMPI_Comm_size of MPI_COMM_WORLD after init;
 *   - send and collective wrappers: PMPI_Type_size for the bytes, collectives PMPI_Comm_size too;
 *   - MPI_Comm_split: PMPI_Comm_rank and PMPI_Comm_size of the new communicator;
 *   - MPI_Finalize: PMPI_Reduce of every rank's call total to rank 0, PMPI_Gather of the totals,
 *     a PMPI_Sendrecv around the ring (each rank learns its left neighbour's total), PMPI_Barrier.
 * At MPI_Finalize every rank writes $THIRDPARTY_DIR/thirdparty-<rank>.txt (default: the working
 * directory): "<function> <calls> <bytes>" for each function it wraps that was called, then
 * "left <total>", and on rank 0 "sum <total>" and "gathered <t0> <t1> ...". Run alone, and run
 * in any stack of tools, the file must be the same: those are the program's calls only.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    F_INIT, F_SEND, F_RECV, F_ISEND, F_IRECV, F_SENDRECV, F_WAIT, F_WAITALL, F_BCAST, F_REDUCE, F_ALLREDUCE,
    F_GATHER, F_BARRIER, F_SPLIT, F_FREE, F_RANK, F_SIZE, F_FINALIZE, NF
};
static const char *const names[NF] = {
    "MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Sendrecv", "MPI_Wait", "MPI_Waitall",
    "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Gather", "MPI_Barrier", "MPI_Comm_split", "MPI_Comm_free",
    "MPI_Comm_rank", "MPI_Comm_size", "MPI_Finalize"};
static long long calls[NF], bytes[NF];
static int world_rank = -1, world_size;

static long long size_of(int count, MPI_Datatype type)
{
    int size = 0;
    PMPI_Type_size(type, &size);
    return (long long)count * size;
}

static void after_init(void)
{
    calls[F_INIT]++;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    after_init();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    after_init();
    return rc;
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    calls[F_SEND]++;
    bytes[F_SEND] += size_of(count, type);
    return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    calls[F_RECV]++;
    return PMPI_Recv(buf, count, type, source, tag, comm, status);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    calls[F_ISEND]++;
    bytes[F_ISEND] += size_of(count, type);
    return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *req)
{
    calls[F_IRECV]++;
    return PMPI_Irecv(buf, count, type, source, tag, comm, req);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                 MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    calls[F_SENDRECV]++;
    bytes[F_SENDRECV] += size_of(scount, stype);
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status);
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    calls[F_WAIT]++;
    return PMPI_Wait(req, status);
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    calls[F_WAITALL]++;
    return PMPI_Waitall(n, reqs, statuses);
}

/* A collective's bytes: the tool's own guess, count x type size x communicator size. */
static long long coll_bytes(int count, MPI_Datatype type, MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    return size_of(count, type) * n;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    calls[F_BCAST]++;
    bytes[F_BCAST] += coll_bytes(count, type, comm);
    return PMPI_Bcast(buf, count, type, root, comm);
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    calls[F_REDUCE]++;
    bytes[F_REDUCE] += coll_bytes(count, type, comm);
    return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    calls[F_ALLREDUCE]++;
    bytes[F_ALLREDUCE] += coll_bytes(count, type, comm);
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
               MPI_Comm comm)
{
    calls[F_GATHER]++;
    bytes[F_GATHER] += coll_bytes(scount, stype, comm);
    return PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}

int MPI_Barrier(MPI_Comm comm)
{
    calls[F_BARRIER]++;
    return PMPI_Barrier(comm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    calls[F_SPLIT]++;
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL) {
        int r = 0, n = 0;
        PMPI_Comm_rank(*newcomm, &r);
        PMPI_Comm_size(*newcomm, &n);
    }
    return rc;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    calls[F_FREE]++;
    return PMPI_Comm_free(comm);
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    calls[F_RANK]++;
    return PMPI_Comm_rank(comm, rank);
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    calls[F_SIZE]++;
    return PMPI_Comm_size(comm, size);
}

int MPI_Finalize(void)
{
    calls[F_FINALIZE]++;
    long long total = 0;
    for (int f = 0; f < NF; f++) {
        total += calls[f];
    }
    long long sum = 0, left = -1;
    long long *gathered = world_rank == 0 ? calloc((size_t)world_size, sizeof *gathered) : NULL;
    PMPI_Reduce(&total, &sum, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Gather(&total, 1, MPI_LONG_LONG, gathered, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    int right_rank = (world_rank + 1) % world_size, left_rank = (world_rank + world_size - 1) % world_size;
    PMPI_Sendrecv(&total, 1, MPI_LONG_LONG, right_rank, 77, &left, 1, MPI_LONG_LONG, left_rank, 77, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
    PMPI_Barrier(MPI_COMM_WORLD);

    const char *dir = getenv("THIRDPARTY_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/thirdparty-%d.txt", dir && *dir ? dir : ".", world_rank);
    FILE *out = fopen(path, "w");
    if (out) {
        for (int f = 0; f < NF; f++) {
            if (calls[f]) {
                fprintf(out, "%s %lld %lld\n", names[f], calls[f], bytes[f]);
            }
        }
        fprintf(out, "left %lld\n", left);
        if (world_rank == 0) {
            fprintf(out, "sum %lld\ngathered", sum);
            for (int r = 0; r < world_size; r++) {
                fprintf(out, " %lld", gathered[r]);
            }
            fprintf(out, "\n");
        }
        fclose(out);
    } else {
        fprintf(stderr, "thirdparty: cannot write %s\n", path);
    }
    free(gathered);
    return PMPI_Finalize();
}
