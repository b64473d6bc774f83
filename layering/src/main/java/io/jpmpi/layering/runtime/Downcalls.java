package io.jpmpi.layering.runtime;

import io.jpmpi.layering.generated.MpiFunctions;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Downcall handles of the generated {@code Mpi} class: one per function, made on first use (each
 * lives in its own holder class), typed {@code (MemorySegment target, neutral arguments)}.
 */
@SuppressWarnings("restricted") // FFM is what this class is for; the JVM is started with --enable-native-access
public final class Downcalls {
    private Downcalls() {
    }

    /** The downcall handle of function {@code id} with the interceptor API's types. */
    public static MethodHandle handle(int id) {
        MethodType neutral = Shapes.neutralType(MpiFunctions.neutral(id)).insertParameterTypes(0, MemorySegment.class);
        String shape = MpiFunctions.shape(Bridge.get().implementation(), id);
        if (shape == null) {
            MethodHandle thrower = MethodHandles.throwException(neutral.returnType(), UnsupportedOperationException.class);
            thrower = MethodHandles.insertArguments(thrower, 0, missing(id));
            return MethodHandles.dropArguments(thrower, 0, neutral.parameterList());
        }
        return MethodHandles.explicitCastArguments(implHandle(id), neutral);
    }

    /** The downcall handle of function {@code id} with the running MPI's own types. */
    static MethodHandle implHandle(int id) {
        String shape = MpiFunctions.shape(Bridge.get().implementation(), id);
        return Linker.nativeLinker().downcallHandle(Shapes.descriptor(shape));
    }

    static UnsupportedOperationException missing(int id) {
        Bridge b = Bridge.get();
        return new UnsupportedOperationException(MpiFunctions.name(id) + " is not in " + b.implementation() + " "
                + b.version());
    }

    /** What a failed downcall throws (a native call itself does not throw: this is for the type system). */
    public static RuntimeException rethrow(int id, Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("calling " + MpiFunctions.name(id), t);
    }
}
