/* preloadenv.c - what an MPI program sees of the one preload (lib/libjpmpi-preload.so): each rank
 * prints its LD_PRELOAD, whether the preload's internal variable is still there, and every
 * dispatcher mapped into it (a line per path, from /proc/self/maps), then rank 0 exits with the
 * status given as its argument. Under the preload: the LD_PRELOAD it was given, no internal
 * variable, exactly one dispatcher, the one of the program's MPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *preload = getenv("LD_PRELOAD");
    printf("preloadenv rank %d: LD_PRELOAD=%s saved=%s\n", rank, preload ? preload : "(unset)",
           getenv("JPMPI_PRELOAD_SAVED") ? "set" : "unset");
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096], last[4096] = "";
    while (maps && fgets(line, sizeof line, maps)) {
        char *path = strchr(line, '/');
        if (path && strstr(path, "libmpiprofilesupport.so") && strcmp(path, last) != 0) {
            snprintf(last, sizeof last, "%s", path); /* a library's mappings are contiguous */
            printf("preloadenv rank %d: dispatcher %s", rank, path);
        }
    }
    if (maps) {
        fclose(maps);
    }
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return rank == 0 && argc > 1 ? atoi(argv[1]) : 0;
}
