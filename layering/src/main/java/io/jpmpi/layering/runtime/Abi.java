package io.jpmpi.layering.runtime;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.util.HashMap;
import java.util.Map;

/**
 * The ABI of the running MPI as its dispatcher was compiled against it: handle sizes, the values
 * of predefined handles and constants, the layout of MPI_Status. Read once from the bridge.
 */
public final class Abi {
    /** The value of a constant the running MPI does not define. */
    public static final long MISSING = Long.MIN_VALUE;

    private static final Map<String, Long> HANDLE_SIZES = new HashMap<>();
    private static final Map<String, Long> VALUES = new HashMap<>();
    private static final int STATUS_SIZE;
    private static final int STATUS_SOURCE;
    private static final int STATUS_TAG;
    private static final int STATUS_ERROR;

    static {
        Bridge b = Bridge.get();
        long types = b.pointer(Bridge.TYPES);
        long ntypes = b.pointer(Bridge.NTYPES);
        for (long i = 0; i < ntypes; i++) {
            long entry = types + Bridge.ENTRY_SIZE * i;
            HANDLE_SIZES.put(Bridge.string(Bridge.ALL.get(JAVA_LONG, entry + Bridge.ENTRY_NAME)),
                    Bridge.ALL.get(JAVA_LONG, entry + Bridge.ENTRY_VALUE));
        }
        long constants = b.pointer(Bridge.CONSTANTS);
        long nconstants = b.pointer(Bridge.NCONSTANTS);
        for (long i = 0; i < nconstants; i++) {
            long entry = constants + Bridge.ENTRY_SIZE * i;
            boolean present = Bridge.ALL.get(JAVA_LONG, entry + Bridge.ENTRY_FLAG) != 0;
            VALUES.put(Bridge.string(Bridge.ALL.get(JAVA_LONG, entry + Bridge.ENTRY_NAME)),
                    present ? Bridge.ALL.get(JAVA_LONG, entry + Bridge.ENTRY_VALUE) : MISSING);
        }
        long status = b.pointer(Bridge.STATUS);
        STATUS_SIZE = (int) Bridge.ALL.get(JAVA_LONG, status + Bridge.STATUS_SIZE);
        STATUS_SOURCE = (int) Bridge.ALL.get(JAVA_LONG, status + Bridge.STATUS_SOURCE);
        STATUS_TAG = (int) Bridge.ALL.get(JAVA_LONG, status + Bridge.STATUS_TAG);
        STATUS_ERROR = (int) Bridge.ALL.get(JAVA_LONG, status + Bridge.STATUS_ERROR);
    }

    private Abi() {
    }

    /** Size in bytes of a handle type in this MPI (8: a pointer in Open MPI; 4: an int in MPICH). */
    public static int handleSize(String type) {
        Long size = HANDLE_SIZES.get(type);
        if (size == null) {
            throw new IllegalStateException("this MPI has no handle type " + type);
        }
        return size.intValue();
    }

    private static long value(String name) {
        Long v = VALUES.get(name);
        return v == null ? MISSING : v;
    }

    public static long handle(String name) {
        return value(name);
    }

    public static long address(String name) {
        return value(name);
    }

    public static int integer(String name) {
        long v = value(name);
        return v == MISSING ? Integer.MIN_VALUE : (int) v;
    }

    public static int statusSize() {
        return STATUS_SIZE;
    }

    public static int statusSource() {
        return STATUS_SOURCE;
    }

    public static int statusTag() {
        return STATUS_TAG;
    }

    public static int statusError() {
        return STATUS_ERROR;
    }
}
