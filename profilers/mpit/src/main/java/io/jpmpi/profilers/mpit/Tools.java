package io.jpmpi.profilers.mpit;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jpmpi.layering.MpiAbi;
import io.jpmpi.layering.generated.Constants;
import io.jpmpi.layering.generated.MPI_Datatype;
import io.jpmpi.layering.generated.MPI_T_cvar_handle;
import io.jpmpi.layering.generated.MPI_T_enum;
import io.jpmpi.layering.generated.MPI_T_pvar_handle;
import io.jpmpi.layering.generated.MPI_T_pvar_session;
import io.jpmpi.layering.generated.Mpi;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The MPI tools information interface (MPI_T) of the MPI below a level, through FFM downcalls:
 * variable descriptions, a performance-variable session, handles, reads, control-variable writes.
 * Every call checks its return code and throws {@link MpiTException} with the MPI_T_ERR_* name
 * and what it means. Not thread-safe: the tool calls it under its own lock.
 */
final class Tools {
    static final int NAME = 256;
    static final int DESC = 1024;

    private final Mpi mpi;
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment name = arena.allocate(NAME);
    private final MemorySegment desc = arena.allocate(DESC);
    private final MemorySegment ints = arena.allocate(16 * 8, 8);
    private final MemorySegment session = arena.allocate(8, 8);

    Tools(Mpi mpi) {
        this.mpi = mpi;
    }

    /** An MPI_T call failed. */
    static final class MpiTException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int code;

