package io.jpmpi.layering.tools;

import io.jpmpi.layering.Interceptor;

/** Its class initializer fails: the jar cannot be a level. */
public final class BrokenInit extends Interceptor {
    static final int VALUE = fail();

    private static int fail() {
        throw new IllegalStateException("broken on purpose");
    }
}
