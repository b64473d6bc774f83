package io.jpmpi.layering.tools;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.MPI_Datatype;
import io.jpmpi.layering.generated.MPI_Op;
import java.util.ArrayList;
import java.util.List;

/**
 * Stress for the soak test: inside MPI calls it allocates, keeps some garbage alive, forces a
 * full GC every 2000 calls (every thread stops at a safepoint while MPI runs its progress
 * engine), and dereferences fields that are sometimes null in compiled code (implicit null
 * checks: the JVM's SIGSEGV handler must get those faults, not the MPI library's). Prints
 * "gcstress rank R: calls=N gcs=G npes=E" at MPI_Finalize.
 */
public final class GcStress extends Interceptor {
    static final class Node {
        Node next;
        long value;
    }

    private final List<long[]> live = new ArrayList<>();
    private Node maybe;
    private long calls;
    private long gcs;
    private long npes;

    private void stress() {
        calls++;
        live.add(new long[64 + (int) (calls % 512)]);
        if (live.size() > 4096) {
            live.subList(0, 2048).clear();
        }
        maybe = (calls % 3 == 0) ? null : new Node();
        try {
            npes += touch(maybe);
        } catch (NullPointerException e) {
            npes++;
        }
        if (calls % 2000 == 0) {
            System.gc();
            gcs++;
        }
    }

    private static long touch(Node n) {
        return n.value; // implicit null check once compiled
    }

    @Override
    public int MPI_Isend(long buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, long request) {
        stress();
        return pmpi().MPI_Isend(buf, count, datatype, dest, tag, comm, request);
    }

    @Override
    public int MPI_Irecv(long buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, long request) {
        stress();
        return pmpi().MPI_Irecv(buf, count, datatype, source, tag, comm, request);
    }

    @Override
    public int MPI_Waitall(int count, long requests, long statuses) {
        stress();
        return pmpi().MPI_Waitall(count, requests, statuses);
    }

    @Override
    public int MPI_Allreduce(long sendbuf, long recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
        stress();
        return pmpi().MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    }

    @Override
    public int MPI_Bcast(long buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
        stress();
        return pmpi().MPI_Bcast(buffer, count, datatype, root, comm);
    }

    @Override
    public int MPI_Finalize() {
        System.out.println("gcstress rank " + level().worldRank() + ": calls=" + calls + " gcs=" + gcs + " npes=" + npes);
        return pmpi().MPI_Finalize();
    }
}