        MpiTException(String call, int code) {
            super(call + " failed: " + describe(code));
            this.code = code;
        }
    }

    /** The MPI_T_ERR_* name of a return code, and what it means for a tool. */
    static String describe(int code) {
        String[][] known = {
            {"MPI_T_ERR_MEMORY", "out of memory"},
            {"MPI_T_ERR_NOT_INITIALIZED", "MPI_T is not initialized"},
            {"MPI_T_ERR_CANNOT_INIT", "MPI_T cannot be initialized now"},
            {"MPI_T_ERR_INVALID_INDEX", "no variable has this index (any more)"},
            {"MPI_T_ERR_INVALID_ITEM", "no such enumeration item"},
            {"MPI_T_ERR_INVALID_HANDLE", "the handle is not valid"},
            {"MPI_T_ERR_OUT_OF_HANDLES", "the MPI library has no more handles"},
            {"MPI_T_ERR_OUT_OF_SESSIONS", "the MPI library has no more sessions"},
            {"MPI_T_ERR_INVALID_SESSION", "the session is not valid"},
            {"MPI_T_ERR_CVAR_SET_NOT_NOW", "the control variable cannot be set at this moment"},
            {"MPI_T_ERR_CVAR_SET_NEVER", "the control variable cannot be set"},
            {"MPI_T_ERR_PVAR_NO_STARTSTOP", "the variable is continuous: it cannot be started or stopped"},
            {"MPI_T_ERR_PVAR_NO_WRITE", "the variable is read-only"},
            {"MPI_T_ERR_PVAR_NO_ATOMIC", "the variable cannot be read and reset atomically"},
            {"MPI_T_ERR_INVALID_NAME", "no variable has this name"},
            {"MPI_T_ERR_INVALID", "invalid use of the interface (the variable may be gone: its component was not"
                    + " selected)"},
        };
        for (String[] k : known) {
            if (MpiAbi.integer(k[0]) == code) {
                return k[0] + " (" + k[1] + ")";
            }
        }
        return "MPI error " + code;
    }

    private static void check(int rc, String call) {
        if (rc != 0) {
            throw new MpiTException(call, rc);
        }
    }

    /** MPI_T_init_thread; returns the thread level provided. */
    int init(int required) {
        check(mpi.MPI_T_init_thread(required, ints.address()), "MPI_T_init_thread");
        return ints.get(JAVA_INT, 0);
    }

    void finish() {
        check(mpi.MPI_T_finalize(), "MPI_T_finalize");
    }

    int pvarCount() {
        check(mpi.MPI_T_pvar_get_num(ints.address()), "MPI_T_pvar_get_num");
        return ints.get(JAVA_INT, 0);
    }

    int cvarCount() {
        check(mpi.MPI_T_cvar_get_num(ints.address()), "MPI_T_cvar_get_num");
        return ints.get(JAVA_INT, 0);
    }

    /** The description of performance variable {@code index}, or null if the index is not valid now. */
    Variable pvar(int index) {
        ints.fill((byte) 0);
        ints.set(JAVA_INT, 0, NAME);
        ints.set(JAVA_INT, 4, DESC);
        long b = ints.address();
        int rc = mpi.MPI_T_pvar_get_info(index, name.address(), b, b + 8, b + 12, b + 16, b + 24, desc.address(),
                b + 4, b + 32, b + 36, b + 40, b + 44);
        if (rc != 0) {
            return null; // MPI_T_ERR_INVALID_INDEX, or Open MPI's MPI_T_ERR_INVALID for a deregistered variable
        }
        return new Variable(Variable.Kind.PVAR, index, string(name, ints.get(JAVA_INT, 0)),
                string(desc, ints.get(JAVA_INT, 4)), ints.get(JAVA_INT, 8), ints.get(JAVA_INT, 12),
                Variable.Type.of(MPI_Datatype.read(b + 16)), MPI_T_enum.read(b + 24),
                ints.get(JAVA_INT, 32), 0, ints.get(JAVA_INT, 36) != 0, ints.get(JAVA_INT, 40) != 0,
                ints.get(JAVA_INT, 44) != 0);
    }

    /** The description of control variable {@code index}, or null if the index is not valid now. */
    Variable cvar(int index) {
        ints.fill((byte) 0);
        ints.set(JAVA_INT, 0, NAME);
        ints.set(JAVA_INT, 4, DESC);
        long b = ints.address();
        int rc = mpi.MPI_T_cvar_get_info(index, name.address(), b, b + 8, b + 16, b + 24, desc.address(), b + 4,
                b + 32, b + 36);
        if (rc != 0) {
            return null;
        }
        return new Variable(Variable.Kind.CVAR, index, string(name, ints.get(JAVA_INT, 0)),
                string(desc, ints.get(JAVA_INT, 4)), ints.get(JAVA_INT, 8), -1,
                Variable.Type.of(MPI_Datatype.read(b + 16)), MPI_T_enum.read(b + 24),
                ints.get(JAVA_INT, 32), ints.get(JAVA_INT, 36), false, false, false);
    }

    /** The items of an enumeration: value and name. */
    List<String> enumItems(MPI_T_enum enumtype) {
        List<String> items = new ArrayList<>();
        if (enumtype.equals(Constants.MPI_T_ENUM_NULL)) {
            return items;
        }
        ints.set(JAVA_INT, 4, NAME);
        long b = ints.address();
        check(mpi.MPI_T_enum_get_info(enumtype, b, name.address(), b + 4), "MPI_T_enum_get_info");
        int n = ints.get(JAVA_INT, 0);
        for (int i = 0; i < n; i++) {
            ints.set(JAVA_INT, 4, NAME);
            check(mpi.MPI_T_enum_get_item(enumtype, i, b + 8, name.address(), b + 4), "MPI_T_enum_get_item");
            items.add(ints.get(JAVA_INT, 8) + "=" + string(name, ints.get(JAVA_INT, 4)));
        }
        return items;
    }

    /** MPI_T_pvar_session_create. */
    MPI_T_pvar_session createSession() {
        check(mpi.MPI_T_pvar_session_create(session.address()), "MPI_T_pvar_session_create");
        return MPI_T_pvar_session.read(session.address());
    }

    void freeSession(MPI_T_pvar_session s) {
        s.write(session.address());
        check(mpi.MPI_T_pvar_session_free(session.address()), "MPI_T_pvar_session_free");
    }

    /**
     * MPI_T_pvar_handle_alloc of variable {@code index} bound to the object whose handle is at
     * {@code object} (0 for unbound variables); returns the handle and stores the element count at
     * {@code countOut}.
     */
    MPI_T_pvar_handle allocPvar(MPI_T_pvar_session s, int index, long object, int[] countOut) {
        long b = ints.address();
        check(mpi.MPI_T_pvar_handle_alloc(s, index, object, b, b + 8), "MPI_T_pvar_handle_alloc");
        countOut[0] = ints.get(JAVA_INT, 8);
        return MPI_T_pvar_handle.read(b);
    }

    void freePvar(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
        h.write(ints.address());
        check(mpi.MPI_T_pvar_handle_free(s, ints.address()), "MPI_T_pvar_handle_free");
    }

    void start(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
        check(mpi.MPI_T_pvar_start(s, h), "MPI_T_pvar_start");
    }

    void stop(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
        check(mpi.MPI_T_pvar_stop(s, h), "MPI_T_pvar_stop");
    }

    /** MPI_T_pvar_read into {@code buf}; the return code (no exception: the hot path). */
    int read(MPI_T_pvar_session s, MPI_T_pvar_handle h, long buf) {
        return mpi.MPI_T_pvar_read(s, h, buf);
    }

    /** MPI_T_cvar_handle_alloc of an unbound control variable; returns the handle, count at countOut. */
    MPI_T_cvar_handle allocCvar(int index, int[] countOut) {
        long b = ints.address();
        check(mpi.MPI_T_cvar_handle_alloc(index, 0, b, b + 8), "MPI_T_cvar_handle_alloc");
        countOut[0] = ints.get(JAVA_INT, 8);
        return MPI_T_cvar_handle.read(b);
    }

    void freeCvar(MPI_T_cvar_handle h) {
        h.write(ints.address());
        check(mpi.MPI_T_cvar_handle_free(ints.address()), "MPI_T_cvar_handle_free");
    }

    void readCvar(MPI_T_cvar_handle h, long buf) {
        check(mpi.MPI_T_cvar_read(h, buf), "MPI_T_cvar_read");
    }

    void writeCvar(MPI_T_cvar_handle h, long buf) {
        check(mpi.MPI_T_cvar_write(h, buf), "MPI_T_cvar_write");
    }

    /** Stores a handle of C type {@code type} at the start of {@code at} (the object of MPI_T_pvar_handle_alloc). */
    static void setHandle(MemorySegment at, String type, long value) {
        if (MpiAbi.handleSize(type) == 8) {
            at.set(JAVA_LONG, 0, value);
        } else {
            at.set(JAVA_INT, 0, (int) value);
        }
    }

    private static String string(MemorySegment s, int length) {
        int n = Math.max(0, Math.min(length, (int) s.byteSize()));
        byte[] b = s.asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        int end = 0;
        while (end < b.length && b[end] != 0) {
            end++;
        }
        return new String(b, 0, end, StandardCharsets.UTF_8);
    }
}
