package io.jpmpi.layering;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;

/**
 * Reading the application's memory from the addresses interceptors get ({@code long}, 0 for
 * NULL), without allocating: e.g. the counts array of MPI_Alltoallv, or an out-parameter after
 * the call. Nothing is checked: an address MPI would not accept is not readable here either.
 */
@SuppressWarnings("restricted") // FFM is what this class is for; the JVM is started with --enable-native-access
public final class Memory {
    /** All of memory. */
    static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private Memory() {
    }

    public static int getInt(long address) {
        return ALL.get(JAVA_INT, address);
    }

    /** Element {@code index} of an int array. */
    public static int getInt(long address, int index) {
        return ALL.get(JAVA_INT, address + 4L * index);
    }

    public static long getLong(long address) {
        return ALL.get(JAVA_LONG, address);
    }

    /** Element {@code index} of a 64-bit array (MPI_Aint, MPI_Count, MPI_Offset). */
    public static long getLong(long address, int index) {
        return ALL.get(JAVA_LONG, address + 8L * index);
    }

    public static double getDouble(long address) {
        return ALL.get(JAVA_DOUBLE, address);
    }

    /** A C string (char *). Allocates. */
    public static String getString(long address) {
        return address == 0 ? null : ALL.getString(address);
    }

    /** A segment over {@code size} bytes at {@code address}, for bulk access. Allocates. */
    public static MemorySegment segment(long address, long size) {
        return MemorySegment.ofAddress(address).reinterpret(size);
    }
}
