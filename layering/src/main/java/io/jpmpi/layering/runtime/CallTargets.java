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

    CallTargets(boolean next) {
        this.next = next;
    }

    /** True for the next level (calls through it count as delivered to it, see CallMarks). */
    public boolean next() {
        return next;
    }

    /** The target of function {@code id}; throws if this MPI does not have it. */
    public MemorySegment at(int id) {
        MemorySegment s = at[id];
        if (s == null) {
            throw Downcalls.missing(id);
        }
        return s;
    }

    void set(int id, long address) {
        at[id] = address == 0 ? null : MemorySegment.ofAddress(address);
    }
}
