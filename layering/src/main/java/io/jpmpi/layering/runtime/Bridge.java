package io.jpmpi.layering.runtime;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
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
    static final long VERSION = 1;
    /** Everything: addresses handed over by C are read through this segment, without allocating. */
    static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private static Bridge current;

    final long address;
    final int nslots;
    final String implementation;
    final String version;
    final int nlevels;
    private final String[] slotNames;
    private final MethodHandle resolve;
    private final MethodHandle install;
    private final MethodHandle relink;
    private final MethodHandle message;

    private Bridge(long address) {
        this.address = address;
        long v = ALL.get(JAVA_LONG, address);
        if (v != VERSION) {
            throw new IllegalStateException("the dispatcher's bridge is version " + v + ", this runtime reads " + VERSION
                    + " (the dispatcher and the Java runtime come from different builds)");
        }
        this.nslots = (int) ALL.get(JAVA_LONG, address + 8);
        long names = pointer(16);
        this.slotNames = new String[nslots];
        for (int i = 0; i < nslots; i++) {
            slotNames[i] = string(ALL.get(JAVA_LONG, names + 8L * i));
        }
        this.implementation = string(pointer(24));
        this.version = string(pointer(32));
        Linker linker = Linker.nativeLinker();
        this.resolve = linker.downcallHandle(MemorySegment.ofAddress(pointer(40)),
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_INT));
        this.install = linker.downcallHandle(MemorySegment.ofAddress(pointer(48)),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
        this.relink = linker.downcallHandle(MemorySegment.ofAddress(pointer(56)), FunctionDescriptor.ofVoid());
        this.message = linker.downcallHandle(MemorySegment.ofAddress(pointer(104)), FunctionDescriptor.ofVoid(ADDRESS));
        this.nlevels = (int) ALL.get(JAVA_LONG, address + 112);
    }

    static Bridge init(long address) {
        if (current != null) {
            throw new IllegalStateException("the bridge is already set");
        }
        current = new Bridge(address);
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

    /** The definition a call of slot made at depth {@code depth} reaches (0 if none). */
    long resolve(int depth, int slot) {
        try {
            return (long) resolve.invokeExact(depth, slot);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    void install(int level, int slot, long function) {
        int rc;
        try {
            rc = (int) install.invokeExact(level, slot, function);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (rc != 0) {
            throw new IllegalStateException("the dispatcher refused slot " + slot + " of level " + level);
        }
    }

    void relink() {
        try {
            relink.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** One line on stderr, prefixed with jpmpi and the rank. */
    public void message(String line) {
        try (Arena arena = Arena.ofConfined()) {
            message.invokeExact(arena.allocateFrom(line.replace('\n', ' ')));
        } catch (Throwable t) {
            System.err.println("jpmpi: " + line);
        }
    }
}
