package io.jpmpi.layering.runtime;

import io.jpmpi.layering.generated.MpiFunctions;
import java.lang.foreign.MemorySegment;

/**
 * Where one {@code Mpi} object's calls go: per function id, the address of the definition at its
 * position in the chain. Refreshed by the runtime whenever the chain is relinked.
 */
public final class CallTargets {
    private final MemorySegment[] at = new MemorySegment[MpiFunctions.COUNT];
    private final boolean next;
    private final boolean self;

    CallTargets(boolean next) {
        this(next, false);
    }

    /** {@code self}: a level's own top (an interceptor's mpi()), whose calls come back into the level. */
    CallTargets(boolean next, boolean self) {
        this.next = next;
        this.self = self;
    }

    /** True for the next level (calls through it count as delivered to it, see CallMarks). */
    public boolean next() {
        return next;
    }

    /** True for a level's own top: each call is counted in and out (CallMarks.enterSelf, leftSelf). */
    public boolean self() {
        return self;
    }

    /**
     * The target of function {@code id}; throws if this MPI does not have it, and, through a level's
     * own top, when the calls back into the level nest too deep on this thread (CallMarks.enterSelf).
     */
    public MemorySegment at(int id) {
        MemorySegment s = at[id];
        if (s == null) {
            throw Downcalls.missing(id);
        }
        if (self) {
            CallMarks.enterSelf(id);
        }
        return s;
    }

    void set(int id, long address) {
        at[id] = address == 0 ? null : MemorySegment.ofAddress(address);
    }
}
