package io.jpmpi.profilers.profile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * Rank dumps for the tests, laid out byte for byte as the recorder writes them
 * (profilers/profile/src/main/c/rec_snapshot.c, the layout in {@link Snapshot}): a halo exchange on
 * a ring, every rank sending to both neighbours, with the figures the recorder's counters give
 * (the shortest call no longer than the longest, no figures for a function never called, the size
 * buckets holding the calls that move bytes). They are version 1 dumps (no timing section: every
 * call timed), which the reader still takes; the recorder's own (version 2) are read in the ITs.
 */
public final class Dumps {
    /** The functions of every dump, in the recorder's order; the last is never called. */
    public static final String[] FUNCTIONS = {"MPI_Allreduce", "MPI_Barrier", "MPI_Irecv", "MPI_Isend",
        "MPI_Waitall", "MPI_Comm_rank", "MPI_Bcast"};
    /** The size buckets of every dump. */
    public static final int BUCKETS = 48;
    public static final double TICKS_PER_SECOND = 2.4e9;
    private static final long HALO = 64 * 1024;
    private static final long ITERATIONS = 200;
    private static final int STATE_FINALIZE = 1;

    private Dumps() {
    }

    /** Where the figure {@code k} (Snapshot.CALLS ... Snapshot.RECV) of function {@code f} is. */
    public static int statAt(int f, int k) {
        return Snapshot.HEADER + FUNCTIONS.length * Snapshot.NAME + (f * 6 + k) * 8;
    }

    /** Where bucket {@code k} of function {@code f}'s size histogram is. */
    public static int bucketAt(int f, int k) {
        return statAt(FUNCTIONS.length, 0) + (f * BUCKETS + k) * 8;
    }

    /** Where the matrix entry (0: messages, 1: bytes) for {@code peer} is. */
    public static int matrixAt(int peer, int which) {
        return bucketAt(FUNCTIONS.length, 0) + peer * 16 + which * 8;
    }

    /** Rank {@code rank}'s dump of a job of {@code size} ranks that reached MPI_Finalize. */
    public static byte[] dump(int rank, int size) {
        ByteBuffer b = ByteBuffer.allocate(matrixAt(size, 0)).order(ByteOrder.LITTLE_ENDIAN);
        header(b, rank, size);
        b.position(Snapshot.HEADER);
        for (String name : FUNCTIONS) {
            byte[] n = name.getBytes(StandardCharsets.US_ASCII);
            b.put(n).put(new byte[Snapshot.NAME - n.length]);
        }
        Random rnd = new Random(rank * 31L + size);
        int neighbours = size == 1 ? 0 : size == 2 ? 1 : 2;
        function(b, rnd, 0, ITERATIONS, 8, 8);
        function(b, rnd, 1, 2, 0, 0);
        function(b, rnd, 2, neighbours * ITERATIONS, 0, HALO);
        function(b, rnd, 3, neighbours * ITERATIONS, HALO, 0);
        function(b, rnd, 4, ITERATIONS, 0, 0);
        function(b, rnd, 5, 1, 0, 0);
        function(b, rnd, 6, 0, 0, 0);
        if (neighbours > 0) {
            peer(b, (rank + 1) % size);
            peer(b, (rank + size - 1) % size);
        }
        return b.array();
    }

    /**
     * A version 1 dump as the recorder of version 2 writes it: a timing section after the figures
     * (every call timed, no variance); the header's fields in place (impl and jobid are short enough
     * for version 2's shorter fields, the step and timer ticks zero).
     */
    public static byte[] version2(byte[] v1) {
        int statsEnd = Snapshot.HEADER + FUNCTIONS.length * Snapshot.NAME + FUNCTIONS.length * 6 * 8;
        ByteBuffer in = ByteBuffer.wrap(v1).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer out = ByteBuffer.allocate(v1.length + FUNCTIONS.length * 16).order(ByteOrder.LITTLE_ENDIAN);
        out.put(v1, 0, statsEnd);
        for (int f = 0; f < FUNCTIONS.length; f++) {
            out.putLong(in.getLong(Snapshot.HEADER + FUNCTIONS.length * Snapshot.NAME + f * 6 * 8)).putDouble(0);
        }
        out.put(v1, statsEnd, v1.length - statsEnd);
        out.putInt(8, 2);
        return out.array();
    }

    /** The size of a version 3 detail record. */
    public static final int DETAIL = 16 + 8 * BUCKETS + 16 * Snapshot.COMM_BUCKETS;

    /** Where the version 3 part of a dump of {@code size} ranks starts (after the version 2 matrix). */
    public static int v3At(int size) {
        return matrixAt(size, 0) + FUNCTIONS.length * 16;
    }

