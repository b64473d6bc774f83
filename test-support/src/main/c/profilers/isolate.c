/*
 * isolate: the workload of the tool-isolation tests: point-to-point, collectives and a
 * sub-communicator, in a fixed number of calls.
 *   isolate [iters=3]
 * Per iteration: MPI_Send/MPI_Recv around the ring (even ranks send first; 16 ints), MPI_Irecv +
 * MPI_Isend to both neighbours and MPI_Waitall (8 doubles each), MPI_Sendrecv to the right (4
 * ints), MPI_Isend/MPI_Irecv to the right with MPI_Wait each (1 int), MPI_Bcast (4 ints from
 * rank 0), MPI_Allreduce (2 doubles), MPI_Reduce (3 ints to rank 0), MPI_Gather (1 int to rank 0).
 * Then MPI_Comm_split by parity (key -rank), MPI_Comm_rank and MPI_Comm_size of it, MPI_Allreduce
 * and MPI_Bcast on it, its error handler read, set to MPI_ERRORS_RETURN and back (3
 * MPI_Comm_get_errhandler, 3 MPI_Errhandler_free, 2 MPI_Comm_set_errhandler), MPI_Comm_free,
 * MPI_Barrier on MPI_COMM_WORLD. Every rank prints "isolate rank R: <checksum>, error handlers as
 * set" from the values it received (the same with or without tools).
 * Besides: MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 3;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long long check = 0;
    for (int it = 0; it < iters; it++) {
        int ring_out[16], ring_in[16];
        for (int i = 0; i < 16; i++) {
            ring_out[i] = rank * 100 + it + i;
        }
        if (rank % 2 == 0) {
            MPI_Send(ring_out, 16, MPI_INT, right, 1, MPI_COMM_WORLD);
            MPI_Recv(ring_in, 16, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(ring_in, 16, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(ring_out, 16, MPI_INT, right, 1, MPI_COMM_WORLD);
        }
        check += ring_in[15];

        double halo_out[8], from_left[8], from_right[8];
        for (int i = 0; i < 8; i++) {
            halo_out[i] = rank + 0.5 * i;
        }
        MPI_Request reqs[4];
        MPI_Irecv(from_left, 8, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(from_right, 8, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &reqs[1]);
        MPI_Isend(halo_out, 8, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &reqs[2]);
        MPI_Isend(halo_out, 8, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &reqs[3]);
        MPI_Status sts[4];
        MPI_Waitall(4, reqs, sts);
        check += (long long)(from_left[7] + from_right[7]);

        int sr_out[4] = {rank, it, 7, 9}, sr_in[4];
        MPI_Sendrecv(sr_out, 4, MPI_INT, right, 4, sr_in, 4, MPI_INT, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check += sr_in[0];

        int one_out = rank + it, one_in = -1;
        MPI_Request r_send, r_recv;
        MPI_Irecv(&one_in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r_recv);
        MPI_Isend(&one_out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &r_send);
        MPI_Wait(&r_recv, MPI_STATUS_IGNORE);
        MPI_Wait(&r_send, MPI_STATUS_IGNORE);
        check += one_in;

        int b[4] = {0, 0, 0, 0};
        if (rank == 0) {
            b[0] = 11 + it;
            b[3] = 44;
        }
        MPI_Bcast(b, 4, MPI_INT, 0, MPI_COMM_WORLD);
        double a_in[2] = {rank, 1.0}, a_out[2];
        MPI_Allreduce(a_in, a_out, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        int red_in[3] = {rank, 1, it}, red_out[3] = {0, 0, 0};
        MPI_Reduce(red_in, red_out, 3, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        int *all = rank == 0 ? malloc(sizeof(int) * (size_t)size) : NULL;
        MPI_Gather(&rank, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
        check += b[0] + b[3] + (long long)a_out[0] + (long long)a_out[1] + red_out[0] + red_out[1];
        if (all) {
            check += all[size - 1];
            free(all);
        }
    }
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &sub);
    int sub_rank, sub_size;
    MPI_Comm_rank(sub, &sub_rank);
    MPI_Comm_size(sub, &sub_size);
    int s_in = rank, s_out = 0, s_b = sub_rank == 0 ? rank : -1;
    MPI_Allreduce(&s_in, &s_out, 1, MPI_INT, MPI_SUM, sub);
    MPI_Bcast(&s_b, 1, MPI_INT, 0, sub);
    /* error handlers as the program set them, whatever a tool does with them (profile's fatal watch) */
    int eh_ok = 1;
    MPI_Errhandler h;
    MPI_Comm_get_errhandler(sub, &h);
    eh_ok &= h == MPI_ERRORS_ARE_FATAL;
    MPI_Errhandler_free(&h);
    MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN);
    MPI_Comm_get_errhandler(sub, &h);
    eh_ok &= h == MPI_ERRORS_RETURN;
    MPI_Errhandler_free(&h);
    MPI_Comm_set_errhandler(sub, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_get_errhandler(sub, &h);
    eh_ok &= h == MPI_ERRORS_ARE_FATAL;
    MPI_Errhandler_free(&h);
    MPI_Comm_free(&sub);
    MPI_Barrier(MPI_COMM_WORLD);
    check += s_out * 1000 + s_b * 10 + sub_rank + sub_size;
    printf("isolate rank %d: %lld, error handlers %s\n", rank, check, eh_ok ? "as set" : "CHANGED");
    MPI_Finalize();
    return 0;
}
