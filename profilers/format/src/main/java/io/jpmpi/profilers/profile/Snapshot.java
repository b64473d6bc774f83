package io.jpmpi.profilers.profile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

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
    public static final int NAME = 48;
    public static final int CALLS = 0;
    public static final int TICKS = 1;
    public static final int MIN = 2;
    public static final int MAX = 3;
    public static final int SENT = 4;
    public static final int RECV = 5;

    /** How the rank's recording ended. */
    public enum State {
        RUNNING, FINALIZE, ABORT, EXIT, SIGNAL, FLUSH;

        static State of(int code) {
            return code >= 0 && code < values().length ? values()[code] : RUNNING;
        }
    }

    public static Snapshot read(Path file) throws IOException {
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
        b.get(magic);
        if (!new String(magic, StandardCharsets.US_ASCII).equals("JPMPIPR1")) {
            throw new IllegalArgumentException("bad magic");
        }
        int version = b.getInt();
        int headerSize = b.getInt();
        int nfunc = b.getInt();
        int nbuckets = b.getInt();
        if (version != 1 || headerSize != HEADER || nfunc <= 0 || nfunc > 4096 || nbuckets <= 0 || nbuckets > 64) {
            throw new IllegalArgumentException("unsupported version " + version);
        }
        int rank = b.getInt();
        int size = b.getInt();
        State state = State.of(b.getInt());
        int detail = b.getInt();
        long pid = b.getLong();
        double tps = b.getDouble();
        double perCall = b.getDouble();
        long initUnixNs = b.getLong();
        long appTicks = b.getLong();
        long matrixRanks = b.getLong();
        String host = text(b, 64);
        String impl = text(b, 32);
        String job = text(b, 64);
        String exe = text(b, 256);
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
            case RUNNING -> "no MPI_Finalize";
        };
    }

    private static String signalName(int sig) {
        return switch (sig) {
            case 1 -> "SIGHUP";
            case 2 -> "SIGINT";
            case 15 -> "SIGTERM";
            default -> "signal";
        };
    }
}
