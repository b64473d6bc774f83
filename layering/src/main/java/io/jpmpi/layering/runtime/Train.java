package io.jpmpi.layering.runtime;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jpmpi.layering.generated.MpiFunctions;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The training run of the AOT cache the build makes (layering/pom.xml, JDK 25+): runs the real
 * start of a Java level - Boot.start with the jar naming {@link TrainingLevel} that the build made
 * (so that nothing here loads classes a rank would not: the cache is mapped and its classes are
 * loaded whole at every rank's start, so what it holds is start time and memory) - against a bridge
 * made here in native memory instead of the dispatcher's (the same layout; its functions are
 * upcalls into this class, its "MPI library" answers MPI_Comm_rank and MPI_Send with success),
 * then calls through the installed stubs, so the classes, linkage and method-handle forms a rank
 * needs at its first MPI call come from the cache.
 */
@SuppressWarnings("restricted") // FFM is what it trains
public final class Train {
    /**
     * The ABI the training bridge describes: Open MPI's (its id is "openmpi"), whose handle types
     * are pointers and whose MPI_Status is {sizeof, offsetof MPI_SOURCE, MPI_TAG, MPI_ERROR}
     * {24, 0, 4, 8}. JextractDescriptorTest checks both against jextract's Open MPI bindings.
     */
    static final String HANDLES = "MPI_Comm,MPI_Datatype,MPI_Errhandler,MPI_File,MPI_Group,MPI_Info,MPI_Message,MPI_Op,"
            + "MPI_Request,MPI_Win";
    static final long HANDLE_SIZE = 8;
    static final long[] STATUS = {24, 0, 4, 8};

    private static final List<Long> INSTALLED = new ArrayList<>();
    private static long bottomCommRank;
    private static long bottomSend;

    private Train() {
    }

    /** The core's bridge_call, for the training: routes (every one to the stand-in bottom), install, relink, message. */
    static long call(long op, long a, long b, long c) {
        if (op == Bridge.INSTALL && c != 0) {
            INSTALLED.add((b << 48) | c);
        }
        if (op == Bridge.ROUTE_ALL) {
            MemorySegment out = MemorySegment.ofAddress(b).reinterpret(8 * c);
            for (int slot = 0; slot < c; slot++) {
                out.setAtIndex(JAVA_LONG, slot, Bridge.get().slotName(slot).equals("MPI_Send") ? bottomSend : bottomCommRank);
            }
        }
        return 0;
    }

    static int commRank(long comm, long rank) {
        return 0;
    }

    static int send(long buf, int count, long datatype, int dest, int tag, long comm) {
        return 0;
    }

    private static MemorySegment upcall(String name, FunctionDescriptor fd) throws ReflectiveOperationException {
        MethodHandle mh = MethodHandles.lookup().findStatic(Train.class, name, fd.toMethodType());
        return Linker.nativeLinker().upcallStub(mh, fd, Arena.global());
    }

    public static void main(String[] args) throws Throwable {
        Arena arena = Arena.global();
        bottomCommRank = upcall("commRank", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG)).address();
        bottomSend = upcall("send", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT,
                JAVA_LONG)).address();
        List<String> names = new ArrayList<>();
        for (int id = 0; id < MpiFunctions.COUNT; id++) {
            if (MpiFunctions.shape("openmpi", id) != null) {
                names.add(MpiFunctions.name(id));
            }
        }
        MemorySegment slotNames = arena.allocate(8L * names.size(), 8);
        for (int i = 0; i < names.size(); i++) {
            slotNames.setAtIndex(ADDRESS, i, arena.allocateFrom(names.get(i)));
        }
        String[] handles = HANDLES.split(",");
        MemorySegment types = arena.allocate(Bridge.ENTRY_SIZE * handles.length, 8);
        for (int i = 0; i < handles.length; i++) {
            types.set(ADDRESS, Bridge.ENTRY_SIZE * i + Bridge.ENTRY_NAME, arena.allocateFrom(handles[i]));
            types.set(JAVA_LONG, Bridge.ENTRY_SIZE * i + Bridge.ENTRY_VALUE, HANDLE_SIZE);
            types.set(JAVA_LONG, Bridge.ENTRY_SIZE * i + Bridge.ENTRY_FLAG, 1);
        }
        MemorySegment status = arena.allocate(32, 8);
        status.set(JAVA_LONG, Bridge.STATUS_SIZE, STATUS[0]);
        status.set(JAVA_LONG, Bridge.STATUS_SOURCE, STATUS[1]);
        status.set(JAVA_LONG, Bridge.STATUS_TAG, STATUS[2]);
        status.set(JAVA_LONG, Bridge.STATUS_ERROR, STATUS[3]);
        MemorySegment b = arena.allocate(Bridge.SIZE, 8);
        b.set(JAVA_LONG, 0, Bridge.VERSION);
        b.set(JAVA_LONG, Bridge.SLOTS, names.size());
        b.set(ADDRESS, Bridge.SLOT_NAMES, slotNames);
        b.set(ADDRESS, Bridge.IMPL_ID, arena.allocateFrom("openmpi"));
        b.set(ADDRESS, Bridge.IMPL_VERSION, arena.allocateFrom("training"));
        b.set(ADDRESS, Bridge.CALL, upcall("call", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG)));
        b.set(ADDRESS, Bridge.TYPES, types);
        b.set(JAVA_LONG, Bridge.NTYPES, handles.length);
        b.set(ADDRESS, Bridge.CONSTANTS, MemorySegment.NULL);
        b.set(JAVA_LONG, Bridge.NCONSTANTS, 0);
        b.set(ADDRESS, Bridge.STATUS, status);

        if (args.length != 1) {
            throw new IllegalArgumentException("usage: Train <training level jar>");
        }
        String failure = Boot.start(b.address(), names.toArray(new String[0]), false,
                new byte[][] {args[0].getBytes(StandardCharsets.UTF_8)}, new int[] {0}, new int[] {-1});
        if (failure != null) {
            throw new IllegalStateException("training start failed: " + failure);
        }
        // The hot path: C calls the installed stubs, they call the "library" below.
        MethodHandle commRank = null;
        MethodHandle send = null;
        for (long entry : INSTALLED) {
            MemorySegment fn = MemorySegment.ofAddress(entry & 0xFFFF_FFFF_FFFFL);
            String name = Bridge.get().slotName((int) (entry >>> 48));
            if (name.equals("MPI_Comm_rank")) {
                commRank = Linker.nativeLinker().downcallHandle(fn, FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
            } else if (name.equals("MPI_Send")) {
                send = Linker.nativeLinker().downcallHandle(fn, FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT,
                        JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG));
            }
        }
        if (commRank == null || send == null) {
            throw new IllegalStateException("training level was not installed");
        }
        int failures = 0;
        for (int i = 0; i < 20_000; i++) {
            failures += (int) commRank.invokeExact(0L, 0L) + (int) send.invokeExact(0L, 0, 0L, 0, 0, 0L);
        }
        if (failures != 0) {
            throw new IllegalStateException("training calls failed");
        }
        System.out.println("jpmpi: AOT training done (" + INSTALLED.size() + " upcall stubs installed)");
    }
}
