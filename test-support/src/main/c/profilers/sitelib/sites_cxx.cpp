/*
 * sites_cxx: call sites in a C++ program (the profile's call sites, SitesIT).
 *   sites_cxx
 * Every rank calls MPI_Comm_rank 10 times from a member function of a class in a namespace (the
 * line marked SITE-X), then MPI_Barrier once (SITE-Y), and prints "sites_cxx rank R: ok".
 * MPI calls besides: MPI_Init, MPI_Comm_rank, MPI_Finalize.
 */
#include <mpi.h>
#include <cstdio>

namespace probe {
class Ranker {
public:
    __attribute__((noinline)) int rank() const
    {
        int r = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &r); /* SITE-X */
        return r;
    }
};
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    probe::Ranker k;
    bool bad = false;
    for (int i = 0; i < 10; i++) {
        bad |= k.rank() != rank;
    }
    MPI_Barrier(MPI_COMM_WORLD); /* SITE-Y */
    std::printf("sites_cxx rank %d: %s\n", rank, bad ? "FAILED" : "ok");
    MPI_Finalize();
    return 0;
}
