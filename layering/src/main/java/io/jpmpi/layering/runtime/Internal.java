package io.jpmpi.layering.runtime;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.Level;
import io.jpmpi.layering.generated.Mpi;

/** How the runtime reaches into the API classes without making that public API. */
public final class Internal {
    /** Gives an interceptor its level and its two call positions; set by Interceptor's initializer. */
    public interface Attacher {
        void attach(Interceptor interceptor, Level level, Mpi pmpi, Mpi mpi);
    }

    private static volatile Attacher attacher;

    private Internal() {
    }

    public static void setAttacher(Attacher a) {
        if (attacher != null) {
            throw new IllegalStateException("already set");
        }
        attacher = a;
    }

    static void attach(Interceptor interceptor, Level level, Mpi pmpi, Mpi mpi) {
        attacher.attach(interceptor, level, pmpi, mpi);
    }
}
