package io.jpmpi.profilers.profile;

import io.jpmpi.profilers.report.Histogram;
import io.jpmpi.profilers.report.InputFile;
import io.jpmpi.profilers.report.ProfileFormatException;
import io.jpmpi.profilers.report.ProfileJson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * One rank's figures as the C recorder (profilers/profile/src/main/c/rec_snapshot.c) lays them out, read from
 * its memory at MPI_Finalize or from a {@code ranks/rank-R.bin} dump. Little-endian:
 * <pre>
 * header (512 bytes)  magic "JPMPIPR1", u32 version, u32 header size, u32 nfunc, u32 nbuckets,
 *                     i32 world rank, i32 world size, i32 state, i32 detail, u64 pid,
 *                     f64 ticks per second, f64 recording cost per call (ns), i64 unix ns at init,
 *                     u64 application ticks, u64 matrix ranks, char host[64], impl[24], step[8] (Slurm's
 *                     step id, "" if none), jobid[56], u64 timer ticks (the shortest interval two clock
 *                     reads show; 0: not measured), exe[256], u32 sampled (0; on the wire to rank 0 only)
 *                     (version 1: impl[32], jobid[64], exe[256]: no step, no timer)
 * names               nfunc x 48 bytes, NUL-padded
 * stats               nfunc x 6 u64: calls, ticks, min ticks, max ticks, bytes sent, bytes received
 * timing (version 2)  nfunc x (u64 calls timed, f64 variance of the ticks as an estimate, ticks^2):
 *                     fewer calls timed than counted means sampled timing (PROFILE.md); version 1
 *                     dumps read as every call timed
 * histograms          nfunc x nbuckets u64
 * matrix              matrix ranks x 2 u64: messages, bytes sent to that world rank
 * detail (version 3)  u64 start ticks (the recorder's own start inside MPI_Init), u64 finalize ticks (from
 *                     the start of MPI_Finalize to the snapshot; 0 elsewhere), u32 records, u32 communicator-size
 *                     buckets (cb), u64 0; then one record per function called, in function order: u32 index,
 *                     u32 0, u64 buffer bytes (collectives: mpiP's per-call message size, summed), nbuckets u64
 *                     ticks per size bucket, cb u64 calls and cb u64 ticks per log2 bucket of the communicator's
 *                     size (snapshot.h: struct jp_v3)
 * </pre>
 */
public record Snapshot(int rank, int size, State state, int detail, long pid, double ticksPerSecond,
                       double perCallNs, long initUnixNs, long appTicks, String host, String impl, String jobId,
                       String step, String executable, String[] names, long[][] stats, long[] timed,
                       double[] variance, long[][] histograms, long[] messages, long[] bytes, long timerTicks,
                       Breakdown breakdown) {
    public static final int HEADER = 512;
    public static final int VERSION = 3;
    /** The communicator-size buckets of a version 3 snapshot: log2 of the size, up to 2^20 ranks. */
    public static final int COMM_BUCKETS = 21;
    /** The version 3 part's head (snapshot.h: struct jp_v3). */
    public static final int DETAIL_HEAD = 32;

    /**
     * What version 3 added (PROFILE.md, "Added in jpmpi-profile-3"), per function index; null in the
     * snapshot of an older recorder.
     *
     * @param startTicks    the recorder's own start inside MPI_Init
     * @param finalizeTicks from the start of MPI_Finalize to the snapshot (0: taken elsewhere)
     * @param bufferBytes   per function, the collectives' per-call buffer bytes summed (0 for others)
     * @param sizeTicks     per function and size bucket, the time of its calls (as its ticks: sampled
     *                      calls weighted)
     * @param commCalls     per function and log2 bucket of the communicator's size, its calls (collectives)
     * @param commTicks     the same for their time
     */
    public record Breakdown(long startTicks, long finalizeTicks, long[] bufferBytes, long[][] sizeTicks,
                         long[][] commCalls, long[][] commTicks) {
    }
    /** The oldest version read (version 1: impl[32], jobid[64], no step and no timer in the header, no
     * timing section: every call timed). */
    public static final int OLDEST_VERSION = 1;
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
    private static final int STEP_AT = 176;
    private static final int JOBID_AT = 184;
    private static final int TIMER_AT = 240;
    private static final int EXE_AT = 248;
    private static final int SAMPLED_AT = 504;

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
        m.put("step", STEP_AT);
        m.put("jobid", JOBID_AT);
        m.put("timer_ticks", TIMER_AT);
        m.put("exe", EXE_AT);
        m.put("sampled", SAMPLED_AT);
        return Collections.unmodifiableMap(m);
    }
    public static final int NAME = 48;
    public static final int CALLS = 0;
    public static final int TICKS = 1;
    public static final int MIN = 2;
    public static final int MAX = 3;
    public static final int SENT = 4;
    public static final int RECV = 5;

    /** The detail of a FLUSH the periodic dump wrote (recorder_private.h: JP_FLUSH_PERIODIC). */
    public static final int FLUSH_PERIODIC = 1;

    /** How the rank's recording ended. */
    public enum State {
        RUNNING, FINALIZE, ABORT, EXIT, SIGNAL, FLUSH, FATAL
    }

    /** The largest rank dump read: far above any real one (headers, ~650 functions, a 100 000-rank matrix row). */
    public static final long MAX_DUMP_BYTES = 256L << 20;
    /** The slowest and the fastest clock believed (ticks per second): 1 MHz to 100 GHz. */
    public static final double MIN_TICK_RATE = 1e6;
    public static final double MAX_TICK_RATE = 1e11;
    private static final int STATS = 6;

    /**
     * Reads and checks a rank dump; everything that is not one, or not one the recorder could have
     * written, is a {@link ProfileFormatException}: the file, the offset and field, and why.
     */
    public static Snapshot read(Path file) throws IOException {
        InputFile.check(file, "a rank dump", MAX_DUMP_BYTES);
        byte[] data = Files.readAllBytes(file);
        try {
            return parse(ByteBuffer.wrap(data));
        } catch (IllegalArgumentException e) {
            throw new ProfileFormatException(file + ": " + e.getMessage());
        }
    }

    /** A dump's rank, world size and state, as its header gives them. */
    public record Head(int rank, int size, State state, String job, long initUnixNs, String executable) {
    }

    /**
     * The rank, world size, state and job (its id, MPI_Init's time, the executable) of the dump
     * {@code file}, from its header alone (checked as {@link #read} checks it): what the launcher looks
     * at while the job is still running, to tell when rank 0 has written every rank's figures.
     */
    public static Head head(Path file) throws IOException {
        InputFile.check(file, "a rank dump", MAX_DUMP_BYTES); // a FIFO, a device, a loop of links: not opened
        byte[] data = new byte[HEADER];
        int n;
        try (var in = Files.newInputStream(file)) {
            n = in.readNBytes(data, 0, HEADER);
        }
        try {
            Header h = Header.read(ByteBuffer.wrap(data, 0, n).slice().order(ByteOrder.LITTLE_ENDIAN));
            return new Head(h.rank, h.size, h.state, h.job, h.initUnixNs, h.exe);
        } catch (IllegalArgumentException e) {
            throw new ProfileFormatException(file + ": " + e.getMessage());
        }
    }

    /**
     * Parses and checks a snapshot; an IllegalArgumentException whose message says where (offset and
     * field) and why if it is not one the recorder could have written: every count below 2^63 and
     * their sums too, times finite and below {@link ProfileJson#MAX_SECONDS}, a plausible clock
     * rate, the shortest call no longer than the longest, no figures for a function never called.
     */
    public static Snapshot parse(ByteBuffer in) {
        ByteBuffer b = in.slice().order(ByteOrder.LITTLE_ENDIAN);
        Header h = Header.read(b);
        long records = h.version >= 3 ? records(b, h) : 0;
        if (b.remaining() != h.bytes() + records * detailBytes(h.nbuckets)) {
            throw new IllegalArgumentException(b.remaining() + " bytes, " + (b.remaining() < h.bytes() ? "truncated"
                    : "longer than a dump") + ": its header (" + h.nfunc + " functions, " + h.nbuckets
                    + " size buckets, " + h.size + " ranks" + (h.version >= 3 ? ", " + records + " detail records" : "")
                    + ") makes " + (h.bytes() + records * detailBytes(h.nbuckets)) + " bytes");
        }
        b.position(HEADER);
        String[] names = names(b, h.nfunc);
        long[][] stats = stats(b, h, names);
        long[] timed = new long[h.nfunc];
        double[] variance = new double[h.nfunc];
        timing(b, h, names, stats, timed, variance);
        long[][] hist = histograms(b, h, names, stats);
        long[] messages = new long[h.size];
        long[] bytes = new long[h.size];
        matrix(b, messages, bytes);
        Breakdown breakdown = h.version >= 3 ? breakdown(b, h, names, stats) : null;
        return new Snapshot(h.rank, h.size, h.state, h.detail, h.pid, h.tps, h.perCall, h.initUnixNs, h.appTicks,
                h.host, h.impl, h.job, h.step, h.exe, names, stats, timed, variance, hist, messages, bytes,
                h.timerTicks, breakdown);
    }

    /** A problem at {@code offset} of the snapshot, in {@code field}. */
    static IllegalArgumentException bad(long offset, String field, String why) {
        return new IllegalArgumentException("offset " + offset + " (" + field + "): " + why);
    }

    /** The header's fields, each checked as it is read. */
    private record Header(int version, int nfunc, int nbuckets, int rank, int size, State state, int detail, long pid, double tps,
                          double perCall, long initUnixNs, long appTicks, String host, String impl, String job,
                          String exe, String step, long timerTicks) {
        static Header read(ByteBuffer b) {
            if (b.remaining() < HEADER) {
                throw new IllegalArgumentException(b.remaining() + " bytes, shorter than a rank dump's " + HEADER
                        + "-byte header");
            }
            byte[] magic = new byte[8];
            b.get(MAGIC, magic);
            if (!new String(magic, StandardCharsets.ISO_8859_1).equals("JPMPIPR1")) {
                throw bad(MAGIC, "magic", "not a jpmpi rank dump (no \"JPMPIPR1\" at its start)");
            }
            int version = intIn(b, VERSION_AT, "version", OLDEST_VERSION, VERSION);
            intIn(b, HEADER_SIZE_AT, "header size", HEADER, HEADER);
            int nfunc = intIn(b, NFUNC_AT, "number of functions", 1, ProfileJson.MAX_FUNCTIONS);
            int nbuckets = intIn(b, NBUCKETS_AT, "number of size buckets", 1, Histogram.BUCKETS);
            int size = intIn(b, SIZE_AT, "world size", 1, ProfileJson.MAX_RANKS);
            int rank = intIn(b, RANK_AT, "world rank", 0, size - 1);
            int code = b.getInt(STATE_AT);
            if (code < 0 || code >= State.values().length) {
                throw bad(STATE_AT, "state", code + " is no state the recorder writes (0 to "
                        + (State.values().length - 1) + ")");
            }
            long pid = count(b, PID_AT, "pid");
            double tps = b.getDouble(TICKS_PER_SECOND_AT);
            if (!(tps >= MIN_TICK_RATE && tps <= MAX_TICK_RATE)) {
                throw bad(TICKS_PER_SECOND_AT, "ticks per second", tps + " is not a plausible clock rate ("
                        + MIN_TICK_RATE + " to " + MAX_TICK_RATE + ")");
            }
            double perCall = b.getDouble(PER_CALL_AT) + 0.0; // -0 is 0
            if (!(perCall >= 0 && perCall <= ProfileJson.MAX_PER_CALL_NS)) {
                throw bad(PER_CALL_AT, "cost per call", perCall + " ns is not from 0 to " + ProfileJson.MAX_PER_CALL_NS);
            }
            long init = count(b, INIT_UNIX_NS_AT, "start time");
            long app = ticks(b, APP_TICKS_AT, "application time", tps);
            long matrixRanks = b.getLong(MATRIX_RANKS_AT);
            if (matrixRanks != size) {
                throw bad(MATRIX_RANKS_AT, "matrix ranks", Long.toUnsignedString(matrixRanks)
                        + ", not the world size " + size);
            }
            boolean v1 = version == 1; // impl[32] and jobid[64], no step, no timer
            return new Header(version, nfunc, nbuckets, rank, size, State.values()[code], b.getInt(DETAIL_AT), pid,
                    tps, perCall, init, app, text(b, HOST_AT, IMPL_AT - HOST_AT),
                    text(b, IMPL_AT, (v1 ? JOBID_AT : STEP_AT) - IMPL_AT),
                    text(b, JOBID_AT, (v1 ? EXE_AT : TIMER_AT) - JOBID_AT), text(b, EXE_AT, 256),
                    v1 ? "" : text(b, STEP_AT, JOBID_AT - STEP_AT), v1 ? 0 : timer(b, tps));
        }

        /** The clock's resolution in ticks: 0 (not measured) up to a millisecond's worth. */
        private static long timer(ByteBuffer b, double tps) {
            long t = count(b, TIMER_AT, "timer ticks");
            if (t > tps / 1000) {
                throw bad(TIMER_AT, "timer ticks", t + " ticks at " + tps + " per second is more than 1 ms");
            }
            return t;
        }

        /** The snapshot's size in bytes (at most ~4 GiB: the counts are bounded). */
        long bytes() {
            return HEADER + (long) nfunc * NAME + (long) nfunc * STATS * 8 + (version >= 2 ? (long) nfunc * 16 : 0)
                    + (long) nfunc * nbuckets * 8
                    + (long) size * 16 + (version >= 3 ? DETAIL_HEAD : 0);
        }

        private static int intIn(ByteBuffer b, int at, String field, int lo, int hi) {
            int v = b.getInt(at);
            if (v < lo || v > hi) {
                throw bad(at, field, v + (lo == hi ? ", this jpmpi reads " + lo : " is not from " + lo + " to " + hi)
                        + (field.equals("version") ? " (the versions this jpmpi reads)" : ""));
            }
            return v;
        }

        private static long ticks(ByteBuffer b, int at, String field, double tps) {
            long t = count(b, at, field);
            if (t / tps > ProfileJson.MAX_SECONDS) {
                throw bad(at, field, t + " ticks at " + tps + " per second is more than " + ProfileJson.MAX_SECONDS
                        + " s");
            }
            return t;
        }
    }

    /** An unsigned 64-bit count, which must be below 2^63 (a long). */
    private static long count(ByteBuffer b, int at, String field) {
        return count(b, at, field, "");
    }

    /*
     * The field's name in parts, joined only for the message: a dump has tens of thousands of counts,
     * and making each one's name up front was most of the merge's time after a job (benchmarks/README.md,
     * "launcher/").
     */

    /** {@link #count(ByteBuffer, int, String)} of the field named {@code head + tail}. */
    private static long count(ByteBuffer b, int at, String head, String tail) {
        long v = b.getLong(at);
        if (v < 0) {
            throw bad(at, head + tail, Long.toUnsignedString(v) + " is more than 2^63-1");
        }
        return v;
    }

    /** {@link #count(ByteBuffer, int, String)} of the field named {@code head + middle + k + tail}. */
    private static long count(ByteBuffer b, int at, String head, String middle, int k, String tail) {
        long v = b.getLong(at);
        if (v < 0) {
            throw bad(at, head + middle + k + tail, Long.toUnsignedString(v) + " is more than 2^63-1");
        }
        return v;
    }

    /**
     * The last table of names read, as bytes, and its names: every dump of a job has the same table (the
     * recorder's), so a merge of many dumps reads the names once and compares bytes after that. In the
     * launcher's fresh JVM, reading the ~450 names of a dump costs ~2 ms, comparing the table well
     * under 1.
     */
    private record NameTable(byte[] bytes, String[] names) {
    }

    private static volatile NameTable lastNames;

    private static String[] names(ByteBuffer b, int nfunc) {
        int start = b.position();
        byte[] table = new byte[nfunc * NAME];
        b.get(start, table);
        NameTable last = lastNames;
        if (last != null && Arrays.equals(last.bytes(), table)) {
            b.position(start + table.length);
            return last.names().clone();
        }
        String[] names = parseNames(b, nfunc);
        lastNames = new NameTable(table, names.clone());
        return names;
    }

    private static String[] parseNames(ByteBuffer b, int nfunc) {
        String[] names = new String[nfunc];
        Set<String> seen = new HashSet<>();
        for (int f = 0; f < nfunc; f++) {
            int at = b.position();
            names[f] = text(b, at, NAME);
            b.position(at + NAME);
            if (names[f].isEmpty() || !seen.add(names[f])) {
                throw bad(at, "name of function " + f, names[f].isEmpty() ? "empty"
                        : "\"" + names[f] + "\" appears twice");
            }
        }
        return names;
    }

    /** The per-function figures: calls, ticks, shortest, longest, bytes sent, received. */
    private static long[][] stats(ByteBuffer b, Header h, String[] names) {
        long[][] stats = new long[h.nfunc][STATS];
        long[] totals = new long[STATS];
        for (int f = 0; f < h.nfunc; f++) {
            int at = b.position();
            long[] s = stats[f];
            for (int k = 0; k < STATS; k++) {
                s[k] = count(b, at + 8 * k, names[f], STAT_FIELDS[k]);
                totals[k] = sum(totals[k], s[k], at + 8 * k, "all functions' ", STAT_NAMES[k]);
            }
            b.position(at + STATS * 8);
            check(h, names[f], at, s);
        }
        if (totals[TICKS] / h.tps > ProfileJson.MAX_SECONDS) {
            throw bad(HEADER + (long) h.nfunc * NAME, "ticks", "all functions' " + totals[TICKS] + " ticks at " + h.tps
                    + " per second are more than " + ProfileJson.MAX_SECONDS + " s");
        }
        return stats;
    }

    private static final String[] STAT_NAMES = {"calls", "ticks", "shortest call", "longest call", "bytes sent",
        "bytes received"};
    /** The same after a space: the fields of a function's figures are "NAME calls" and so on. */
    private static final String[] STAT_FIELDS = {" calls", " ticks", " shortest call", " longest call",
        " bytes sent", " bytes received"};

    /** One function's figures agree with each other. */
    private static void check(Header h, String name, int at, long[] s) {
        if (s[CALLS] == 0) {
            for (int k = 1; k < STATS; k++) {
                if (s[k] != 0) {
                    throw bad(at + 8L * k, name + " " + STAT_NAMES[k], s[k] + " for a function never called");
                }
            }
            return;
        }
        if (s[MIN] > s[MAX] || s[MAX] > s[TICKS]) {
            int k = s[MIN] > s[MAX] ? MIN : MAX;
            throw bad(at + 8L * k, name + " " + STAT_NAMES[k], s[k] + " ticks is more than the "
                    + (k == MIN ? "longest call's " + s[MAX] : "total's " + s[TICKS]));
        }
        if (s[TICKS] / h.tps > ProfileJson.MAX_SECONDS) {
            throw bad(at + 8L * TICKS, name + " ticks", s[TICKS] + " ticks at " + h.tps + " per second is more than "
                    + ProfileJson.MAX_SECONDS + " s");
        }
    }

    /**
     * The timing section (version 2): per function the calls timed, no more than its calls (all of
     * them but for sampled timing, and none for a function never called), and the variance of its
     * time as an estimate (finite, not negative, 0 when every call was timed). Version 1: every call
     * timed.
     */
    private static void timing(ByteBuffer b, Header h, String[] names, long[][] stats, long[] timed,
                               double[] variance) {
        for (int f = 0; f < h.nfunc; f++) {
            if (h.version < 2) {
                timed[f] = stats[f][CALLS];
                continue;
            }
            int at = b.position();
            timed[f] = count(b, at, names[f], " calls timed");
            if (timed[f] > stats[f][CALLS]) {
                throw bad(at, names[f] + " calls timed", timed[f] + " is more than its " + stats[f][CALLS] + " calls");
            }
            variance[f] = b.getDouble(at + 8) + 0.0;
            if (!(variance[f] >= 0 && Double.isFinite(variance[f])) || (timed[f] == stats[f][CALLS] && variance[f] != 0)) {
                throw bad(at + 8, names[f] + " time variance", variance[f] + (timed[f] == stats[f][CALLS]
                        ? " with every call timed (must be 0)" : " is not a finite non-negative number"));
            }
            b.position(at + 16);
        }
    }

    /** Whether function f's time is an estimate from a sample of its calls (fewer timed than counted). */
    public boolean sampled(int f) {
        return timed[f] < stats[f][CALLS];
    }

    /**
     * The size histograms: no function has more calls in them than it has calls. The section is most of
     * a dump (functions x buckets, most of them never called) and the launcher reads it once per rank
     * after a job, before the JIT compiler has seen this code: it is copied out in one bulk read, a
     * function never called is checked all zero with one loop ({@link #zero}), and only the others value
     * by value.
     */
    private static long[][] histograms(ByteBuffer b, Header h, String[] names, long[][] stats) {
        int start = b.position();
        int nb = h.nbuckets;
        long[] all = new long[h.nfunc * nb];
        b.asLongBuffer().get(all); // the view keeps b's byte order (little-endian)
        b.position(start + 8 * all.length);
        long[][] hist = new long[h.nfunc][];
        for (int f = 0; f < h.nfunc; f++) {
            if (stats[f][CALLS] == 0 && zero(all, f * nb, nb)) {
                hist[f] = new long[nb];
                continue;
            }
            long[] row = Arrays.copyOfRange(all, f * nb, (f + 1) * nb);
            hist[f] = row;
            long total = 0;
            for (int k = 0; k < nb; k++) {
                long at = start + 8L * (f * nb + k);
                if (row[k] < 0) {
                    throw bad(at, names[f] + " size bucket " + k, Long.toUnsignedString(row[k]) + " is more than 2^63-1");
                }
                total = sum(total, row[k], at, names[f], " size buckets");
                if (total > stats[f][CALLS]) {
                    throw bad(at, names[f] + " size bucket " + k, "more calls in the size buckets than the "
                            + stats[f][CALLS] + " calls");
                }
            }
        }
        return hist;
    }

    /**
     * Whether {@code n} values from {@code from} are all 0. A plain loop: most functions of a dump were
     * never called, and the launcher reads a job's dumps in a fresh JVM, where Arrays.equals' vectorised
     * mismatch runs interpreted (~5 ms for two ranks' dumps, against well under 1 for this).
     */
    private static boolean zero(long[] a, int from, int n) {
        long any = 0;
        for (int i = from; i < from + n; i++) {
            any |= a[i];
        }
        return any == 0;
    }

    /** The rank's row of the matrix: messages and bytes to each world rank; no bytes without a message. */
    private static void matrix(ByteBuffer b, long[] messages, long[] bytes) {
        long[] totals = new long[2];
        for (int r = 0; r < messages.length; r++) {
            int at = b.position();
            messages[r] = count(b, at, "", "messages to rank ", r, "");
            bytes[r] = count(b, at + 8, "", "bytes to rank ", r, "");
            b.position(at + 16);
            totals[0] = sum(totals[0], messages[r], at, "messages to all ranks");
            totals[1] = sum(totals[1], bytes[r], at + 8, "bytes to all ranks");
            if (messages[r] == 0 && bytes[r] != 0) {
                throw bad(at + 8, "bytes to rank " + r, bytes[r] + " without a message");
            }
        }
    }

    private static long detailBytes(int nbuckets) {
        return 16 + 8L * nbuckets + 16L * COMM_BUCKETS;
    }

    /** Version 3: the number of detail records its head gives (no more than the functions), read before the size
     * check (the head is where a snapshot without records ends). */
    private static long records(ByteBuffer b, Header h) {
        long at = h.bytes() - DETAIL_HEAD;
        if (b.limit() < at + DETAIL_HEAD) {
            return 0; // truncated: the size check says so
        }
        int cb = b.getInt((int) at + 20);
        if (cb != COMM_BUCKETS) {
            throw bad(at + 20, "communicator-size buckets", cb + ", this jpmpi reads " + COMM_BUCKETS);
        }
        long n = Integer.toUnsignedLong(b.getInt((int) at + 16));
        if (n > h.nfunc) {
            throw bad(at + 16, "detail records", n + " is more than the " + h.nfunc + " functions");
        }
        return n;
    }

    /**
     * The version 3 part: the recorder's own start and finalize, and a record for each function called
     * (ascending, distinct, none for a function never called); no more calls by communicator size than
     * calls, no more time in the size buckets or the communicator sizes than the function's time.
     */
    private static Breakdown breakdown(ByteBuffer b, Header h, String[] names, long[][] stats) {
        int at = b.position();
        long start = Header.ticks(b, at, "recorder start ticks", h.tps);
        long fin = Header.ticks(b, at + 8, "recorder finalize ticks", h.tps);
        int n = b.getInt(at + 16);
        b.position(at + DETAIL_HEAD);
        long[] buffer = new long[h.nfunc];
        long[][] sizeTicks = new long[h.nfunc][h.nbuckets];
        long[][] commCalls = new long[h.nfunc][COMM_BUCKETS];
        long[][] commTicks = new long[h.nfunc][COMM_BUCKETS];
        int last = -1;
        for (int i = 0; i < n; i++) {
            int r = b.position();
            int f = b.getInt(r);
            if (f <= last || f >= h.nfunc) {
                throw bad(r, "detail record " + i, "function index " + f + (f >= h.nfunc ? " is not below "
                        + h.nfunc : " does not follow " + last));
            }
            if (stats[f][CALLS] == 0) {
                throw bad(r, "detail record " + i, names[f] + " was never called");
            }
            last = f;
            buffer[f] = count(b, r + 8, names[f], " buffer bytes");
            int o = r + 16;
            long time = 0;
            for (int k = 0; k < h.nbuckets; k++, o += 8) {
                sizeTicks[f][k] = count(b, o, names[f], " size bucket ", k, " ticks");
                time = sum(time, sizeTicks[f][k], o, names[f], " ticks by size");
            }
            long calls = 0;
            long ctime = 0;
            for (int k = 0; k < COMM_BUCKETS; k++) {
                commCalls[f][k] = count(b, o + 8 * k, names[f], " communicator-size bucket ", k, " calls");
                calls = sum(calls, commCalls[f][k], o + 8L * k, names[f], " calls by communicator size");
                int t = o + 8 * COMM_BUCKETS + 8 * k;
                commTicks[f][k] = count(b, t, names[f], " communicator-size bucket ", k, " ticks");
                ctime = sum(ctime, commTicks[f][k], t, names[f], " ticks by communicator size");
            }
            if (time > stats[f][TICKS] || ctime > stats[f][TICKS]) {
                throw bad(r + 16, names[f] + (time > stats[f][TICKS] ? " ticks by size" : " ticks by communicator size"),
                        Math.max(time, ctime) + " ticks is more than the function's " + stats[f][TICKS]);
            }
            if (calls > stats[f][CALLS]) {
                throw bad(o, names[f] + " calls by communicator size", calls + " is more than its " + stats[f][CALLS]
                        + " calls");
            }
            b.position(r + (int) detailBytes(h.nbuckets));
        }
        return new Breakdown(start, fin, buffer, sizeTicks, commCalls, commTicks);
    }

    /** {@code a + v}, which must stay below 2^63. */
    private static long sum(long a, long v, long at, String what) {
        return sum(a, v, at, what, "");
    }

    /** {@link #sum(long, long, long, String)} of the figures named {@code head + tail}. */
    private static long sum(long a, long v, long at, String head, String tail) {
        try {
            return Math.addExact(a, v);
        } catch (ArithmeticException e) {
            throw bad(at, head + tail, "add up to more than 2^63-1");
        }
    }

    /** The NUL-terminated UTF-8 text in the {@code n} bytes at {@code at}. */
    private static String text(ByteBuffer b, int at, int n) {
        byte[] raw = new byte[n];
        b.get(at, raw);
        int end = 0;
        while (end < n && raw[end] != 0) {
            end++;
        }
        return new String(raw, 0, end, StandardCharsets.UTF_8);
    }

    public double seconds(long ticks) {
        return ticksPerSecond > 0 ? ticks / ticksPerSecond : 0;
    }

    /** The shortest interval the clock shows, in seconds: measured, else one tick. */
    public double timerSeconds() {
        return seconds(Math.max(1, timerTicks));
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
            case FLUSH -> detail == FLUSH_PERIODIC ? "still running (periodic dump, JPMPI_PROFILE_DUMP_EVERY)"
                    : "still running (MPI_Pcontrol(2) flush)";
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
