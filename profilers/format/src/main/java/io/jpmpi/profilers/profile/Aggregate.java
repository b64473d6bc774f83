package io.jpmpi.profilers.profile;

import io.jpmpi.profilers.report.FunctionProfile;
import io.jpmpi.profilers.report.Histogram;
import io.jpmpi.profilers.report.Job;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.Stat;
import io.jpmpi.profilers.report.UtcSeconds;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The fixed-size summary of a job that ranks combine: for every per-rank quantity its sum, sum of
 * squares, minimum and maximum with their ranks; per function the shortest and longest single
 * call; the size histograms; and the per-block views. Its size depends on the number of functions
 * and blocks, never on the number of ranks, so rank 0's share of a reduction does not grow with
 * the job. One rank's contribution comes from its {@link Snapshot}; contributions combine with
 * {@link #add} (offline) or element-wise MPI reductions of the arrays (at MPI_Finalize).
 */
public final class Aggregate {
    /** Per-rank quantities, then PER_FUNCTION per function. */
    static final int APP = 0;
    static final int MPI = 1;
    static final int PCT = 2;
    static final int CALLS = 3;
    static final int SENT = 4;
    static final int RECV = 5;
    static final int OVERHEAD = 6;
    static final int PER_RANK = 7;
    static final int F_CALLS = 0;
    static final int F_TIME = 1;
    static final int F_SENT = 2;
    static final int F_RECV = 3;
    /** Calls timed, and the variance of the time as an estimate (s^2): sampled timing. */
    static final int F_TIMED = 4;
    static final int F_VAR = 5;
    static final int PER_FUNCTION = 6;
    /** Most blocks per side of the block matrix and the per-block bars. */
    public static final int MAX_BLOCKS = 64;
    static final double NO_CALL = 1e300;
    /** What the recorder adds to a call it counts without timing it (PROFILE.md, "Sampled timing"). */
    static final double UNTIMED_NS = 1.0;

    final String[] names;
    final int ranks;
    final int nbuckets;
    final int blocks;
    final double[] sum;
    final double[] sumSquares;
    final double[] min;
    final int[] minRank;
    final double[] max;
    final int[] maxRank;
    final double[] minCall;
    final double[] maxCall;
    final long[] histogram;
    final double[] blockApp;
    final double[] blockMpi;
    final long[] blockMessages;
    final long[] blockBytes;

    Aggregate(String[] names, int ranks, int nbuckets) {
        this.names = names;
        this.ranks = ranks;
        this.nbuckets = nbuckets;
        this.blocks = Math.min(ranks, MAX_BLOCKS);
        int n = PER_RANK + PER_FUNCTION * names.length;
        sum = new double[n];
        sumSquares = new double[n];
        min = new double[n];
        minRank = new int[n];
        max = new double[n];
        maxRank = new int[n];
        minCall = new double[names.length];
        maxCall = new double[names.length];
        histogram = new long[names.length * nbuckets];
        blockApp = new double[blocks];
        blockMpi = new double[blocks];
        blockMessages = new long[blocks * blocks];
        blockBytes = new long[blocks * blocks];
    }

    int quantities() {
        return sum.length;
    }

    static int f(int function, int which) {
        return PER_RANK + PER_FUNCTION * function + which;
    }

    /** The block of world rank r. */
    int block(int r) {
        return (int) ((long) r * blocks / ranks);
    }

    /** The first rank of each block. */
    int[] firstRanks() {
        int[] first = new int[blocks];
        for (int b = 0; b < blocks; b++) {
            first[b] = (int) (((long) b * ranks + blocks - 1) / blocks);
        }
        return first;
    }

    /** One rank's per-rank quantities. */
    static double[] values(Snapshot s) {
        double[] v = new double[PER_RANK + PER_FUNCTION * s.names().length];
        long timed = 0;
        double app = s.appSeconds();
        double mpi = s.mpiSeconds();
        long sent = 0;
        long recv = 0;
        for (int f = 0; f < s.names().length; f++) {
            long[] st = s.stats()[f];
            v[f(f, F_CALLS)] = st[Snapshot.CALLS];
            v[f(f, F_TIME)] = s.seconds(st[Snapshot.TICKS]);
            v[f(f, F_SENT)] = st[Snapshot.SENT];
            v[f(f, F_RECV)] = st[Snapshot.RECV];
            v[f(f, F_TIMED)] = s.timed()[f];
            v[f(f, F_VAR)] = s.variance()[f] / (s.ticksPerSecond() * s.ticksPerSecond());
            timed += s.timed()[f];
            sent += st[Snapshot.SENT];
            recv += st[Snapshot.RECV];
        }
        v[APP] = app;
        v[MPI] = mpi;
        v[PCT] = app > 0 ? 100 * mpi / app : 0;
        v[CALLS] = s.calls();
        v[SENT] = sent;
        v[RECV] = recv;
        // the recorder's cost is that of a timed call; an untimed one (sampled timing) costs it ~1 ns
        v[OVERHEAD] = s.perCallNs() * 1e-9 * timed + UNTIMED_NS * 1e-9 * (s.calls() - timed);
        return v;
    }

    /** The contribution of one rank. */
    static Aggregate of(Snapshot s, int ranks) {
        Aggregate a = new Aggregate(s.names(), ranks, s.histograms()[0].length);
        double[] v = values(s);
        for (int i = 0; i < v.length; i++) {
            a.sum[i] = v[i];
            a.sumSquares[i] = v[i] * v[i];
            a.min[i] = v[i];
            a.max[i] = v[i];
            a.minRank[i] = s.rank();
            a.maxRank[i] = s.rank();
        }
        for (int f = 0; f < s.names().length; f++) {
            long[] st = s.stats()[f];
            a.minCall[f] = st[Snapshot.CALLS] > 0 ? s.seconds(st[Snapshot.MIN]) : NO_CALL;
            a.maxCall[f] = st[Snapshot.CALLS] > 0 ? s.seconds(st[Snapshot.MAX]) : 0;
            System.arraycopy(s.histograms()[f], 0, a.histogram, f * a.nbuckets, a.nbuckets);
        }
        int me = a.block(s.rank());
        a.blockApp[me] = v[APP];
        a.blockMpi[me] = v[MPI];
        for (int peer = 0; peer < Math.min(s.messages().length, ranks); peer++) {
            a.blockMessages[me * a.blocks + a.block(peer)] += s.messages()[peer];
            a.blockBytes[me * a.blocks + a.block(peer)] += s.bytes()[peer];
        }
        return a;
    }

    /** Adds another part of the same job (same functions and ranks). */
    void add(Aggregate o) {
        for (int i = 0; i < sum.length; i++) {
            sum[i] += o.sum[i];
            sumSquares[i] += o.sumSquares[i];
            if (o.min[i] < min[i] || (o.min[i] == min[i] && o.minRank[i] < minRank[i])) {
                min[i] = o.min[i];
                minRank[i] = o.minRank[i];
            }
            if (o.max[i] > max[i] || (o.max[i] == max[i] && o.maxRank[i] < maxRank[i])) {
                max[i] = o.max[i];
                maxRank[i] = o.maxRank[i];
            }
        }
        for (int f = 0; f < minCall.length; f++) {
            minCall[f] = Math.min(minCall[f], o.minCall[f]);
            maxCall[f] = Math.max(maxCall[f], o.maxCall[f]);
        }
        for (int i = 0; i < histogram.length; i++) {
            histogram[i] += o.histogram[i];
        }
        for (int b = 0; b < blocks; b++) {
            blockApp[b] += o.blockApp[b];
            blockMpi[b] += o.blockMpi[b];
        }
        for (int i = 0; i < blockMessages.length; i++) {
            blockMessages[i] += o.blockMessages[i];
            blockBytes[i] += o.blockBytes[i];
        }
    }

    /** The per-rank quantity i over {@code n} contributing ranks. */
    Stat stat(int i, int n) {
        return Stat.fromMoments(sum[i], sumSquares[i], n, min[i], minRank[i], max[i], maxRank[i]);
    }

    /**
     * The profile's fixed-size part (rank rows and matrix rows are the caller's: in the job every
     * rank writes its own).
     *
     * @param contributors the number of ranks whose figures are in this aggregate
     */
    Profile toProfile(Snapshot rank0, int contributors, int hosts, boolean partial, List<String> reasons,
                      List<Profile.RankRow> rows, List<Profile.SparseRow> messages, List<Profile.SparseRow> bytes) {
        int n = Math.max(contributors, 1);
        List<FunctionProfile> functions = new ArrayList<>();
        long[] total = new long[Histogram.BUCKETS];
        for (int f = 0; f < names.length; f++) {
            long calls = Math.round(sum[f(f, F_CALLS)]);
            if (calls == 0) {
                continue;
            }
            long[] h = new long[Histogram.BUCKETS];
            for (int k = 0; k < Math.min(nbuckets, Histogram.BUCKETS); k++) {
                h[k] = histogram[f * nbuckets + k];
                total[k] += h[k];
            }
            functions.add(new FunctionProfile(names[f], calls, sum[f(f, F_TIME)], Math.round(sum[f(f, F_SENT)]),
                    Math.round(sum[f(f, F_RECV)]), minCall[f] >= NO_CALL ? 0 : minCall[f], maxCall[f],
                    new FunctionProfile.PerRank(stat(f(f, F_CALLS), n), stat(f(f, F_TIME), n),
                            stat(f(f, F_SENT), n), stat(f(f, F_RECV), n)),
                    trim(h), Math.round(sum[f(f, F_TIMED)]), Math.sqrt(sum[f(f, F_VAR)])));
        }
        functions.sort(MOST_TIME_FIRST);
        Profile.Summary summary = new Profile.Summary(stat(APP, n), stat(MPI, n), stat(PCT, n), stat(CALLS, n),
                stat(SENT, n), stat(RECV, n));
        long calls = Math.round(sum[CALLS]);
        Profile.Overhead overhead = new Profile.Overhead(calls > 0 ? sum[OVERHEAD] / calls * 1e9 : rank0.perCallNs(),
                calls, sum[OVERHEAD]);
        String start = rank0.initUnixNs() > 0
                ? UtcSeconds.format(rank0.initUnixNs() / 1_000_000_000L) : null;
        Job job = new Job(rank0.jobId().isEmpty() ? null : rank0.jobId(), rank0.executable(), rank0.impl(), hosts,
                start, max[APP], rank0.step().isEmpty() ? null : rank0.step());
        long[][] bm = new long[blocks][blocks];
        long[][] bb = new long[blocks][blocks];
        for (int i = 0; i < blocks; i++) {
            for (int j = 0; j < blocks; j++) {
                bm[i][j] = blockMessages[i * blocks + j];
                bb[i][j] = blockBytes[i * blocks + j];
            }
        }
        Profile.Blocks b = new Profile.Blocks(firstRanks(), blockApp.clone(), blockMpi.clone(), bm, bb);
        return new Profile(Profile.SCHEMA, partial, List.copyOf(reasons), job, ranks, summary, overhead,
                List.copyOf(functions), trim(total), b, rows, messages, bytes);
    }

    /**
     * A profile's order of functions: most time first, then by name. A class rather than
     * Comparator.comparingDouble(...).thenComparing(...): linking those method references costs a
     * fresh JVM, such as the launcher's after a job, ~5 ms.
     */
    private static final Comparator<FunctionProfile> MOST_TIME_FIRST = new Comparator<>() {
        @Override
        public int compare(FunctionProfile a, FunctionProfile b) {
            int c = Double.compare(b.timeSeconds(), a.timeSeconds());
            return c != 0 ? c : a.name().compareTo(b.name());
        }
    };

    private static long[] trim(long[] h) {
        int end = h.length;
        while (end > 0 && h[end - 1] == 0) {
            end--;
        }
        return java.util.Arrays.copyOf(h, end);
    }

    /** Rank r's row of the report. */
    static Profile.RankRow rankRow(Snapshot s) {
        double[] v = values(s);
        return new Profile.RankRow(s.rank(), s.host(), s.pid(), v[APP], v[MPI], s.calls(), s.partialReason());
    }

    /** Rank r's sparse matrix rows: messages and bytes. */
    static Profile.SparseRow[] matrixRows(Snapshot s) {
        int nz = 0;
        for (long m : s.messages()) {
            nz += m != 0 ? 1 : 0;
        }
        int[] peers = new int[nz];
        long[] msgs = new long[nz];
        long[] bytes = new long[nz];
        int k = 0;
        for (int p = 0; p < s.messages().length; p++) {
            if (s.messages()[p] != 0) {
                peers[k] = p;
                msgs[k] = s.messages()[p];
                bytes[k] = s.bytes()[p];
                k++;
            }
        }
        return new Profile.SparseRow[] {new Profile.SparseRow(peers, msgs), new Profile.SparseRow(peers, bytes)};
    }
}
