package io.jpmpi.layering.tools;

import io.jpmpi.layering.Interceptor;

/** Its constructor fails: the launcher cannot know (it does not instantiate), every rank says so. */
public final class ThrowingConstructor extends Interceptor {
    public ThrowingConstructor() {
        throw new IllegalStateException("constructor broken on purpose");
    }
}
