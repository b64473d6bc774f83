package io.jpmpi.layering.runtime;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.generated.MpiFunctions;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * One upcall (one function of one interceptor), as the generated {@code Upcalls} adapters use it:
 * lifecycle callbacks, and fault containment. Anything the interceptor throws - exceptions,
 * errors such as StackOverflowError or OutOfMemoryError, an attempted System.exit - ends in
 * {@link #recover}: the level reports it in one line and is switched off, and the MPI call still
 * completes. If the interceptor had already passed the call on to the next level (CallMarks
 * counts that per thread and function), that result is returned; otherwise the call is made now,
 * to the next level. The normal path costs one per-thread counter read; recovery may allocate.
 */
public final class UpcallSite {
    private final JavaLevel level;
    private final Interceptor interceptor;
    private final int id;
    private final boolean afterInit;
    private final boolean beforeFinalize;
    private final Class<?> returns;
    private volatile MethodHandle next;

    UpcallSite(JavaLevel level, Interceptor interceptor, int id, boolean afterInit, boolean beforeFinalize) {
        this.level = level;
        this.interceptor = interceptor;
        this.id = id;
        this.afterInit = afterInit;
        this.beforeFinalize = beforeFinalize;
        this.returns = Shapes.neutralType(MpiFunctions.neutral(id)).returnType();
    }

    /** Taken when the upcall starts, compared if it fails. */
    public long start() {
        return CallMarks.start(id);
    }

    /** After the application's MPI_Init or MPI_Init_thread returned {@code rc}. */
    public void afterInit(int rc) {
        if (afterInit && rc == 0) {
            interceptor.afterInit();
        }
    }

    /** When the application calls MPI_Finalize, before it goes on. */
    public void beforeFinalize() {
        if (beforeFinalize) {
            interceptor.beforeFinalize();
        }
    }

    /** The interceptor threw {@code fault}: report, switch the level off, complete the call. */
    public Object recover(Throwable fault, long start, Object... args) {
        try {
            level.fault(interceptor.getClass().getName(), MpiFunctions.name(id), fault);
        } catch (Throwable ignored) {
            // reporting must not stop the call
        }
        CallMarks.State s = CallMarks.state();
        if (s.counts[id] != start) {
            return box(s.results[id]); // it had reached the next level: do not call twice
        }
        try {
            MethodHandle h = next;
            if (h == null) {
                h = Downcalls.handle(id);
                next = h;
            }
            Object[] full = new Object[args.length + 1];
            full[0] = MemorySegment.ofAddress(level.nextDefinition(id));
            System.arraycopy(args, 0, full, 1, args.length);
            return h.invokeWithArguments(full);
        } catch (Throwable t) {
            // Nothing may leave an upcall (the process would die): the call fails instead.
            level.report("cannot pass " + MpiFunctions.name(id) + " on after the fault: " + JavaLevel.oneLine(t.toString()));
            return box(Abi.integer("MPI_ERR_OTHER"));
        }
    }

    private Object box(long bits) {
        if (returns == int.class) {
            return (int) bits;
        }
        if (returns == double.class) {
            return Double.longBitsToDouble(bits);
        }
        return bits;
    }
}
