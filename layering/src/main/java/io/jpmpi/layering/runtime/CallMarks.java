package io.jpmpi.layering.runtime;

import io.jpmpi.layering.generated.MpiFunctions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Per-thread state of the Java levels, reached without allocating: for fault containment, how
 * often this thread has passed each function on to a next level and the last result it got (so a
 * fault after the call was passed on returns that result instead of calling twice); the depth of
 * each {@code ReentryGuard}; and a little native scratch memory for the helpers' out-parameters.
 * The first thread to get here takes a fast path (one field compare); others use a ThreadLocal.
 */
public final class CallMarks {
    /** One thread's state. */
    public static final class State {
        final long[] counts = new long[MpiFunctions.COUNT];
        final long[] results = new long[MpiFunctions.COUNT];
        int[] guards = new int[8];
        /** How many calls through a level's own top (mpi()) this thread is inside. */
        int selfDepth;
        /** 64 bytes of native memory for out-parameters of helper calls. */
        public final MemorySegment scratch = Arena.ofAuto().allocate(64, 8);
    }

    private record Owner(Thread thread, State state) {
    }

    private static final ThreadLocal<State> STATES = ThreadLocal.withInitial(State::new);
    private static volatile Owner first;
    private static int guardCount;

    private CallMarks() {
    }

    public static State state() {
        Owner o = first;
        if (o != null && o.thread == Thread.currentThread()) {
            return o.state;
        }
        return slow();
    }

    private static State slow() {
        State s = STATES.get();
        if (first == null) {
            first = new Owner(Thread.currentThread(), s);
        }
        return s;
    }

    /** A call of {@code id} was passed to the next level and returned {@code result} (raw bits). */
    public static void delivered(int id, long result) {
        State s = state();
        s.counts[id]++;
        s.results[id] = result;
    }

    /**
     * How deep calls through a level's own top (an interceptor's {@code mpi()}) may nest on one
     * thread: far beyond what a tool needs (a few), far short of the end of a thread's stack (each
     * nesting takes a downcall, an upcall and their frames). An interceptor whose {@code MPI_X} calls
     * {@code mpi().MPI_X} unguarded would otherwise recurse until the stack ends, where not even
     * the upcall's fault handling has room and the JVM ends the process.
     */
    public static final int SELF_DEPTH_LIMIT = 64;

    /** A call through a level's own top of {@code id}: throws RunawayRecursion past the limit. */
    static void enterSelf(int id) {
        State s = state();
        if (s.selfDepth >= SELF_DEPTH_LIMIT) {
            throw new RunawayRecursion(id);
        }
        s.selfDepth++;
    }

    /** That call returned (or failed). */
    public static void leftSelf() {
        state().selfDepth--;
    }

    /** Taken when an upcall starts: compared when it fails. */
    static long start(int id) {
        return state().counts[id];
    }


    /** The guard depths of this thread, with room for guard {@code index}. */
    public static int[] guards(int index) {
        State s = state();
        if (index >= s.guards.length) {
            s.guards = java.util.Arrays.copyOf(s.guards, Math.max(index + 1, 2 * s.guards.length));
        }
        return s.guards;
    }

    /** A new guard's index. */
    public static synchronized int allocateGuard() {
        return guardCount++;
    }
}
