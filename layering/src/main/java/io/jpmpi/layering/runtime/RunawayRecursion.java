package io.jpmpi.layering.runtime;

import io.jpmpi.layering.generated.MpiFunctions;

/**
 * Calls through a level's own top ({@code mpi()}) nested {@link CallMarks#SELF_DEPTH_LIMIT} deep on
 * one thread: an interceptor calling itself without end. Thrown while the stack still has room, so
 * the upcall contains it like any other fault (one line naming the level, the level switched off,
 * the application's call made once). A StackOverflowError, which is what it prevents.
 */
public final class RunawayRecursion extends StackOverflowError {
    private static final long serialVersionUID = 1L;

    RunawayRecursion(int id) {
        super("mpi()." + MpiFunctions.name(id) + " came back into this level " + CallMarks.SELF_DEPTH_LIMIT
                + " times on one thread without returning: endless recursion (an interceptor calling mpi() for"
                + " the call it intercepts passes it to itself; pmpi() passes it on)");
    }
}
