package io.jpmpi.profilers.profile;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.Level;
import io.jpmpi.layering.Status;
import io.jpmpi.layering.generated.Constants;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.MPI_Op;
import io.jpmpi.layering.generated.Mpi;
import io.jpmpi.layering.generated.Variables;
import io.jpmpi.profilers.report.AtomicFile;
import io.jpmpi.profilers.report.OwnDirectory;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileDetails;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.profilers.report.ProfileWriter;
import io.jpmpi.profilers.report.Reports;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The Java level of the {@code profile} tool. The C level above it (libjpmpi-profile.so) records
 * every call without the JVM; this level overrides nothing on the hot path. At MPI_Finalize, while
 * MPI still works and on a duplicate of MPI_COMM_WORLD, it:
 * <ol>
 * <li>takes this rank's snapshot from the recorder;</li>
 * <li>reduces the fixed-size {@link Aggregate} to rank 0 (sums, sums of squares, MINLOC/MAXLOC,
 * histograms, block views: MPI's tree reductions, so rank 0's share does not grow with ranks);</li>
 * <li>writes profile.json in parallel: rank 0 the fixed-size head and the separators, every rank
 * its own rank row and matrix rows at offsets from an MPI_Exscan of the row lengths;</li>
 * <li>rank 0 renders report.txt and report.html.</li>
 * </ol>
 * Every rank runs the same collectives whatever fails locally; a failure anywhere leaves the
 * recorder's per-rank dumps (ranks/rank-R.bin) for {@code jpmpi report} instead.
 */
public final class ProfileLevel extends Interceptor {
    private static final String FILE = Reports.PROFILE;
    /**
     * The tags of the rows the ranks send rank 0 (rank rows, message rows, byte rows, per-rank
     * functions), on the tool's own communicator.
     */
    static final int ROWS_TAG = 0x6a70;

    /** Whether the recorder was told that the profile output is needed (see the constructor). */
    private final boolean told;

    /**
     * Tells the recorder that the profile output is needed (the accounting tool, when listed too,
     * says it needs none). The dispatcher makes the levels while it starts the JVM in the first MPI
     * call, before MPI_Init runs through the recorder: in time, and without an upcall for MPI_Init.
     */
    public ProfileLevel() {
        told = Recorder.needOutput();
    }

    @Override
    public void beforeFinalize() {
        Optional<Recorder> found = Recorder.find();
        if (found.isEmpty()) {
            level().message("profile: " + Recorder.LIBRARY + " is not in the entry list above this jar; nothing"
                    + " was recorded (use the launcher's --tools profile, or list the library first)");
            return;
        }
        if (!told) {
            level().message("profile: " + found.get().path() + " could not be told at the start that the profile"
                    + " is needed; with the accounting tool too, it wrote no rank dumps");
        }
        Recorder recorder = found.get();
        long started = System.nanoTime();
        MPI_Comm comm = level().dupComm(Constants.MPI_COMM_WORLD);
        boolean ok;
        Path dir = recorder.outputDir();
        int rank = level().commRank(comm);
        try (Arena arena = Arena.ofConfined()) {
            ok = new Job(arena, level(), comm, rank, level().commSize(comm), recorder, dir).run();
        } finally {
            level().freeComm(comm);
        }
        if (ok) {
            recorder.written();
            try {
                Files.deleteIfExists(dir.resolve("ranks").resolve("rank-" + rank + ".bin"));
            } catch (IOException e) {
                // a stale flush dump is harmless: profile.json takes precedence
            }
            // nothing on the application's streams unless asked (v): jpmpi run says where the report is
            if (rank == 0 && level().verbosity() > 0 && System.getenv(Variables.PROFILE_QUIET) == null) {
                level().message(String.format("profile: %s (%.0f ms)", dir.resolve(FILE),
                        (System.nanoTime() - started) / 1e6));
            }
        }
    }

