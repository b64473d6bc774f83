package io.jpmpi.profilers.report;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A job's profile: the in-memory form of {@code profile.json} (schema {@value #SCHEMA}, documented
 * in profilers/profile/PROFILE.md). Built by the profile level at MPI_Finalize, by merging the per-rank
 * dumps of a run that ended abnormally, or by reading a profile.json back.
 *
 * @param partial        true if some rank did not reach MPI_Finalize (or a flush was taken mid-run)
 * @param partialReasons one line per rank that ended early: "rank 3: MPI_Abort(1)", ...
 * @param ranks          the number of world ranks
 * @param summary        per-rank application time, MPI time, MPI %, calls and bytes across ranks
 * @param overhead       what the profiler itself cost
 * @param functions      every function called at least once on some rank, by total time, longest first
 * @param histogram      all functions' size histograms added up
 * @param blocks         the fixed-size per-rank views the plots use
 * @param rankRows       one row per world rank, in rank order
 * @param messages       sender-side matrix of messages: row r lists the world ranks r sent to
 * @param bytes          the same for bytes
 * @param details        what schemas jpmpi-profile-2 and -3 added (the run, the timer, per-rank functions;
 *                       the breakdown: jpmpi's own start and finalize, time by size, collectives' detail);
 *                       {@link ProfileDetails#NONE} when there is none of it
 * @param sites          what schema jpmpi-profile-3 added: the call sites, resolved; null when the
 *                       profile has none (sites off, or not merged yet)
 */
public record Profile(String schema, boolean partial, List<String> partialReasons, Job job, int ranks,
                      Summary summary, Overhead overhead, List<FunctionProfile> functions, long[] histogram,
                      Blocks blocks, List<RankRow> rankRows, List<SparseRow> messages, List<SparseRow> bytes,
                      ProfileDetails details, CallSites sites) {
    /** The schema written. */
    public static final String SCHEMA = "jpmpi-profile-3";
    /** The second schema, which is still read (it has no {@link ProfileBreakdown}, no {@link CallSites}). */
    public static final String SCHEMA_2 = "jpmpi-profile-2";
    /** The first schema, which is still read (it has no {@link ProfileDetails}). */
    public static final String SCHEMA_1 = "jpmpi-profile-1";

    public Profile {
        details = details == null ? ProfileDetails.NONE : details;
    }

    /** A profile without the details schema jpmpi-profile-2 added. */
    public Profile(String schema, boolean partial, List<String> partialReasons, Job job, int ranks, Summary summary,
                   Overhead overhead, List<FunctionProfile> functions, long[] histogram, Blocks blocks,
                   List<RankRow> rankRows, List<SparseRow> messages, List<SparseRow> bytes) {
        this(schema, partial, partialReasons, job, ranks, summary, overhead, functions, histogram, blocks, rankRows,
                messages, bytes, ProfileDetails.NONE, null);
    }

    /** A profile without the call sites schema jpmpi-profile-3 added. */
    public Profile(String schema, boolean partial, List<String> partialReasons, Job job, int ranks, Summary summary,
                   Overhead overhead, List<FunctionProfile> functions, long[] histogram, Blocks blocks,
                   List<RankRow> rankRows, List<SparseRow> messages, List<SparseRow> bytes, ProfileDetails details) {
        this(schema, partial, partialReasons, job, ranks, summary, overhead, functions, histogram, blocks, rankRows,
                messages, bytes, details, null);
    }

    /** This profile with {@code d} as its details. */
    public Profile withDetails(ProfileDetails d) {
        return new Profile(schema, partial, partialReasons, job, ranks, summary, overhead, functions, histogram,
                blocks, rankRows, messages, bytes, d, sites);
    }

    /** This profile with {@code s} as its call sites (null: none). */
    public Profile withSites(CallSites s) {
        return new Profile(schema, partial, partialReasons, job, ranks, summary, overhead, functions, histogram,
                blocks, rankRows, messages, bytes, details, s);
    }

    /** Equal components, arrays by content (a record's own equals compares arrays by identity). */
    @Override
    public boolean equals(Object o) {
        return o instanceof Profile p && Objects.equals(schema, p.schema) && partial == p.partial
                && Objects.equals(partialReasons, p.partialReasons) && Objects.equals(job, p.job) && ranks == p.ranks
                && Objects.equals(summary, p.summary) && Objects.equals(overhead, p.overhead)
                && Objects.equals(functions, p.functions) && Arrays.equals(histogram, p.histogram)
                && Objects.equals(blocks, p.blocks) && Objects.equals(rankRows, p.rankRows)
                && Objects.equals(messages, p.messages) && Objects.equals(bytes, p.bytes)
                && Objects.equals(details, p.details) && Objects.equals(sites, p.sites);
    }

    @Override
    public int hashCode() {
        return Objects.hash(schema, partial, partialReasons, job, ranks, summary, overhead, functions,
                Arrays.hashCode(histogram), blocks, rankRows, messages, bytes, details, sites);
    }

    @Override
    public String toString() {
        return "Profile[schema=" + schema + ", partial=" + partial + ", partialReasons=" + partialReasons + ", job="
                + job + ", ranks=" + ranks + ", summary=" + summary + ", overhead=" + overhead + ", functions="
                + functions + ", histogram=" + Arrays.toString(histogram) + ", blocks=" + blocks + ", rankRows="
                + rankRows + ", messages=" + messages + ", bytes=" + bytes + ", details=" + details + ", sites=" + sites + "]";
    }

    /** Per-rank figures summarised across ranks. */
    public record Summary(Stat appSeconds, Stat mpiSeconds, Stat mpiPercent, Stat calls, Stat bytesSent,
                          Stat bytesRecv) {
    }

    /**
     * The profiler's own cost: the measured cost of recording one call, the calls recorded (all
     * ranks) and their product in seconds (all ranks).
     */
    public record Overhead(double perCallNs, long calls, double totalSeconds) {
    }

    /**
     * Ranks grouped into {@code firstRank.length} contiguous blocks (one rank per block up to 64
     * ranks): block b holds ranks firstRank[b] .. firstRank[b+1]-1. appSeconds/mpiSeconds are sums
     * over the block's ranks; messages[b][c]/bytes[b][c] what block b's ranks sent to block c's.
     */
    public record Blocks(int[] firstRank, double[] appSeconds, double[] mpiSeconds, long[][] messages,
                         long[][] bytes) {
        /** The number of blocks. */
        public int count() {
            return firstRank.length;
        }

        /** The ranks of block b: firstRank[b] up to the next block's first rank (or {@code ranks}), exclusive. */
        public int size(int b, int ranks) {
            return (b + 1 < firstRank.length ? firstRank[b + 1] : ranks) - firstRank[b];
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Blocks b && Arrays.equals(firstRank, b.firstRank)
                    && Arrays.equals(appSeconds, b.appSeconds) && Arrays.equals(mpiSeconds, b.mpiSeconds)
                    && Arrays.deepEquals(messages, b.messages) && Arrays.deepEquals(bytes, b.bytes);
        }

        @Override
        public int hashCode() {
            return Objects.hash(Arrays.hashCode(firstRank), Arrays.hashCode(appSeconds), Arrays.hashCode(mpiSeconds),
                    Arrays.deepHashCode(messages), Arrays.deepHashCode(bytes));
        }

        @Override
        public String toString() {
            return "Blocks[firstRank=" + Arrays.toString(firstRank) + ", appSeconds=" + Arrays.toString(appSeconds)
                    + ", mpiSeconds=" + Arrays.toString(mpiSeconds) + ", messages=" + Arrays.deepToString(messages)
                    + ", bytes=" + Arrays.deepToString(bytes) + "]";
        }
    }

    /**
     * One rank: host name, process id, application and MPI time in seconds, calls recorded, and why
     * it ended early (null if it reached MPI_Finalize).
     */
    public record RankRow(int rank, String host, long pid, double appSeconds, double mpiSeconds, long calls,
                          String partial) {
    }

    /** One row of a sparse matrix: values[i] for world rank peers[i], peers ascending. */
    public record SparseRow(int[] peers, long[] values) {
        public static final SparseRow EMPTY = new SparseRow(new int[0], new long[0]);

        /** The value for {@code peer}, 0 if the row has none. */
        public long get(int peer) {
            int i = Arrays.binarySearch(peers, peer);
            return i < 0 ? 0 : values[i];
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SparseRow r && Arrays.equals(peers, r.peers) && Arrays.equals(values, r.values);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(peers) + Arrays.hashCode(values);
        }

        @Override
        public String toString() {
            return "SparseRow[peers=" + Arrays.toString(peers) + ", values=" + Arrays.toString(values) + "]";
        }
    }
}
