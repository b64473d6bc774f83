package io.jpmpi.examples.counter;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.Status;
import io.jpmpi.layering.generated.Constants;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.MPI_Datatype;
import io.jpmpi.layering.generated.MPI_Op;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * An example Java level: counts the calls of a few MPI functions and the bytes they move, and
 * prints one line per rank when the application calls MPI_Finalize:
 *
 * <pre>
 * count java-counter rank 0: MPI_Send=5 MPI_Recv=5 MPI_Barrier=1 MPI_Allreduce=1 bytes_sent=20 bytes_recv=20 MPI_Isend=0 MPI_Irecv=0 MPI_Bcast=0 MPI_Reduce=0 bytes_coll=4
 * </pre>
 *
 * <p>What the byte counters mean:
 * <ul>
 * <li>{@code bytes_sent}: MPI_Send and MPI_Isend, count × MPI_Type_size(datatype), when the call
 *     returned MPI_SUCCESS.</li>
 * <li>{@code bytes_recv}: MPI_Recv with a status: what arrived (MPI_Get_count of the status ×
 *     type size). MPI_Recv with MPI_STATUS_IGNORE, and MPI_Irecv (whose size is known only when a
 *     Wait/Test completes it, which this example does not intercept): count × type size, the
 *     buffer's capacity, so an upper bound of what arrived.</li>
 * <li>{@code bytes_coll}: MPI_Bcast, MPI_Reduce and MPI_Allreduce, count × type size, this rank's
 *     buffer (what it contributes or receives, not what the algorithm moves on the wire).
 *     MPI_Barrier moves no data: calls only.</li>
 * </ul>
 *
 * <p>{@code MPI_Pcontrol(0)} stops counting, {@code MPI_Pcontrol(1)} resumes; other levels
 * (2, "flush", among them) change nothing here.
 *
 * <p>No {@link io.jpmpi.layering.ReentryGuard}: none of these functions is implemented, in Open
 * MPI or MPICH, by calling another MPI function through the profiling interface (their
 * collectives use internal point-to-point paths, not MPI_Send), the Fortran layer passes each
 * call through the levels once, and the helpers of {@link #level()} call the library, so they
 * never come back through this class. A counter of, say, MPI_Sendrecv next to MPI_Send on an MPI
 * that built one from the other would need the guard to count only the outermost call.
 */
public final class CallCounter extends Interceptor {
    /** The tool name in the count line. */
    public static final String TOOL = "java-counter";

    // One slot per counter. Plain long fields would be enough for a single-threaded program but
    // lose updates when several threads call MPI at once (MPI_THREAD_MULTIPLE), and interceptor
    // methods run on whatever thread the application calls MPI from. AtomicLongArray is
    // thread-safe and never allocates after construction: an increment is one atomic add, noise
    // next to the MPI call it counts. (LongAdder scales better under heavy contention but
    // allocates its cells the first time two threads collide, on the hot path, and costs one
    // object per counter.)
    private static final int SEND = 0;
    private static final int RECV = 1;
    private static final int BARRIER = 2;
    private static final int ALLREDUCE = 3;
    private static final int BYTES_SENT = 4;
    private static final int BYTES_RECV = 5;
    private static final int ISEND = 6;
    private static final int IRECV = 7;
    private static final int BCAST = 8;
    private static final int REDUCE = 9;
    private static final int BYTES_COLL = 10;
    /** Field names of the count line, indexed like the counters, in print order. */
    private static final String[] NAMES = {
        "MPI_Send", "MPI_Recv", "MPI_Barrier", "MPI_Allreduce", "bytes_sent", "bytes_recv",
        "MPI_Isend", "MPI_Irecv", "MPI_Bcast", "MPI_Reduce", "bytes_coll",
    };

    private final AtomicLongArray counts = new AtomicLongArray(NAMES.length);
    /** Cleared by MPI_Pcontrol(0), set by MPI_Pcontrol(1); volatile: any thread may call either. */
    private volatile boolean recording = true;
    /** The rank in MPI_COMM_WORLD, known from afterInit on; -1 before. */
    private volatile int rank = -1;

    /** ServiceLoader needs a public no-argument constructor. */
    public CallCounter() {
    }

    // ---- lifecycle ----

    @Override
    public void afterInit() {
        rank = level().worldRank();
    }

    @Override
    public void beforeFinalize() {
        int r = rank >= 0 ? rank : level().worldRank();
        StringBuilder line = new StringBuilder(256).append("count ").append(TOOL).append(" rank ").append(r).append(':');
        for (int i = 0; i < NAMES.length; i++) {
            line.append(' ').append(NAMES[i]).append('=').append(counts.get(i));
        }
        // System.out of a Java level is stderr: the application's stdout stays its own. One
        // println is one write, so lines of different ranks do not mix.
        System.out.println(line);
    }

    @Override
    public void pcontrol(int level) {
        if (level == 0) {
            recording = false;
        } else if (level == 1) {
            recording = true;
        }
    }

    // ---- point to point ----

    @Override
    public int MPI_Send(long buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
        int rc = pmpi().MPI_Send(buf, count, datatype, dest, tag, comm);
        record(SEND, BYTES_SENT, rc, count, datatype);
        return rc;
    }

    @Override
    public int MPI_Isend(long buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, long request) {
        int rc = pmpi().MPI_Isend(buf, count, datatype, dest, tag, comm, request);
        record(ISEND, BYTES_SENT, rc, count, datatype);
        return rc;
    }

    @Override
    public int MPI_Recv(long buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, long status) {
        int rc = pmpi().MPI_Recv(buf, count, datatype, source, tag, comm, status);
        if (recording) {
            counts.incrementAndGet(RECV);
            if (rc == Constants.MPI_SUCCESS && !Status.ignored(status)) {
                // The status says how many elements arrived; MPI_Get_count gives MPI_UNDEFINED
                // when that is not a whole number of them: fall back to the bound.
                int got = level().count(status, datatype);
                if (got != Constants.MPI_UNDEFINED) {
                    counts.addAndGet(BYTES_RECV, got == 0 ? 0 : (long) got * level().typeSize(datatype));
                } else {
                    addBytes(BYTES_RECV, rc, count, datatype);
                }
            } else {
                // MPI_STATUS_IGNORE: the buffer's capacity, an upper bound of what arrived.
                addBytes(BYTES_RECV, rc, count, datatype);
            }
        }
        return rc;
    }

    @Override
    public int MPI_Irecv(long buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, long request) {
        int rc = pmpi().MPI_Irecv(buf, count, datatype, source, tag, comm, request);
        record(IRECV, BYTES_RECV, rc, count, datatype); // an upper bound, see the class comment
        return rc;
    }

    // ---- collectives ----

    @Override
    public int MPI_Bcast(long buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
        int rc = pmpi().MPI_Bcast(buffer, count, datatype, root, comm);
        record(BCAST, BYTES_COLL, rc, count, datatype);
        return rc;
    }

    @Override
    public int MPI_Reduce(long sendbuf, long recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
        int rc = pmpi().MPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
        record(REDUCE, BYTES_COLL, rc, count, datatype);
        return rc;
    }

    @Override
    public int MPI_Allreduce(long sendbuf, long recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
        int rc = pmpi().MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
        record(ALLREDUCE, BYTES_COLL, rc, count, datatype);
        return rc;
    }

    @Override
    public int MPI_Barrier(MPI_Comm comm) {
        int rc = pmpi().MPI_Barrier(comm);
        if (recording) {
            counts.incrementAndGet(BARRIER);
        }
        return rc;
    }

    /** One call of counter {@code call}, and its bytes in counter {@code bytes}, while recording. */
    private void record(int call, int bytes, int rc, int count, MPI_Datatype datatype) {
        if (recording) {
            counts.incrementAndGet(call);
            addBytes(bytes, rc, count, datatype);
        }
    }

    /**
     * Adds count × MPI_Type_size(datatype) to counter {@code slot} if the call succeeded. The
     * size is asked after the call, and only then: a datatype the call rejected (or
     * MPI_DATATYPE_NULL with count 0) is never passed to MPI_Type_size, whose failure would be a
     * fault of this level.
     */
    private void addBytes(int slot, int rc, int count, MPI_Datatype datatype) {
        if (rc == Constants.MPI_SUCCESS && count > 0) {
            counts.addAndGet(slot, (long) count * level().typeSize(datatype));
        }
    }
}
