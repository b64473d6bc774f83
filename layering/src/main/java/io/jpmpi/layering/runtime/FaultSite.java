package io.jpmpi.layering.runtime;

import io.jpmpi.layering.generated.MpiFunctions;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Fault containment of one upcall (one function of one interceptor). The upcall's handle is
 * wrapped so that anything it throws - exceptions, errors such as StackOverflowError or
 * OutOfMemoryError, an attempted System.exit - ends here: the level reports it in one line and is
 * switched off, and the MPI call still completes. If the interceptor had already passed the call
 * on to the next level (CallMarks counts that per thread and function), that result is returned;
 * otherwise the call is made now, to the next level. The normal path costs one per-thread counter
 * read; this class's slow path may allocate.
 */
final class FaultSite {
    private static final MethodHandle RECOVER;
    private static final MethodHandle START;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            RECOVER = lookup.findVirtual(FaultSite.class, "recover",
                    MethodType.methodType(Object.class, Throwable.class, long.class, Object[].class));
            START = lookup.findStatic(CallMarks.class, "start", MethodType.methodType(long.class, int.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final JavaLevel level;
    private final String interceptor;
    private final int id;
    private final MethodType implType;
    private final boolean passOn;
    private volatile MethodHandle next;

    private FaultSite(JavaLevel level, String interceptor, int id, MethodType implType, boolean passOn) {
        this.level = level;
        this.interceptor = interceptor;
        this.id = id;
        this.implType = implType;
        this.passOn = passOn;
    }

    /**
     * {@code target} (the running MPI's types) with its faults contained. {@code passOn}: on a
     * fault, pass the call to the next level (false for MPI_Pcontrol, which the core delivers to
     * every level itself).
     */
    static MethodHandle contain(JavaLevel level, String interceptor, int id, MethodHandle target, boolean passOn) {
        MethodType t = target.type();
        FaultSite site = new FaultSite(level, interceptor, id, t, passOn);
        MethodHandle recover = RECOVER.bindTo(site).asCollector(Object[].class, t.parameterCount())
                .asType(t.insertParameterTypes(0, Throwable.class, long.class));
        MethodHandle guarded = MethodHandles.catchException(MethodHandles.dropArguments(target, 0, long.class),
                Throwable.class, recover);
        return MethodHandles.foldArguments(guarded, MethodHandles.insertArguments(START, 0, id));
    }

    @SuppressWarnings("unused") // through RECOVER
    private Object recover(Throwable fault, long start, Object[] args) throws Throwable {
        try {
            level.fault(interceptor, MpiFunctions.name(id), fault);
        } catch (Throwable ignored) {
            // reporting must not stop the call
        }
        if (!passOn) {
            return box(0);
        }
        CallMarks.State s = CallMarks.state();
        if (s.counts[id] != start) {
            return box(s.results[id]); // it had reached the next level: do not call twice
        }
        long target = level.nextDefinition(id);
        MethodHandle h = next;
        if (h == null) {
            h = Downcalls.implHandle(id);
            next = h;
        }
        Object[] full = new Object[args.length + 1];
        full[0] = MemorySegment.ofAddress(target);
        System.arraycopy(args, 0, full, 1, args.length);
        return h.invokeWithArguments(full);
    }

    private Object box(long bits) {
        Class<?> r = implType.returnType();
        if (r == int.class) {
            return (int) bits;
        }
        if (r == double.class) {
            return Double.longBitsToDouble(bits);
        }
        return bits;
    }
}
