package io.jpmpi.layering.tools;

import io.jpmpi.layering.Interceptor;

/**
 * A class as a tool compiled against jpmpi before typed handles has it: MPI_Barrier with the
 * communicator as a {@code long}. To today's API that is an overload, not an override (without
 * {@code @Override} it compiles); the level names it and intercepts nothing.
 */
public final class UntypedBarrier extends Interceptor {
    public int MPI_Barrier(long comm) {
        System.out.println("untyped MPI_Barrier called");
        return 0;
    }
}
