/*
 * libsitelib.so: MPI calls made by a shared library (the profile's call sites, SitesIT):
 * sitelib_ranks(n) calls MPI_Comm_rank n times from the line marked SITE-L.
 */
#include <mpi.h>

int sitelib_ranks(int n, int rank)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int r = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &r); /* SITE-L */
        bad |= r != rank;
    }
    return bad;
}
