package io.jpmpi.profilers.profile;

import io.jpmpi.profilers.report.InputFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One rank's figures as the C recorder (profilers/profile/src/main/c/rec_snapshot.c) lays them out, read from
 * its memory at MPI_Finalize or from a {@code ranks/rank-R.bin} dump. Little-endian:
 * <pre>
 * header (512 bytes)  magic "JPMPIPR1", u32 version, u32 header size, u32 nfunc, u32 nbuckets,
 *                     i32 world rank, i32 world size, i32 state, i32 detail, u64 pid,
 *                     f64 ticks per second, f64 recording cost per call (ns), i64 unix ns at init,
 *                     u64 application ticks, u64 matrix ranks, char host[64], impl[32], jobid[64], exe[256]
 * names               nfunc x 48 bytes, NUL-padded
 * stats               nfunc x 6 u64: calls, ticks, min ticks, max ticks, bytes sent, bytes received
 * histograms          nfunc x nbuckets u64
 * matrix              matrix ranks x 2 u64: messages, bytes sent to that world rank
 * </pre>
 */
public record Snapshot(int rank, int size, State state, int detail, long pid, double ticksPerSecond,
                       double perCallNs, long initUnixNs, long appTicks, String host, String impl, String jobId,
                       String executable, String[] names, long[][] stats, long[][] histograms, long[] messages,
                       long[] bytes) {
    public static final int HEADER = 512;
    public static final int VERSION = 1;
    /**
     * Where each header field is (profilers/profile/src/main/c/snapshot.h: struct jp_header);
     * SnapshotLayoutTest compares them with the compiler's offsets.
     */
    public static final Map<String, Integer> HEADER_FIELDS = headerFields();
    private static final int MAGIC = 0;
    private static final int VERSION_AT = 8;
    private static final int HEADER_SIZE_AT = 12;
    private static final int NFUNC_AT = 16;
    private static final int NBUCKETS_AT = 20;
    private static final int RANK_AT = 24;
    private static final int SIZE_AT = 28;
    private static final int STATE_AT = 32;
    private static final int DETAIL_AT = 36;
    private static final int PID_AT = 40;
    private static final int TICKS_PER_SECOND_AT = 48;
    private static final int PER_CALL_AT = 56;
    private static final int INIT_UNIX_NS_AT = 64;
    private static final int APP_TICKS_AT = 72;
    private static final int MATRIX_RANKS_AT = 80;
    private static final int HOST_AT = 88;
    private static final int IMPL_AT = 152;
    private static final int JOBID_AT = 184;
    private static final int EXE_AT = 248;

    private static Map<String, Integer> headerFields() {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("magic", MAGIC);
        m.put("version", VERSION_AT);
        m.put("header_size", HEADER_SIZE_AT);
        m.put("nfunc", NFUNC_AT);
        m.put("nbuckets", NBUCKETS_AT);
        m.put("world_rank", RANK_AT);
        m.put("world_size", SIZE_AT);
        m.put("state", STATE_AT);
        m.put("detail", DETAIL_AT);
        m.put("pid", PID_AT);
        m.put("ticks_per_second", TICKS_PER_SECOND_AT);
        m.put("per_call_ns", PER_CALL_AT);
        m.put("init_unix_ns", INIT_UNIX_NS_AT);
        m.put("app_ticks", APP_TICKS_AT);
        m.put("matrix_ranks", MATRIX_RANKS_AT);
        m.put("host", HOST_AT);
        m.put("impl", IMPL_AT);
        m.put("jobid", JOBID_AT);
        m.put("exe", EXE_AT);
        return Collections.unmodifiableMap(m);
    }
    public static final int NAME = 48;
    public static final int CALLS = 0;
    public static final int TICKS = 1;
    public static final int MIN = 2;
    public static final int MAX = 3;
    public static final int SENT = 4;
    public static final int RECV = 5;

    /** How the rank's recording ended. */
    public enum State {
        RUNNING, FINALIZE, ABORT, EXIT, SIGNAL, FLUSH, FATAL;

        static State of(int code) {
            return code >= 0 && code < values().length ? values()[code] : RUNNING;
        }
    }

    /** The largest rank dump read: far above any real one (headers, ~650 functions, a 100 000-rank matrix row). */
    public static final long MAX_DUMP_BYTES = 256L << 20;

    public static Snapshot read(Path file) throws IOException {
        InputFile.check(file, "a rank dump", MAX_DUMP_BYTES);
        byte[] data = Files.readAllBytes(file);
        try {
            return parse(ByteBuffer.wrap(data));
        } catch (IllegalArgumentException | java.nio.BufferUnderflowException e) {
            throw new IOException(file + ": not a jpmpi profile dump (" + e.getMessage() + ")");
        }
    }

    /** Parses a snapshot; IllegalArgumentException if it is not one. */
    public static Snapshot parse(ByteBuffer in) {
        ByteBuffer b = in.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        byte[] magic = new byte[8];
        if (b.remaining() < HEADER) {
            throw new IllegalArgumentException("shorter than its header");
        }
        int base = b.position();
        b.get(base + MAGIC, magic);
        if (!new String(magic, StandardCharsets.US_ASCII).equals("JPMPIPR1")) {
            throw new IllegalArgumentException("bad magic");
        }
        int version = b.getInt(base + VERSION_AT);
        int headerSize = b.getInt(base + HEADER_SIZE_AT);
        int nfunc = b.getInt(base + NFUNC_AT);
        int nbuckets = b.getInt(base + NBUCKETS_AT);
        if (version != VERSION || headerSize != HEADER || nfunc <= 0 || nfunc > 4096 || nbuckets <= 0
                || nbuckets > 64) {
            throw new IllegalArgumentException("unsupported version " + version);
        }
        int rank = b.getInt(base + RANK_AT);
        int size = b.getInt(base + SIZE_AT);
        State state = State.of(b.getInt(base + STATE_AT));
        int detail = b.getInt(base + DETAIL_AT);
        long pid = b.getLong(base + PID_AT);
        double tps = b.getDouble(base + TICKS_PER_SECOND_AT);
        double perCall = b.getDouble(base + PER_CALL_AT);
        long initUnixNs = b.getLong(base + INIT_UNIX_NS_AT);
        long appTicks = b.getLong(base + APP_TICKS_AT);
        long matrixRanks = b.getLong(base + MATRIX_RANKS_AT);
        String host = text(b.position(base + HOST_AT), IMPL_AT - HOST_AT);
        String impl = text(b.position(base + IMPL_AT), JOBID_AT - IMPL_AT);
        String job = text(b.position(base + JOBID_AT), EXE_AT - JOBID_AT);
        String exe = text(b.position(base + EXE_AT), 256);
        if (matrixRanks < 0 || matrixRanks > (1 << 24) || size < 0 || rank < -1 || rank >= Math.max(size, 1)) {
            throw new IllegalArgumentException("bad rank " + rank + " of " + size);
        }
        long need = HEADER + (long) nfunc * NAME + (long) nfunc * 48 + (long) nfunc * nbuckets * 8 + matrixRanks * 16;
        if (in.remaining() < need) {
            throw new IllegalArgumentException("truncated: " + in.remaining() + " of " + need + " bytes");
        }
        b.position(in.position() + HEADER);
        String[] names = new String[nfunc];
        for (int f = 0; f < nfunc; f++) {
            names[f] = text(b, NAME);
        }
        long[][] stats = new long[nfunc][6];
        for (int f = 0; f < nfunc; f++) {
            for (int k = 0; k < 6; k++) {
                stats[f][k] = b.getLong();
            }
        }
        long[][] hist = new long[nfunc][nbuckets];
        for (int f = 0; f < nfunc; f++) {
            for (int k = 0; k < nbuckets; k++) {
                hist[f][k] = b.getLong();
            }
        }
        long[] messages = new long[(int) matrixRanks];
        long[] bytes = new long[(int) matrixRanks];
        for (int r = 0; r < matrixRanks; r++) {
            messages[r] = b.getLong();
            bytes[r] = b.getLong();
        }
        return new Snapshot(rank, size, state, detail, pid, tps, perCall, initUnixNs, appTicks, host, impl, job, exe,
                names, stats, hist, messages, bytes);
    }

    private static String text(ByteBuffer b, int n) {
        byte[] raw = new byte[n];
        b.get(raw);
        int end = 0;
        while (end < n && raw[end] != 0) {
            end++;
        }
        return new String(raw, 0, end, StandardCharsets.UTF_8);
    }

    public double seconds(long ticks) {
        return ticksPerSecond > 0 ? ticks / ticksPerSecond : 0;
    }

    public double appSeconds() {
        return seconds(appTicks);
    }

    /** Time in MPI calls (the recorder does not time MPI_Init* and MPI_Finalize: they bound the application time). */
    public double mpiSeconds() {
        long t = 0;
        for (long[] s : stats) {
            t += s[TICKS];
        }
        return seconds(t);
    }

    public long calls() {
        long n = 0;
        for (long[] s : stats) {
            n += s[CALLS];
        }
        return n;
    }

    /** Why the rank ended early, for the report; null if it reached MPI_Finalize. */
    public String partialReason() {
        return switch (state) {
            case FINALIZE -> null;
            case ABORT -> "MPI_Abort(errorcode " + detail + ")";
            case EXIT -> "exit without MPI_Finalize";
            case SIGNAL -> "signal " + detail + " (" + signalName(detail) + ")";
            case FLUSH -> "still running (MPI_Pcontrol(2) flush)";
            case FATAL -> "fatal MPI error (" + errorClassName(detail) + ")";
            case RUNNING -> "no MPI_Finalize";
        };
    }

    /** The MPI-1 error classes, whose values Open MPI and MPICH share; others by number. */
    private static final String[] ERROR_CLASSES = {"MPI_SUCCESS", "MPI_ERR_BUFFER", "MPI_ERR_COUNT", "MPI_ERR_TYPE",
        "MPI_ERR_TAG", "MPI_ERR_COMM", "MPI_ERR_RANK", "MPI_ERR_REQUEST", "MPI_ERR_ROOT", "MPI_ERR_GROUP", "MPI_ERR_OP",
        "MPI_ERR_TOPOLOGY", "MPI_ERR_DIMS", "MPI_ERR_ARG", "MPI_ERR_UNKNOWN", "MPI_ERR_TRUNCATE", "MPI_ERR_OTHER",
        "MPI_ERR_INTERN", "MPI_ERR_IN_STATUS", "MPI_ERR_PENDING"};

    private static String errorClassName(int cls) {
        return cls >= 0 && cls < ERROR_CLASSES.length ? ERROR_CLASSES[cls] + ", error class " + cls
                : "error class " + cls;
    }

    private static String signalName(int sig) {
        return switch (sig) {
            case 1 -> "SIGHUP";
            case 2 -> "SIGINT";
            case 4 -> "SIGILL";
            case 6 -> "SIGABRT";
            case 7 -> "SIGBUS";
            case 8 -> "SIGFPE";
            case 11 -> "SIGSEGV";
            case 15 -> "SIGTERM";
            default -> "signal";
        };
    }
}
