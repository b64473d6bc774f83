package io.jpmpi.layering.runtime;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The C side of a Java level, as the dispatcher's core hands it over: the address of a
 * {@code struct jpmpi_bridge} (native-stubs/src/main/c/core/jpmpi_core.h; every field 8 bytes, at
 * the offsets below). Set once, before anything else of the runtime runs.
 */
@SuppressWarnings("restricted") // FFM is what this class is for; the JVM is started with --enable-native-access
public final class Bridge {
    static final long VERSION = 2;
    /** Field offsets of struct jpmpi_bridge. */
    static final long SLOTS = 8;
    static final long SLOT_NAMES = 16;
    static final long IMPL_ID = 24;
    static final long IMPL_VERSION = 32;
    static final long CALL = 40;
    static final long TYPES = 48;
    static final long NTYPES = 56;
    static final long CONSTANTS = 64;
    static final long NCONSTANTS = 72;
    static final long STATUS = 80;
    static final long SIZE = 88;
    /** struct jpmpi_abi_type {name, size, pointer}, struct jpmpi_abi_constant {name, value, present}. */
    static final long ENTRY_NAME = 0;
    static final long ENTRY_VALUE = 8;
    static final long ENTRY_FLAG = 16;
    static final long ENTRY_SIZE = 24;
    /** struct jpmpi_abi_status {size, source, tag, error}. */
    static final long STATUS_SIZE = 0;
    static final long STATUS_SOURCE = 8;
    static final long STATUS_TAG = 16;
    static final long STATUS_ERROR = 24;
    /** enum jpmpi_bridge_op. */
    static final long ROUTE_ALL = 1;
    static final long INSTALL = 2;
    static final long RELINK = 3;
    static final long MESSAGE = 4;
    static final long VERBOSITY = 5;
    /** Everything: addresses handed over by C are read through this segment, without allocating. */
    static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private static Bridge current;

    final long address;
    final int nslots;
    final String implementation;
    final String version;
    private final String[] slotNames;
    /**
     * The core's one entry point, int64_t call(int64_t op, int64_t a, int64_t b, int64_t c), as a
     * downcall handle; null when the core registered {@link #call0} instead (JNI: no linker work in
     * the cold JVM at the rank's start).
     */
    private final MethodHandle call;

    private Bridge(long address, String[] names, boolean registered) {
        this.address = address;
        long v = ALL.get(JAVA_LONG, address);
        if (v != VERSION) {
            throw new IllegalStateException("the dispatcher's bridge is version " + v + ", this runtime reads " + VERSION
                    + " (the dispatcher and the Java runtime come from different builds)");
        }
        this.nslots = (int) pointer(SLOTS);
        if (names != null && names.length == nslots) {
            this.slotNames = names.clone();
        } else {
            long table = pointer(SLOT_NAMES);
            this.slotNames = new String[nslots];
            for (int i = 0; i < nslots; i++) {
                slotNames[i] = string(ALL.get(JAVA_LONG, table + 8L * i));
            }
        }
        this.implementation = string(pointer(IMPL_ID));
        this.version = string(pointer(IMPL_VERSION));
        this.call = registered ? null : Linker.nativeLinker().downcallHandle(MemorySegment.ofAddress(pointer(CALL)),
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    }

    /**
     * Sets the bridge at {@code address}; {@code names} are its slot names if the caller has them;
     * {@code registered}: the core registered {@link #call0} as the bridge's call function.
     */
    static Bridge init(long address, String[] names, boolean registered) {
        if (current != null) {
            throw new IllegalStateException("the bridge is already set");
        }
        current = new Bridge(address, names, registered);
        return current;
    }

    /** The bridge of this process; fails outside a process whose dispatcher started the JVM. */
    public static Bridge get() {
        Bridge b = current;
        if (b == null) {
            throw new IllegalStateException("not inside an MPI process started through jpmpi's dispatcher");
        }
        return b;
    }

    long pointer(long offset) {
        return ALL.get(JAVA_LONG, address + offset);
    }

    static String string(long address) {
        return address == 0 ? null : ALL.getString(address);
    }

    /** "openmpi" or "mpich". */
    public String implementation() {
        return implementation;
    }

    public String version() {
        return version;
    }

    String slotName(int slot) {
        return slotNames[slot];
    }

    /** The bridge's call function, when the core registers it through JNI (core/java.c). */
    private static native long call0(long op, long a, long b, long c);

    private long call(long op, long a, long b, long c) {
        if (call == null) {
            return call0(op, a, b, c);
        }
        try {
            return (long) call.invokeExact(op, a, b, c);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Per slot, where a PMPI_X call made by level {@code level} goes: the slot's guard, which passes
     * it on to the next level defining X when the level is inside its own MPI_X (the call it
     * intercepted), or the library itself; {@code level} &lt; 0: the library's PMPI_X for every slot.
     */
    long[] routeAll(int level) {
        return everySlot(ROUTE_ALL, level);
    }

    private long[] everySlot(long op, int a) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(8L * nslots, 8);
            call(op, a, out.address(), nslots);
            return out.toArray(JAVA_LONG);
        }
    }

    void install(int level, int slot, long function) {
        if (call(INSTALL, level, slot, function) != 0) {
            throw new IllegalStateException("the dispatcher refused slot " + slot + " of level " + level);
        }
    }

    void relink() {
        call(RELINK, 0, 0, 0);
    }

    /** What the entry list asks jpmpi to say: 0 (nothing when all is well), 1 ({@code v}), 2 ({@code vv}). */
    int verbosity() {
        long v = call(VERBOSITY, 0, 0, 0);
        return v < 0 ? 0 : (int) v;
    }

    /** One line on stderr, prefixed with jpmpi and the rank. */
    public void message(String line) {
        try (Arena arena = Arena.ofConfined()) {
            call(MESSAGE, arena.allocateFrom(line.replace('\n', ' ')).address(), 0, 0);
        } catch (RuntimeException e) {
            System.err.println("jpmpi: " + line);
        }
    }
}
