package io.jpmpi.profilers.report;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * Whether a profile's figures agree with each other: what the reader of profile.json checks once
 * every value is known to be well-formed, and what a merge of rank dumps checks before it writes
 * one, so that a merge never writes a file the reader refuses. Sums are compared within a relative
 * {@value #TOLERANCE} (they are added up in other orders on the way).
 * <ul>
 * <li>every summary: min &lt;= avg &lt;= max &lt;= sum; one rank's times at most {@link ProfileJson#MAX_SECONDS};</li>
 * <li>the summary's calls, MPI time and bytes are the functions' sums; the overhead's calls are the
 * summary's, its total their product with the cost per call;</li>
 * <li>per function: its per-rank sums are its totals, the shortest call no longer than the longest,
 * the mean call no longer than the longest (unless the time is sampled), no error of the time
 * unless it is sampled, no more calls in its size buckets than calls, no
 * figures without calls; the job's size buckets are the functions' sums;</li>
 * <li>blocks and rank rows add up to the summary, no rank above the summary's largest value, the
 * ranks the summary names hold its smallest and largest values; the block matrix adds up to the
 * rank matrix;</li>
 * <li>the job: a start time in ISO-8601, no more hosts than ranks, no rank longer than the wall
 * time; reasons only for a partial profile.</li>
 * </ul>
 */
public final class ProfileCheck {
    /** The relative difference allowed between two figures that should be equal. */
    static final double TOLERANCE = 1e-6;

    private ProfileCheck() {
    }

    /** Figures that disagree: {@link #path} names the value in profile.json terms ("functions[3].min_call_s"). */
    public static final class Inconsistency extends Exception {
        private static final long serialVersionUID = 1L;
        private final String path;

        Inconsistency(String path, String why) {
            super("\"" + path + "\" " + why);
            this.path = path;
        }

        /** Where the value is, as a path of keys and indexes. */
        public String path() {
            return path;
        }
    }

    /** Checks {@code p}; the first disagreement is an {@link Inconsistency}. */
    public static void check(Profile p) throws Inconsistency {
        job(p);
        summary(p.summary());
        for (int i = 0; i < p.functions().size(); i++) {
            function("functions[" + i + "]", p.functions().get(i));
        }
        totals(p);
        histogram(p);
        blocks(p);
        rows(p);
        rankFunctions(p);
        breakdown(p);
    }

    /**
     * Schema 3's breakdown: jpmpi's own start and finalize summaries as any other; each function of
     * "function_detail" one the profile lists, its time by size and by communicator size no more than
     * its time, its calls by communicator size no more than its calls, at most 48 size buckets.
     */
    private static void breakdown(Profile p) throws Inconsistency {
        ProfileBreakdown b = p.details().breakdown();
        if (b == null) {
            return;
        }
        if (b.cost() != null) {
            stat("overhead.start_s", b.cost().startSeconds());
            stat("overhead.finalize_s", b.cost().finalizeSeconds());
        }
        java.util.Map<String, FunctionProfile> byName = new java.util.HashMap<>();
        for (FunctionProfile f : p.functions()) {
            byName.put(f.name(), f);
        }
        for (int i = 0; i < b.functions().size(); i++) {
            ProfileBreakdown.FunctionDetail d = b.functions().get(i);
            String path = "function_detail[" + i + "]";
            FunctionProfile f = byName.get(d.name());
            if (f == null) {
                throw new Inconsistency(path + ".name", "is \"" + d.name() + "\", a function \"functions\" does not list");
            }
            atMost(path + ".time_by_size_s", sum(d.timeBySize()), "the function's \"time_s\"", f.timeSeconds());
            atMost(path + ".time_by_comm_size_s", sum(d.timeByComm()), "the function's \"time_s\"", f.timeSeconds());
            atMost(path + ".calls_by_comm_size", sum(d.callsByComm()), "the function's \"calls\"", f.calls());
        }
    }

    /**
     * Schema 2's per-rank functions: one row per rank, only functions the profile lists, called at
     * least once, adding up over ranks to each function's totals.
     */
    private static void rankFunctions(Profile p) throws Inconsistency {
        List<ProfileDetails.RankFunctions> rows = p.details().rankFunctions();
        if (rows == null) {
            return;
        }
        if (rows.size() != p.ranks()) {
            throw new Inconsistency("rank_functions", "has " + rows.size() + " rows, \"ranks\" is " + p.ranks());
        }
        java.util.Map<String, double[]> sums = new java.util.HashMap<>();
        for (FunctionProfile f : p.functions()) {
            sums.put(f.name(), new double[4]);
        }
        for (int r = 0; r < rows.size(); r++) {
            for (ProfileDetails.Entry e : rows.get(r).functions()) {
                String path = "rank_functions[" + r + "]." + ProfileJsonReader.clip(e.name(), 60);
                double[] s = sums.get(e.name());
                if (s == null) {
                    throw new Inconsistency(path, "is no function of \"functions\"");
                }
                if (e.calls() == 0) {
                    throw new Inconsistency(path, "has no calls (a rank lists only the functions it called)");
                }
                atMost(path + "[1]", e.timeSeconds(), "the longest time allowed", ProfileJson.MAX_SECONDS);
                s[0] += e.calls();
                s[1] += e.timeSeconds();
                s[2] += e.bytesSent();
                s[3] += e.bytesRecv();
            }
        }
        for (FunctionProfile f : p.functions()) {
            double[] s = sums.get(f.name());
            String path = "rank_functions[*]." + ProfileJsonReader.clip(f.name(), 60);
            same(path + "[0] summed over ranks", s[0], "the function's calls", f.calls());
            same(path + "[1] summed over ranks", s[1], "the function's time_s", f.timeSeconds());
            same(path + "[2] summed over ranks", s[2], "the function's bytes_sent", f.bytesSent());
            same(path + "[3] summed over ranks", s[3], "the function's bytes_recv", f.bytesRecv());
        }
    }

    private static void job(Profile p) throws Inconsistency {
        Job job = p.job();
        if (job.start() != null && !UtcSeconds.isUtcSeconds(job.start())) {
            try {
                Instant.parse(job.start());
            } catch (DateTimeParseException e) {
                throw new Inconsistency("job.start", "is \"" + ProfileJsonReader.clip(job.start(), 40)
                        + "\", not an ISO-8601 time (2026-11-21T10:00:00Z)");
            }
        }
        if (job.hosts() > p.ranks()) {
            throw new Inconsistency("job.hosts", "is " + job.hosts() + ", more than the " + p.ranks() + " ranks");
        }
        atMost("job.wall_s", job.wallSeconds(), "the longest time allowed", ProfileJson.MAX_SECONDS);
        atMost("summary.app_s.max", p.summary().appSeconds().max(), "\"job.wall_s\"", job.wallSeconds());
        if (!p.partial() && !p.partialReasons().isEmpty()) {
            throw new Inconsistency("partial_reasons", "lists reasons, but \"partial\" is false");
        }
    }

    private static void summary(Profile.Summary s) throws Inconsistency {
        stat("summary.app_s", s.appSeconds());
        stat("summary.mpi_s", s.mpiSeconds());
        stat("summary.mpi_pct", s.mpiPercent());
        stat("summary.calls", s.calls());
        stat("summary.bytes_sent", s.bytesSent());
        stat("summary.bytes_recv", s.bytesRecv());
        atMost("summary.app_s.max", s.appSeconds().max(), "the longest time allowed", ProfileJson.MAX_SECONDS);
    }

    /** One per-rank quantity: min &lt;= avg &lt;= max &lt;= sum (the values are not negative). */
    private static void stat(String path, Stat s) throws Inconsistency {
        atMost(path + ".min", s.min(), "\"avg\"", s.avg());
        atMost(path + ".avg", s.avg(), "\"max\"", s.max());
        atMost(path + ".max", s.max(), "\"sum\"", s.sum());
    }

    private static void function(String path, FunctionProfile f) throws Inconsistency {
        FunctionProfile.PerRank r = f.perRank();
        stat(path + ".per_rank.calls", r.calls());
        stat(path + ".per_rank.time_s", r.timeSeconds());
        stat(path + ".per_rank.bytes_sent", r.bytesSent());
        stat(path + ".per_rank.bytes_recv", r.bytesRecv());
        same(path + ".per_rank.calls.sum", r.calls().sum(), quote(path + ".calls"), f.calls());
        same(path + ".per_rank.time_s.sum", r.timeSeconds().sum(), quote(path + ".time_s"), f.timeSeconds());
        same(path + ".per_rank.bytes_sent.sum", r.bytesSent().sum(), quote(path + ".bytes_sent"), f.bytesSent());
        same(path + ".per_rank.bytes_recv.sum", r.bytesRecv().sum(), quote(path + ".bytes_recv"), f.bytesRecv());
        atMost(path + ".per_rank.time_s.max", r.timeSeconds().max(), "the longest time allowed",
                ProfileJson.MAX_SECONDS);
        atMost(path + ".min_call_s", f.minCallSeconds(), "\"max_call_s\"", f.maxCallSeconds());
        atMost(path + ".max_call_s", f.maxCallSeconds(), "the longest time allowed", ProfileJson.MAX_SECONDS);
        if (f.calls() == 0) {
            same(path + ".time_s", f.timeSeconds() + f.maxCallSeconds() + f.bytesSent() + f.bytesRecv(),
                    "no time, calls or bytes without calls", 0);
        } else if (!f.sampled()) { // a sampled time is an estimate: its mean may pass the longest timed call
            atMost(path + ".time_s", f.timeSeconds() / f.calls(), "per call, \"max_call_s\"", f.maxCallSeconds());
        }
        atMost(path + ".time_error_s", f.timeErrorSeconds(), "the longest time allowed", ProfileJson.MAX_SECONDS);
        if (!f.sampled()) {
            same(path + ".time_error_s", f.timeErrorSeconds(), "none with every call timed", 0);
        }
        atMost(path + ".histogram", sum(f.histogram()), "calls in all, \"calls\"", f.calls());
    }

    /** The summary and the overhead against the functions' sums. */
    private static void totals(Profile p) throws Inconsistency {
        double calls = 0;
        double time = 0;
        double sent = 0;
        double recv = 0;
        for (FunctionProfile f : p.functions()) {
            calls += f.calls();
            time += f.timeSeconds();
            sent += f.bytesSent();
            recv += f.bytesRecv();
        }
        Profile.Summary s = p.summary();
        same("summary.calls.sum", s.calls().sum(), "the functions' calls added up", calls);
        same("summary.mpi_s.sum", s.mpiSeconds().sum(), "the functions' time_s added up", time);
        same("summary.bytes_sent.sum", s.bytesSent().sum(), "the functions' bytes_sent added up", sent);
        same("summary.bytes_recv.sum", s.bytesRecv().sum(), "the functions' bytes_recv added up", recv);
        Profile.Overhead o = p.overhead();
        same("overhead.calls", o.calls(), "\"summary.calls.sum\"", s.calls().sum());
        atMost("overhead.per_call_ns", o.perCallNs(), "the largest cost allowed", ProfileJson.MAX_PER_CALL_NS);
        same("overhead.total_s", o.totalSeconds(), "\"per_call_ns\" x \"calls\"", o.perCallNs() * 1e-9 * o.calls());
    }

    private static void histogram(Profile p) throws Inconsistency {
        int n = p.histogram().length;
        for (FunctionProfile f : p.functions()) {
            n = Math.max(n, f.histogram().length);
        }
        for (int k = 0; k < n; k++) {
            double sum = 0;
            for (FunctionProfile f : p.functions()) {
                sum += k < f.histogram().length ? f.histogram()[k] : 0;
            }
            same("histogram[" + k + "]", k < p.histogram().length ? p.histogram()[k] : 0,
                    "the functions' histogram[" + k + "] added up", sum);
        }
    }

    private static void blocks(Profile p) throws Inconsistency {
        Profile.Blocks b = p.blocks();
        Profile.Summary s = p.summary();
        for (int k = 0; k < b.count(); k++) {
            int size = b.size(k, p.ranks());
            atMost("blocks.app_s[" + k + "]", b.appSeconds()[k], size + " x \"summary.app_s.max\"",
                    size * s.appSeconds().max());
            atMost("blocks.mpi_s[" + k + "]", b.mpiSeconds()[k], size + " x \"summary.mpi_s.max\"",
                    size * s.mpiSeconds().max());
        }
        same("blocks.app_s", sum(b.appSeconds()), "\"summary.app_s.sum\"", s.appSeconds().sum());
        same("blocks.mpi_s", sum(b.mpiSeconds()), "\"summary.mpi_s.sum\"", s.mpiSeconds().sum());
        if (!p.messages().isEmpty()) {
            same("blocks.messages", sum(b.messages()), "the rank matrix's messages added up", sum(p.messages()));
            same("blocks.bytes", sum(b.bytes()), "the rank matrix's bytes added up", sum(p.bytes()));
        }
    }

    private static void rows(Profile p) throws Inconsistency {
        List<Profile.RankRow> rows = p.rankRows();
        if (rows.isEmpty()) {
            return;
        }
        double[] app = new double[rows.size()];
        double[] mpi = new double[rows.size()];
        double[] calls = new double[rows.size()];
        for (int r = 0; r < rows.size(); r++) {
            Profile.RankRow row = rows.get(r);
            if (row.partial() != null && !p.partial()) {
                throw new Inconsistency("rank_rows[" + r + "].partial", "gives a reason, but \"partial\" is false");
            }
            app[r] = row.appSeconds();
            mpi[r] = row.mpiSeconds();
            calls[r] = row.calls();
        }
        column("rank_rows", "app_s", app, "summary.app_s", p.summary().appSeconds());
        column("rank_rows", "mpi_s", mpi, "summary.mpi_s", p.summary().mpiSeconds());
        column("rank_rows", "calls", calls, "summary.calls", p.summary().calls());
    }

    /** One figure of every rank row against the summary of it. */
    private static void column(String path, String key, double[] v, String statPath, Stat s) throws Inconsistency {
        for (int r = 0; r < v.length; r++) {
            atMost(path + "[" + r + "]." + key, v[r], "\"" + statPath + ".max\"", s.max());
        }
        same(statPath + ".sum", s.sum(), "the rows' " + key + " added up", sum(v));
        same(path + "[" + s.maxRank() + "]." + key, v[s.maxRank()], quote(statPath + ".max"), s.max());
        same(path + "[" + s.minRank() + "]." + key, v[s.minRank()], quote(statPath + ".min"), s.min());
    }

    // --- comparisons ----------------------------------------------------------------------------

    private static boolean close(double a, double b) {
        return Math.abs(a - b) <= TOLERANCE * Math.max(Math.abs(a), Math.abs(b)) + 1e-300;
    }

    /** {@code value} (at {@code path}) must equal {@code other} (described by {@code what}). */
    private static void same(String path, double value, String what, double other) throws Inconsistency {
        if (!close(value, other)) {
            throw new Inconsistency(path, "is " + value + ", not " + other + " (" + what + ")");
        }
    }

    /** {@code value} (at {@code path}) must not be above {@code limit} (named {@code what}). */
    private static void atMost(String path, double value, String what, double limit) throws Inconsistency {
        if (value > limit && !close(value, limit)) {
            throw new Inconsistency(path, "is " + value + ", more than " + what + " (" + limit + ")");
        }
    }

    private static String quote(String path) {
        return "\"" + path + "\"";
    }

    private static double sum(double[] v) {
        double s = 0;
        for (double x : v) {
            s += x;
        }
        return s;
    }

    private static double sum(long[] v) {
        double s = 0;
        for (long x : v) {
            s += x;
        }
        return s;
    }

    private static double sum(long[][] m) {
        double s = 0;
        for (long[] row : m) {
            s += sum(row);
        }
        return s;
    }

    private static double sum(List<Profile.SparseRow> rows) {
        double s = 0;
        for (Profile.SparseRow row : rows) {
            s += sum(row.values());
        }
        return s;
    }
}
