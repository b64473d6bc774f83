/*
 * mpicount.c - an ordinary PMPI tool (it knows nothing of jpmpi): counts calls, time and bytes of
 * the point-to-point and collective calls a halo-exchange code makes, and prints one table from
 * rank 0 at MPI_Finalize. Used by ./demo.sh as a C level under libmpiprofilesupport.so.
 */
#include <mpi.h>
#include <stdio.h>

enum { SENDRECV, ISEND, IRECV, WAITALL, ALLREDUCE, BCAST, REDUCE, GATHER, NFUNC };
static const char *const names[NFUNC] = {"MPI_Sendrecv", "MPI_Isend", "MPI_Irecv", "MPI_Waitall",
                                         "MPI_Allreduce", "MPI_Bcast", "MPI_Reduce", "MPI_Gather"};
/* calls, seconds, bytes per function; one thread calls MPI in the demo. */
static double stats[NFUNC][3];

static double bytes_of(int count, MPI_Datatype type)
{
    int size = 0;
    PMPI_Type_size(type, &size);
    return (double)count * size;
}

#define TIMED(f, nbytes, call)                  \
    do {                                        \
        double t0 = PMPI_Wtime();               \
        int rc_ = (call);                       \
        stats[f][0] += 1;                       \
        stats[f][1] += PMPI_Wtime() - t0;       \
        stats[f][2] += (nbytes);                \
        return rc_;                             \
    } while (0)

int MPI_Sendrecv(const void *sb, int sc, MPI_Datatype st, int dest, int stag, void *rb, int rc, MPI_Datatype rt,
                 int src, int rtag, MPI_Comm comm, MPI_Status *status)
{
    TIMED(SENDRECV, dest == MPI_PROC_NULL ? 0 : bytes_of(sc, st),
          PMPI_Sendrecv(sb, sc, st, dest, stag, rb, rc, rt, src, rtag, comm, status));
}

int MPI_Isend(const void *b, int c, MPI_Datatype t, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    TIMED(ISEND, dest == MPI_PROC_NULL ? 0 : bytes_of(c, t), PMPI_Isend(b, c, t, dest, tag, comm, req));
}

int MPI_Irecv(void *b, int c, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
    TIMED(IRECV, 0, PMPI_Irecv(b, c, t, src, tag, comm, req));
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    TIMED(WAITALL, 0, PMPI_Waitall(n, reqs, statuses));
}

int MPI_Allreduce(const void *sb, void *rb, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    TIMED(ALLREDUCE, bytes_of(c, t), PMPI_Allreduce(sb, rb, c, t, op, comm));
}

int MPI_Bcast(void *b, int c, MPI_Datatype t, int root, MPI_Comm comm)
{
    TIMED(BCAST, bytes_of(c, t), PMPI_Bcast(b, c, t, root, comm));
}

int MPI_Reduce(const void *sb, void *rb, int c, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm)
{
    TIMED(REDUCE, bytes_of(c, t), PMPI_Reduce(sb, rb, c, t, op, root, comm));
}

int MPI_Gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root, MPI_Comm comm)
{
    TIMED(GATHER, bytes_of(sc, st), PMPI_Gather(sb, sc, st, rb, rc, rt, root, comm));
}

int MPI_Finalize(void)
{
    /* The tool's own traffic goes over a duplicate, so the application never sees it. */
    MPI_Comm comm;
    int rank, size;
    PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    double sum[NFUNC][3], max[NFUNC][3];
    PMPI_Reduce(stats, sum, NFUNC * 3, MPI_DOUBLE, MPI_SUM, 0, comm);
    PMPI_Reduce(stats, max, NFUNC * 3, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (rank == 0) {
        printf("mpicount: %d ranks\n", size);
        printf("mpicount: %-14s %10s %12s %12s %14s\n", "function", "calls", "time s", "max rank s", "bytes");
        for (int f = 0; f < NFUNC; f++) {
            if (sum[f][0] > 0) {
                printf("mpicount: %-14s %10.0f %12.6f %12.6f %14.0f\n", names[f], sum[f][0], sum[f][1], max[f][1],
                       sum[f][2]);
            }
        }
        fflush(stdout);
    }
    PMPI_Comm_free(&comm);
    return PMPI_Finalize();
}