    /**
     * A version 1 dump as the recorder of version 3 writes it: version 2's, then the recorder's own start
     * ({@code start} ticks) and finalize ({@code fin}), and a record for every function called: the
     * Allreduce's and the Barrier's calls and time in the communicator-size bucket of the world's size
     * (log2), the Allreduce's buffer bytes its 8 bytes a call, the time of every function that moves bytes in
     * the size bucket its calls are in.
     */
    public static byte[] version3(byte[] v1, long start, long fin) {
        ByteBuffer in = ByteBuffer.wrap(v1).order(ByteOrder.LITTLE_ENDIAN);
        byte[] v2 = version2(v1);
        int size = in.getInt(28);
        int called = 0;
        for (int f = 0; f < FUNCTIONS.length; f++) {
            called += in.getLong(statAt(f, 0)) > 0 ? 1 : 0;
        }
        ByteBuffer out = ByteBuffer.allocate(v2.length + Snapshot.DETAIL_HEAD + called * DETAIL)
                .order(ByteOrder.LITTLE_ENDIAN);
        out.put(v2);
        out.putInt(8, 3);
        out.putLong(start).putLong(fin).putInt(called).putInt(Snapshot.COMM_BUCKETS).putLong(0);
        int comm = 31 - Integer.numberOfLeadingZeros(size);
        for (int f = 0; f < FUNCTIONS.length; f++) {
            long calls = in.getLong(statAt(f, 0));
            if (calls == 0) {
                continue;
            }
            long ticks = in.getLong(statAt(f, 1));
            int at = out.position();
            out.putInt(f).putInt(0).putLong(f == 0 ? 8 * calls : 0);
            boolean bytes = in.getLong(statAt(f, 4)) + in.getLong(statAt(f, 5)) > 0; // as the recorder: only these
            for (int k = 0; k < BUCKETS; k++) {
                out.putLong(bytes && in.getLong(bucketAt(f, k)) > 0 ? ticks : 0);
            }
            boolean coll = f <= 1;
            for (int k = 0; k < Snapshot.COMM_BUCKETS; k++) {
                out.putLong(coll && k == comm ? calls : 0);
            }
            for (int k = 0; k < Snapshot.COMM_BUCKETS; k++) {
                out.putLong(coll && k == comm ? ticks : 0);
            }
            out.position(at + DETAIL);
        }
        return out.array();
    }

    /** The dumps of all {@code size} ranks written to {@code dir}/ranks/rank-R.bin. */
    public static Path writeAll(Path dir, int size) throws IOException {
        Path ranks = Files.createDirectories(dir.resolve("ranks"));
        for (int r = 0; r < size; r++) {
            Files.write(ranks.resolve("rank-" + r + ".bin"), dump(r, size));
        }
        return ranks;
    }

    private static void header(ByteBuffer b, int rank, int size) {
        b.put(0, "JPMPIPR1".getBytes(StandardCharsets.US_ASCII));
        b.putInt(8, Snapshot.OLDEST_VERSION).putInt(12, Snapshot.HEADER).putInt(16, FUNCTIONS.length).putInt(20, BUCKETS);
        b.putInt(24, rank).putInt(28, size).putInt(32, STATE_FINALIZE).putInt(36, 0);
        b.putLong(40, 40_000 + rank).putDouble(48, TICKS_PER_SECOND).putDouble(56, 14.2);
        b.putLong(64, 1_795_000_000_000_000_000L).putLong(72, (long) ((12.4 + 0.01 * rank) * TICKS_PER_SECOND));
        b.putLong(80, size);
        text(b, 88, "node" + (1 + rank / 4));
        text(b, 152, "openmpi 4.1.4");
        text(b, 184, "4711");
        text(b, 248, "/home/me/halo");
    }

    private static void text(ByteBuffer b, int at, String s) {
        b.put(at, s.getBytes(StandardCharsets.UTF_8));
    }

    /** Function f's figures and size buckets: {@code calls} calls of 1 to 60 us, each moving the bytes given. */
    private static void function(ByteBuffer b, Random rnd, int f, long calls, long sent, long recv) {
        if (calls == 0) {
            return;
        }
        long min = (long) ((1 + rnd.nextInt(5)) * 1e-6 * TICKS_PER_SECOND);
        long max = (long) ((20 + rnd.nextInt(40)) * 1e-6 * TICKS_PER_SECOND);
        long ticks = calls == 1 ? max : min + max + (calls - 2) * (min + rnd.nextInt((int) (max - min)));
        long[] s = {calls, ticks, calls == 1 ? max : min, max, calls * sent, calls * recv};
        for (int k = 0; k < s.length; k++) {
            b.putLong(statAt(f, k), s[k]);
        }
        int bucket = Math.max(sent, recv) == 0 ? 0 : 64 - Long.numberOfLeadingZeros(Math.max(sent, recv));
        b.putLong(bucketAt(f, bucket), calls);
    }

    private static void peer(ByteBuffer b, int peer) {
        b.putLong(matrixAt(peer, 0), b.getLong(matrixAt(peer, 0)) + ITERATIONS);
        b.putLong(matrixAt(peer, 1), b.getLong(matrixAt(peer, 1)) + ITERATIONS * HALO);
    }
}
