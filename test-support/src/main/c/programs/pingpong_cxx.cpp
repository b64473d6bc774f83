// pingpong_cxx.cpp - pingpong.c compiled as C++ (the C API from C++): the same calls, the same
// output. Usage: pingpong_cxx [K] (default 3).
#include <mpi.h>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv)
{
    std::printf("pingpong: start\n");
    std::fflush(stdout);
    const int k = argc > 1 ? std::atoi(argv[1]) : 3;
    int rank = 0, nranks = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Pcontrol(2);
    int echo_sum = 0;
    for (int i = 1; i <= k && nranks >= 2; i++) {
        int value = 0;
        if (rank == 0) {
            value = i * 7 + 1;
            MPI_Send(&value, 1, MPI_INT, 1, 17, MPI_COMM_WORLD);
            MPI_Recv(&value, 1, MPI_INT, 1, 18, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            echo_sum += value;
        } else if (rank == 1) {
            MPI_Recv(&value, 1, MPI_INT, 0, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            value += 1000;
            MPI_Send(&value, 1, MPI_INT, 0, 18, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int mine = rank + 1, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        std::printf("pingpong result: ranks=%d K=%d echo_sum=%d allreduce=%d\n", nranks, k, echo_sum, total);
        std::fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
