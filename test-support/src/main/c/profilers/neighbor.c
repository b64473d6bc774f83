/*
 * neighbor.c - neighbourhood collectives on three topologies of 4 ranks (reorder 0: topology rank =
 * world rank), every received block checked.
 *  - ring: 1-D periodic Cartesian; MPI_Neighbor_allgather of 3 ints, MPI_Neighbor_alltoall of 2
 *    ints per neighbour, MPI_Neighbor_alltoallv sending 1 int to the left and 2 to the right
 *    (so receiving 2 from the left, 1 from the right);
 *  - chain: 1-D non-periodic Cartesian; MPI_Neighbor_allgather of 1 int, MPI_Neighbor_alltoallw
 *    of an int to the left and a double to the right: the end ranks' missing neighbour is
 *    MPI_PROC_NULL, to and from which nothing moves;
 *    and MPI_Ineighbor_alltoall of 3 ints per neighbour, completed with MPI_Wait;
 *  - grid: 2-D non-periodic 2 x 2 Cartesian (every rank has one real neighbour in each dimension,
 *    MPI_PROC_NULL on the other side); MPI_Neighbor_allgather of 2 ints;
 *  - graph: MPI_Dist_graph_create_adjacent, rank r sending to r+1, rank 0 also to 2 (so rank 0
 *    has out-degree 2, rank 2 in-degree 2); MPI_Neighbor_allgather of 5 ints.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#define N 4

static int mod(int a)
{
    return (a % N + N) % N;
}

int main(int argc, char **argv)
{
    int rank, size, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != N) {
        fprintf(stderr, "neighbor: needs %d ranks, not %d\n", N, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int left = mod(rank - 1), right = mod(rank + 1);

    MPI_Comm ring;
    int n = N, periodic = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &periodic, 0, &ring);
    int mine[3] = {10 * rank, 10 * rank + 1, 10 * rank + 2}, from[6];
    MPI_Neighbor_allgather(mine, 3, MPI_INT, from, 3, MPI_INT, ring);
    for (int i = 0; i < 3; i++) {
        ok &= from[i] == 10 * left + i && from[3 + i] == 10 * right + i;
    }
    /* alltoall: block 0 to the left, block 1 to the right; 2 ints each */
    int out[4] = {100 * rank, 100 * rank + 1, 100 * rank + 2, 100 * rank + 3}, in[4];
    MPI_Neighbor_alltoall(out, 2, MPI_INT, in, 2, MPI_INT, ring);
    ok &= in[0] == 100 * left + 2 && in[1] == 100 * left + 3 && in[2] == 100 * right && in[3] == 100 * right + 1;
    int scounts[2] = {1, 2}, sdispls[2] = {0, 1}, rcounts[2] = {2, 1}, rdispls[2] = {0, 2};
    int vout[3] = {rank, rank + 10, rank + 20}, vin[3] = {-1, -1, -1};
    MPI_Neighbor_alltoallv(vout, scounts, sdispls, MPI_INT, vin, rcounts, rdispls, MPI_INT, ring);
    ok &= vin[0] == left + 10 && vin[1] == left + 20 && vin[2] == right;
    MPI_Comm_free(&ring);

    MPI_Comm chain;
    periodic = 0;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &periodic, 0, &chain);
    int end[2] = {-1, -1};
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, end, 1, MPI_INT, chain);
    /* a block from MPI_PROC_NULL is left as it was */
    ok &= end[0] == (rank > 0 ? rank - 1 : -1) && end[1] == (rank < N - 1 ? rank + 1 : -1);
    /* alltoallw: an int to the left, a double to the right (so a double from the left, an int from the right) */
    struct {
        int i;
        double d;
    } wout = {rank, rank + 0.5}, win = {-1, -1.0};
    int wcounts[2] = {1, 1};
    MPI_Aint souts[2] = {offsetof(__typeof__(wout), i), offsetof(__typeof__(wout), d)};
    MPI_Aint sins[2] = {offsetof(__typeof__(win), d), offsetof(__typeof__(win), i)};
    MPI_Datatype stypes[2] = {MPI_INT, MPI_DOUBLE}, rtypes[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Neighbor_alltoallw(&wout, wcounts, souts, stypes, &win, wcounts, sins, rtypes, chain);
    ok &= win.d == (rank > 0 ? rank - 1 + 0.5 : -1.0) && win.i == (rank < N - 1 ? rank + 1 : -1);
    /* non-blocking alltoall: 3 ints to the left (block 0) and to the right (block 1) */
    int tout[6], tin[6] = {-1, -1, -1, -1, -1, -1};
    for (int i = 0; i < 6; i++) {
        tout[i] = 100 * rank + i;
    }
    MPI_Request req;
    MPI_Ineighbor_alltoall(tout, 3, MPI_INT, tin, 3, MPI_INT, chain, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    ok &= rank == 0 ? tin[0] == -1 : tin[0] == 100 * (rank - 1) + 3;
    ok &= rank == N - 1 ? tin[3] == -1 : tin[3] == 100 * (rank + 1);
    MPI_Comm_free(&chain);

    MPI_Comm grid;
    int gdims[2] = {2, 2}, gperiods[2] = {0, 0};
    MPI_Cart_create(MPI_COMM_WORLD, 2, gdims, gperiods, 0, &grid);
    /* neighbours in MPI's order: dimension 0 down and up, dimension 1 down and up */
    int x = rank / 2, y = rank % 2, gnb[4] = {x > 0 ? rank - 2 : -1, x < 1 ? rank + 2 : -1, y > 0 ? rank - 1 : -1,
                                             y < 1 ? rank + 1 : -1};
    int gout[2] = {rank, 7}, gin[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    MPI_Neighbor_allgather(gout, 2, MPI_INT, gin, 2, MPI_INT, grid);
    for (int k = 0; k < 4; k++) {
        ok &= gin[2 * k] == gnb[k];
    }
    MPI_Comm_free(&grid);

    MPI_Comm graph;
    int dests[2] = {right, 2}, srcs[2] = {left, 0};
    int outdeg = rank == 0 ? 2 : 1, indeg = rank == 2 ? 2 : 1;
    /* weights rather than MPI_UNWEIGHTED: Open MPI's is a zero-length array gcc refuses to read */
    int weights[2] = {1, 1};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg, srcs, weights, outdeg, dests, weights, MPI_INFO_NULL, 0,
                                   &graph);
    int five[5], got[10];
    for (int i = 0; i < 5; i++) {
        five[i] = 1000 * rank + i;
    }
    MPI_Neighbor_allgather(five, 5, MPI_INT, got, 5, MPI_INT, graph);
    for (int k = 0; k < indeg; k++) {
        for (int i = 0; i < 5; i++) {
            ok &= got[5 * k + i] == 1000 * srcs[k] + i;
        }
    }
    MPI_Comm_free(&graph);

    printf("neighbor rank %d: %s\n", rank, ok ? "ok" : "WRONG");
    MPI_Finalize();
    return ok ? 0 : 1;
}
