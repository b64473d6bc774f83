package io.jpmpi.layering.runtime;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;

/**
 * Handles in the application's memory (out-parameters, arrays of requests), in the width the
 * running MPI gives their type: what the generated handle records' {@code read} and {@code write}
 * use. An int handle is sign-extended, as the downcalls and upcalls widen it, so a handle read here
 * equals the same handle passed in a call.
 */
@SuppressWarnings("restricted") // FFM is what this class is for; the JVM is started with --enable-native-access
public final class HandleMemory {
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private HandleMemory() {
    }

    /** The handle of {@code bytes} (8 or 4) at {@code address}. */
    public static long read(int bytes, long address) {
        return bytes == 8 ? ALL.get(JAVA_LONG, address) : ALL.get(JAVA_INT, address);
    }

    /** Stores {@code handle} in {@code bytes} (8 or 4) at {@code address}. */
    public static void write(int bytes, long address, long handle) {
        if (bytes == 8) {
            ALL.set(JAVA_LONG, address, handle);
        } else {
            ALL.set(JAVA_INT, address, (int) handle);
        }
    }
}
