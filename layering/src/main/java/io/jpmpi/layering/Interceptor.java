package io.jpmpi.layering;

import io.jpmpi.layering.generated.InterceptorMethods;
import io.jpmpi.layering.generated.Mpi;
import io.jpmpi.layering.runtime.Internal;

/**
 * A Java interceptor: one level of the PMPI chain of an unmodified MPI program.
 *
 * <p>Override the MPI functions you want to see, with the C name and one Java parameter per C
 * parameter: a handle is the record of its C type ({@code MPI_Comm}, {@code MPI_Datatype}, ... of
 * {@code io.jpmpi.layering.generated}, so a datatype passed for a communicator does not compile),
 * a pointer is its address as a {@code long} (see {@link Memory}; a handle stored there is read
 * with e.g. {@code MPI_Comm.read(address)}); call {@link #pmpi()} to pass the call on to the next
 * level (the C {@code PMPI_X}), and return what it returns. Functions you do not override cost
 * nothing: jpmpi installs an upcall only for overridden methods. Handle records are compared with
 * {@code equals}, never {@code ==}.
 *
 * <p>Two ways down, never to be mixed up: {@link #pmpi()} passes on <em>the call you
 * intercepted</em>; {@link #library()} (and the helpers of {@link #level()}) is for <em>your own
 * work</em>: the type sizes, ranks and communicators you look up, your reductions and writes at
 * {@link #beforeFinalize()}. The library is seen by no level, so every tool in the chain sees
 * exactly the application's calls. jpmpi enforces it too: a {@code pmpi()} call of any function
 * other than the one being intercepted (or from any other moment or thread) goes to the library.
 *
 * <pre>{@code
 * public final class SendBytes extends Interceptor {
 *     private final LongAdder bytes = new LongAdder();
 *
 *     @Override
 *     public int MPI_Send(long buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
 *         bytes.add((long) count * level().typeSize(datatype));   // own work: the library
 *         return pmpi().MPI_Send(buf, count, datatype, dest, tag, comm); // the call: the next level
 *     }
 *
 *     @Override
 *     public void beforeFinalize() {
 *         // own work: a reduction of the tool's figures, which no other tool counts
 *         library().MPI_Reduce(...);
 *     }
 * }
 * }</pre>
 *
 * <p>Rules: a public no-argument constructor, and the class listed in the jar's
 * {@code META-INF/services/io.jpmpi.layering.Interceptor} (one class per line; several
 * interceptors in one jar stack in that order). Methods may be called from any thread the
 * application calls MPI from. Anything thrown out of an override is contained: the level is
 * switched off with one line on stderr and the call still completes. {@code System.out} is
 * stderr inside the JVM: the application owns stdout.
 */
public abstract class Interceptor extends InterceptorMethods {
    static {
        Internal.setAttacher((interceptor, level, pmpi, mpi) -> {
            interceptor.level = level;
            interceptor.pmpi = pmpi;
            interceptor.mpi = mpi;
        });
    }

    private Level level;
    private Mpi pmpi;
    private Mpi mpi;

    protected Interceptor() {
    }

    /**
     * The next level, for passing on the call this interceptor intercepted: {@code pmpi().MPI_Send(...)}
     * inside {@code MPI_Send} is the C {@code PMPI_Send(...)} of a tool. Any other call through it
     * goes to the library (see {@link #library()}).
     */
    @Override
    protected final Mpi pmpi() {
        return pmpi;
    }

    /**
     * This level (the top of this jar): {@code mpi().MPI_Send(...)} comes back through this interceptor.
     * Such calls nest at most 64 deep on a thread; an interceptor that passes the call it intercepts
     * to {@code mpi()} instead of {@code pmpi()} recurses without end and is switched off.
     */
    protected final Mpi mpi() {
        return mpi;
    }

    /** Where this interceptor sits, and helpers for its own work (they call the library). */
    public final Level level() {
        return level;
    }

    /**
     * The MPI library itself, for this tool's own calls: seen by no level (this one included), so no
     * tool counts them as the application's. Same as {@code level().library()}.
     */
    protected final Mpi library() {
        return level.library();
    }

    /**
     * Asked once per overridden MPI function when the level is installed (before the first MPI call
     * returns, so configuration from the environment is known): false leaves that function alone, no
     * upcall ever happens for it, as if it were not overridden. {@code function} is an id of
     * {@code MpiFunctions}. The default takes every override.
     */
    public boolean intercepts(int function) {
        return true;
    }

    /** Called after the application's MPI_Init or MPI_Init_thread succeeded. */
    public void afterInit() {
    }

    /**
     * Called when the application calls MPI_Finalize, before it goes on: MPI still works, so a tool
     * can duplicate MPI_COMM_WORLD and run its own collectives on the duplicate.
     */
    public void beforeFinalize() {
    }

    /** {@code MPI_Pcontrol(level)}: 0 stop recording, 1 record (the default), 2 flush; others are yours. */
    public void pcontrol(int level) {
    }
}
