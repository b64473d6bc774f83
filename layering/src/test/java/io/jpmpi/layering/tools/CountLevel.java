package io.jpmpi.layering.tools;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.MPI_Datatype;
import io.jpmpi.layering.generated.MPI_Op;
import java.util.concurrent.atomic.LongAdder;

/**
 * The Java twin of native-stubs' counttool.c: counts MPI_Init (and MPI_Init_thread), MPI_Send,
 * MPI_Recv, MPI_Barrier, MPI_Allreduce, MPI_Comm_rank and MPI_Finalize from any number of threads,
 * asks its rank once after init (a call that reaches the level below), and prints
 * "count NAME rank R: MPI_Init=.. ... MPI_Finalize=1" at MPI_Finalize (to stderr: a Java level's
 * System.out). MPI_Pcontrol prints "pcontrol NAME LEVEL rank R". NAME is the jar's name.
 */
public final class CountLevel extends Interceptor {
    private final LongAdder init = new LongAdder();
    private final LongAdder send = new LongAdder();
    private final LongAdder recv = new LongAdder();
    private final LongAdder barrier = new LongAdder();
    private final LongAdder allreduce = new LongAdder();
    private final LongAdder commRank = new LongAdder();
    private int rank = -1;

    private String name() {
        // Not Path.of: an entry the JVM's file-system encoding cannot spell (a C locale) is still a name.
        String jar = level().entry().substring(level().entry().lastIndexOf('/') + 1);
        return jar.substring(0, jar.length() - ".jar".length());
    }

    @Override
    public int MPI_Init(long argc, long argv) {
        init.increment();
        return pmpi().MPI_Init(argc, argv);
    }

    @Override
    public int MPI_Init_thread(long argc, long argv, int required, long provided) {
        init.increment();
        return pmpi().MPI_Init_thread(argc, argv, required, provided);
    }

    @Override
    public void afterInit() {
        rank = level().worldRank();
    }

    @Override
    public int MPI_Send(long buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
        send.increment();
        return pmpi().MPI_Send(buf, count, datatype, dest, tag, comm);
    }

    @Override
    public int MPI_Recv(long buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, long status) {
        recv.increment();
        return pmpi().MPI_Recv(buf, count, datatype, source, tag, comm, status);
    }

    @Override
    public int MPI_Barrier(MPI_Comm comm) {
        barrier.increment();
        return pmpi().MPI_Barrier(comm);
    }

    @Override
    public int MPI_Allreduce(long sendbuf, long recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
        allreduce.increment();
        return pmpi().MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    }

    @Override
    public int MPI_Comm_rank(MPI_Comm comm, long rank) {
        commRank.increment();
        return pmpi().MPI_Comm_rank(comm, rank);
    }

    @Override
    public int MPI_Finalize() {
        System.out.println("count " + name() + " rank " + rank + ": MPI_Init=" + init.sum() + " MPI_Send=" + send.sum()
                + " MPI_Recv=" + recv.sum() + " MPI_Barrier=" + barrier.sum() + " MPI_Allreduce=" + allreduce.sum()
                + " MPI_Comm_rank=" + commRank.sum() + " MPI_Finalize=1");
        return pmpi().MPI_Finalize();
    }

    @Override
    public void pcontrol(int level) {
        System.out.println("pcontrol " + name() + " " + level + " rank " + rank);
    }
}
