package io.jpmpi.layering.tools;

import io.jpmpi.layering.Interceptor;

/**
 * Sees the calls a program may make before MPI_Init (programs/preinit.c) and prints
 * "preinit-level rank R: MPI_Initialized=N MPI_T_init_thread=N MPI_T_finalize=N MPI_Init=N
 * afterInit=N" at MPI_Finalize.
 */
public final class PreInit extends Interceptor {
    private int initialized;
    private int tInit;
    private int tFinalize;
    private int init;
    private int afterInit;

    @Override
    public int MPI_Initialized(long flag) {
        initialized++;
        return pmpi().MPI_Initialized(flag);
    }

    @Override
    public int MPI_T_init_thread(int required, long provided) {
        tInit++;
        return pmpi().MPI_T_init_thread(required, provided);
    }

    @Override
    public int MPI_T_finalize() {
        tFinalize++;
        return pmpi().MPI_T_finalize();
    }

    @Override
    public int MPI_Init(long argc, long argv) {
        init++;
        return pmpi().MPI_Init(argc, argv);
    }

    @Override
    public void afterInit() {
        afterInit++;
    }

    @Override
    public void beforeFinalize() {
        System.out.println("preinit-level rank " + level().worldRank() + ": MPI_Initialized=" + initialized
                + " MPI_T_init_thread=" + tInit + " MPI_T_finalize=" + tFinalize + " MPI_Init=" + init
                + " afterInit=" + afterInit);
    }
}