    /** One run of the finalize protocol. */
    private static final class Job {
        private final Arena arena;
        private final Level level;
        private final Mpi mpi;
        private final MPI_Comm comm;
        private final int rank;
        private final int size;
        private final Recorder recorder;
        private final Path dir;
        private boolean localOk = true;
        /** Rank 0's buffer for the other ranks' rows, grown as they need. */
        private MemorySegment receiveBuffer;
        private String failure;

        Job(Arena arena, Level level, MPI_Comm comm, int rank, int size, Recorder recorder, Path dir) {
            this.arena = arena;
            this.level = level;
            this.mpi = level.library();
            this.comm = comm;
            this.rank = rank;
            this.size = size;
            this.recorder = recorder;
            this.dir = dir;
        }

        private void fail(String what, Throwable e) {
            if (localOk) {
                localOk = false;
                failure = what + ": " + e;
            }
        }

        boolean run() {
            Snapshot s = null;
            try {
                s = recorder.snapshot();
            } catch (RuntimeException e) {
                fail("snapshot", e);
            }
            // Every rank contributes arrays of the same shape; a rank without a snapshot contributes
            // nothing and says so in the final vote.
            String[] names = s != null ? s.names() : new String[0];
            int nfunc = bcastInt(names.length);
            int nbuckets = bcastInt(s != null ? s.histograms()[0].length : 0);
            if (s == null || names.length != nfunc) {
                s = null;
                localOk = false;
            }
            Aggregate mine = s != null ? Aggregate.of(s, size) : new Aggregate(new String[nfunc], size, nbuckets);
            Aggregate total = reduce(mine, s == null);
            int hosts = countHosts();
            int contributors = (int) reduceLong(s != null ? 1 : 0);

            String head = null;
            String middle = ProfileJson.middle();
            String middle2 = ProfileJson.middle2();
            String middle3 = ProfileJson.middle3();
            String tail = ProfileJson.tail2();
            Profile profile = null;
            if (rank == 0 && s != null) {
                try {
                    profile = total.toProfile(s, contributors, hosts, contributors < size, contributors < size
                            ? List.of((size - contributors) + " ranks had no figures") : List.of(),
                            List.of(), List.of(), List.of());
                    // with the timer's resolution (rank 0's); the per-rank functions come as rows
                    head = ProfileJson.head(profile.withDetails(new ProfileDetails(null, s.timerSeconds(), null)));
                } catch (RuntimeException e) {
                    fail("profile", e);
                }
            }
            byte[] row = new byte[0];
            byte[] messages = new byte[0];
            byte[] bytes = new byte[0];
            byte[] functions = new byte[0];
            boolean last = rank == size - 1;
            if (s != null) {
                try {
                    Profile.SparseRow[] m = Aggregate.matrixRows(s);
                    row = ProfileJson.rankRow(Aggregate.rankRow(s), last).getBytes(StandardCharsets.UTF_8);
                    messages = ProfileJson.sparseRow(m[0], last).getBytes(StandardCharsets.UTF_8);
                    bytes = ProfileJson.sparseRow(m[1], last).getBytes(StandardCharsets.UTF_8);
                    functions = ProfileJson.rankFunctionsRow(RankDumps.rankFunctions(s), last)
                            .getBytes(StandardCharsets.UTF_8);
                } catch (RuntimeException e) {
                    fail("rows", e);
                }
            }
            byte[] headBytes = head != null ? head.getBytes(StandardCharsets.UTF_8) : new byte[0];
            // rank 0 writes the file: new, never through a link, mode 0600, in a directory that is
            // this user's alone (README.md, "Security"), under an unguessable name
            Path tmp = tmpFile(dir, rank == 0 ? new SecureRandom().nextLong() >>> 1 : 0);
            if (rank == 0 && localOk) {
                try {
                    OwnDirectory.make(dir);
                    try (FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.CREATE_NEW,
                            StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), AtomicFile.OWNER_ONLY)) {
                        write(ch, headBytes, 0);
                    }
                } catch (IOException | RuntimeException e) {
                    fail("create " + tmp, e);
                }
            }
            // Rank 0 alone writes the file: every other rank sends it its rows, which it appends in
            // rank order, one at a time (PROFILE.md, "Where it is written"): no other rank needs to
            // reach the directory, which may be on a file system only rank 0's host can write.
            if (bcastInt(rank == 0 && localOk ? 1 : 0) == 1) {
                byte[][] rows = {row, messages, bytes, functions};
                if (rank != 0) {
                    for (int part = 0; part < rows.length; part++) {
                        send(rows[part], ROWS_TAG + part);
                    }
                } else {
                    assemble(tmp, headBytes.length, rows, new String[] {"", middle, middle2, middle3}, tail);
                }
            }
            boolean all = reduceMin(localOk ? 1 : 0) == 1;
            if (!localOk) {
                System.err.println("jpmpi (rank " + rank + "): profile: " + failure
                        + "; this rank's figures stay in " + dir.resolve("ranks"));
            }
            if (rank == 0 && all) {
                try {
                    ProfileWriter.publish(tmp, dir);
                } catch (IOException | RuntimeException e) {
                    System.err.println("jpmpi (rank 0): profile: " + e + " (profile.json: " + dir.resolve(FILE) + ")");
                }
            }
            return all;
        }

        /**
         * Rank 0: appends, after the head, each part (rank rows, message rows, byte rows, functions) preceded by
         * its separator: its own, then every other rank's as it arrives, then the tail. Every rank's
         * rows are received even after a failed write (the senders would wait for ever otherwise);
         * a failure is this rank's, and the final vote keeps the file from being published.
         */
        private void assemble(Path tmp, long headLength, byte[][] mine, String[] before, String tail) {
            FileChannel ch = null;
            try {
                ch = FileChannel.open(tmp, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            } catch (IOException | RuntimeException e) {
                fail("write " + tmp, e);
            }
            long at = headLength;
            for (int part = 0; part < mine.length; part++) {
                at = append(ch, tmp, before[part].getBytes(StandardCharsets.UTF_8), at);
                at = append(ch, tmp, mine[part], at);
                for (int r = 1; r < size; r++) {
                    at = append(ch, tmp, receive(r, ROWS_TAG + part), at);
                }
            }
            append(ch, tmp, tail.getBytes(StandardCharsets.UTF_8), at);
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException e) {
                    fail("write " + tmp, e);
                }
            }
        }

        /** Writes data at `at` while this rank's writing has not failed; the offset after it. */
        private long append(FileChannel ch, Path tmp, byte[] data, long at) {
            if (ch != null && localOk) {
                try {
                    write(ch, data, at);
                } catch (IOException | RuntimeException e) {
                    fail("write " + tmp, e);
                }
            }
            return at + data.length;
        }

        private void send(byte[] data, int tag) {
            MemorySegment m = arena.allocate(Math.max(data.length, 1));
            MemorySegment.copy(data, 0, m, JAVA_BYTE, 0, data.length);
            check(mpi.MPI_Send(m.address(), data.length, Constants.MPI_BYTE, 0, tag, comm), "MPI_Send");
        }

        /** One message of `from` with `tag`, whatever its length, into a buffer reused from one to the next. */
        private byte[] receive(int from, int tag) {
            MemorySegment status = arena.allocate(Status.SIZE, 8);
            check(mpi.MPI_Probe(from, tag, comm, status.address()), "MPI_Probe");
            MemorySegment count = arena.allocate(4, 4);
            check(mpi.MPI_Get_count(status.address(), Constants.MPI_BYTE, count.address()), "MPI_Get_count");
            int n = count.get(JAVA_INT, 0);
            if (receiveBuffer == null || receiveBuffer.byteSize() < n) {
                receiveBuffer = arena.allocate(Math.max(n, 2 * (receiveBuffer == null ? 4096 : receiveBuffer.byteSize())));
            }
            check(mpi.MPI_Recv(receiveBuffer.address(), n, Constants.MPI_BYTE, from, tag, comm,
                    Constants.MPI_STATUS_IGNORE), "MPI_Recv");
            return receiveBuffer.asSlice(0, n).toArray(JAVA_BYTE);
        }

        private static Path tmpFile(Path dir, long token) {
            return dir.resolve("." + FILE + "." + Long.toHexString(token) + ".tmp");
        }

        private static void write(FileChannel ch, byte[] data, long at) throws IOException {
            ByteBuffer b = ByteBuffer.wrap(data);
            long pos = at;
            while (b.hasRemaining()) {
                pos += ch.write(b, pos);
            }
        }

        private void check(int rc, String what) {
            if (rc != 0) {
                throw new IllegalStateException(what + " returned MPI error " + rc);
            }
        }

        private MemorySegment doubles(double[] v) {
            MemorySegment m = arena.allocate(8L * Math.max(v.length, 1), 8);
            for (int i = 0; i < v.length; i++) {
                m.setAtIndex(JAVA_DOUBLE, i, v[i]);
            }
            return m;
        }

        private MemorySegment longs(long[] v) {
            MemorySegment m = arena.allocate(8L * Math.max(v.length, 1), 8);
            for (int i = 0; i < v.length; i++) {
                m.setAtIndex(JAVA_LONG, i, v[i]);
            }
            return m;
        }

        private int bcastInt(int v) {
            MemorySegment m = arena.allocate(4, 4);
            m.set(JAVA_INT, 0, v);
            check(mpi.MPI_Bcast(m.address(), 1, Constants.MPI_INT, 0, comm), "MPI_Bcast");
            return m.get(JAVA_INT, 0);
        }

        private long reduceLong(long v) {
            MemorySegment in = longs(new long[] {v});
            MemorySegment out = arena.allocate(8, 8);
            check(mpi.MPI_Reduce(in.address(), out.address(), 1, Constants.MPI_LONG_LONG, Constants.MPI_SUM, 0, comm),
                    "MPI_Reduce");
            return out.get(JAVA_LONG, 0);
        }

        private long reduceMin(long v) {
            MemorySegment in = longs(new long[] {v});
            MemorySegment out = arena.allocate(8, 8);
            check(mpi.MPI_Allreduce(in.address(), out.address(), 1, Constants.MPI_LONG_LONG, Constants.MPI_MIN, comm),
                    "MPI_Allreduce");
            return out.get(JAVA_LONG, 0);
        }

        /** The number of distinct nodes: one per shared-memory communicator. */
        private int countHosts() {
            MPI_Comm node = level.sharedMemoryComm(comm);
            int leader = level.commRank(node) == 0 ? 1 : 0;
            level.freeComm(node);
            return (int) reduceLong(leader);
        }

        /** The element-wise reduction of every rank's aggregate to rank 0. */
        private Aggregate reduce(Aggregate a, boolean empty) {
            int n = a.quantities();
            double[] sums = new double[2 * n + 2 * a.blocks];
            System.arraycopy(a.sum, 0, sums, 0, n);
            System.arraycopy(a.sumSquares, 0, sums, n, n);
            System.arraycopy(a.blockApp, 0, sums, 2 * n, a.blocks);
            System.arraycopy(a.blockMpi, 0, sums, 2 * n + a.blocks, a.blocks);
            double[] sumOut = reduceDoubles(sums, Constants.MPI_SUM);
            double[][] minOut = reduceLoc(a.min, a.minRank, empty ? Double.MAX_VALUE : Double.NaN, Constants.MPI_MINLOC);
            double[][] maxOut = reduceLoc(a.max, a.maxRank, empty ? -Double.MAX_VALUE : Double.NaN, Constants.MPI_MAXLOC);
            double[] minCall = reduceDoubles(a.minCall, Constants.MPI_MIN);
            double[] maxCall = reduceDoubles(a.maxCall, Constants.MPI_MAX);
            long[] counts = new long[a.histogram.length + 2 * a.blockMessages.length];
            System.arraycopy(a.histogram, 0, counts, 0, a.histogram.length);
            System.arraycopy(a.blockMessages, 0, counts, a.histogram.length, a.blockMessages.length);
            System.arraycopy(a.blockBytes, 0, counts, a.histogram.length + a.blockMessages.length, a.blockBytes.length);
            long[] countsOut = reduceLongs(counts);
            if (rank != 0) {
                return a;
            }
            Aggregate t = new Aggregate(a.names, a.ranks, a.nbuckets);
            System.arraycopy(sumOut, 0, t.sum, 0, n);
            System.arraycopy(sumOut, n, t.sumSquares, 0, n);
            System.arraycopy(sumOut, 2 * n, t.blockApp, 0, a.blocks);
            System.arraycopy(sumOut, 2 * n + a.blocks, t.blockMpi, 0, a.blocks);
            for (int i = 0; i < n; i++) {
                t.min[i] = minOut[0][i];
                t.minRank[i] = (int) minOut[1][i];
                t.max[i] = maxOut[0][i];
                t.maxRank[i] = (int) maxOut[1][i];
            }
            System.arraycopy(minCall, 0, t.minCall, 0, minCall.length);
            System.arraycopy(maxCall, 0, t.maxCall, 0, maxCall.length);
            System.arraycopy(countsOut, 0, t.histogram, 0, a.histogram.length);
            System.arraycopy(countsOut, a.histogram.length, t.blockMessages, 0, a.blockMessages.length);
            System.arraycopy(countsOut, a.histogram.length + a.blockMessages.length, t.blockBytes, 0,
                    a.blockBytes.length);
            return t;
        }

        private double[] reduceDoubles(double[] v, MPI_Op op) {
            MemorySegment in = doubles(v);
            MemorySegment out = arena.allocate(8L * Math.max(v.length, 1), 8);
            check(mpi.MPI_Reduce(in.address(), out.address(), v.length, Constants.MPI_DOUBLE, op, 0, comm),
                    "MPI_Reduce");
            return rank == 0 ? out.asSlice(0, 8L * v.length).toArray(JAVA_DOUBLE) : v;
        }

        private long[] reduceLongs(long[] v) {
            MemorySegment in = longs(v);
            MemorySegment out = arena.allocate(8L * Math.max(v.length, 1), 8);
            check(mpi.MPI_Reduce(in.address(), out.address(), v.length, Constants.MPI_LONG_LONG, Constants.MPI_SUM, 0,
                    comm), "MPI_Reduce");
            return rank == 0 ? out.asSlice(0, 8L * v.length).toArray(JAVA_LONG) : v;
        }

        /** MINLOC/MAXLOC over (value, rank) pairs laid out as MPI_DOUBLE_INT (16-byte stride). */
        private double[][] reduceLoc(double[] values, int[] ranks, double emptyValue, MPI_Op op) {
            int n = values.length;
            MemorySegment in = arena.allocate(16L * Math.max(n, 1), 8);
            MemorySegment out = arena.allocate(16L * Math.max(n, 1), 8);
            for (int i = 0; i < n; i++) {
                in.set(JAVA_DOUBLE, 16L * i, Double.isNaN(emptyValue) ? values[i] : emptyValue);
                in.set(JAVA_INT, 16L * i + 8, ranks[i]);
            }
            check(mpi.MPI_Reduce(in.address(), out.address(), n, Constants.MPI_DOUBLE_INT, op, 0, comm),
                    "MPI_Reduce");
            double[][] r = new double[2][n];
            for (int i = 0; i < n; i++) {
                r[0][i] = out.get(JAVA_DOUBLE, 16L * i);
                r[1][i] = out.get(JAVA_INT, 16L * i + 8);
            }
            return r;
        }
    }
}
