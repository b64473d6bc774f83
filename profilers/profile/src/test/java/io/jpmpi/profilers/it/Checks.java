package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.fail;

import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.profilers.profile.Snapshot;
import io.jpmpi.profilers.report.FunctionProfile;
import io.jpmpi.profilers.report.Histogram;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.Stat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntToLongFunction;

/**
 * Compares what the profile tool recorded with an {@link Expected}, exactly: every difference is
 * collected, and the test fails with all of them, followed by the run's command, stdout and stderr.
 */
final class Checks {
    private final Result run;
    private final List<String> diffs = new ArrayList<>();

    private Checks(Result run) {
        this.run = run;
    }

    static Checks of(Result run) {
        return new Checks(run);
    }

    /**
     * The run of `program` succeeded, printed "`program` rank R: ok" once for each rank, and
     * recorded exactly e: every rank's dump with the C level alone, profile.json with the Java level.
     */
    static void exactly(Result r, ProfileRun.Level level, String program, Expected e) {
        r.assertSuccess();
        for (int rank = 0; rank < e.ranks; rank++) {
            String line = program + " rank " + rank + ": ok";
            if (r.countOut(line) != 1) {
                fail("not once \"" + line + "\"\n" + r.describe());
            }
        }
        if (level == ProfileRun.Level.C) {
            of(r).snapshots(ProfileRun.snapshots(r, e.ranks), e, Snapshot.State.FINALIZE).done();
        } else {
            Profile p = ProfileRun.profile(r);
            of(r).profile(p, e).complete(p).done();
        }
    }

    /** Fails with every difference found so far. */
    void done() {
        if (!diffs.isEmpty()) {
            fail(diffs.size() + " difference(s) from the expected figures:\n  " + String.join("\n  ", diffs)
                    + "\n" + run.describe());
        }
    }

    void check(boolean ok, String what) {
        if (!ok) {
            diffs.add(what);
        }
    }

    void equal(long expected, long actual, String what) {
        if (expected != actual) {
            diffs.add(what + ": expected " + expected + ", got " + actual);
        }
    }

    void equal(Object expected, Object actual, String what) {
        if (!java.util.Objects.equals(expected, actual)) {
            diffs.add(what + ": expected " + expected + ", got " + actual);
        }
    }

    void equal(long[] expected, long[] actual, String what) {
        if (!Arrays.equals(expected, actual)) {
            diffs.add(what + ": expected " + Arrays.toString(expected) + ", got " + Arrays.toString(actual));
        }
    }

    // ------------------------------------------------------------------------------------------
    // One rank's dump

    /** Snapshot s (one rank's dump) holds exactly what e says of `rank`. */
    Checks snapshot(Snapshot s, Expected e, int rank, Snapshot.State state) {
        String at = "rank " + rank + " (" + state + " dump)";
        equal(rank, s.rank(), at + " world rank");
        equal(e.ranks, s.size(), at + " world size");
        equal(state, s.state(), at + " state");
        Set<String> seen = new HashSet<>();
        for (int f = 0; f < s.names().length; f++) {
            String fn = s.names()[f];
            seen.add(fn);
            long[] st = s.stats()[f];
            equal(e.get(fn, rank, Expected.CALLS), st[Snapshot.CALLS], at + " " + fn + " calls");
            equal(e.get(fn, rank, Expected.SENT), st[Snapshot.SENT], at + " " + fn + " bytes sent");
            equal(e.get(fn, rank, Expected.RECV), st[Snapshot.RECV], at + " " + fn + " bytes received");
            equal(e.histogram(fn, rank), s.histograms()[f], at + " " + fn + " histogram");
            if (st[Snapshot.CALLS] == 0) {
                check(st[Snapshot.TICKS] == 0 && st[Snapshot.MIN] == 0 && st[Snapshot.MAX] == 0,
                        at + " " + fn + " has time but no calls: " + Arrays.toString(st));
            } else {
                check(st[Snapshot.MIN] <= st[Snapshot.MAX] && st[Snapshot.MAX] <= st[Snapshot.TICKS],
                        at + " " + fn + " min <= max <= total ticks: " + Arrays.toString(st));
            }
        }
        for (String fn : e.functions()) {
            check(seen.contains(fn), at + ": " + fn + " is not among the recorded functions");
        }
        equal(e.messages[rank], s.messages(), at + " matrix messages (row " + rank + ")");
        equal(e.bytes[rank], s.bytes(), at + " matrix bytes (row " + rank + ")");
        return this;
    }

    /** Every rank's dump (all in the same state). */
    Checks snapshots(Snapshot[] s, Expected e, Snapshot.State state) {
        for (int r = 0; r < s.length; r++) {
            snapshot(s[r], e, r, state);
        }
        return this;
    }

    // ------------------------------------------------------------------------------------------
    // profile.json

    /** The whole-job profile (profile.json or merged dumps) holds exactly what e says. */
    Checks profile(Profile p, Expected e) {
        int n = e.ranks;
        equal(Profile.SCHEMA, p.schema(), "schema");
        equal(n, p.ranks(), "ranks");
        // functions: the set, then each one's sums, per-rank spread and histogram
        Set<String> names = new TreeSet<>();
        p.functions().forEach(f -> names.add(f.name()));
        equal(e.functions(), names, "functions[] names");
        long[] total = new long[Histogram.BUCKETS];
        for (FunctionProfile f : p.functions()) {
            String fn = "functions[" + f.name() + "]";
            equal(sum(n, r -> e.get(f.name(), r, Expected.CALLS)), f.calls(), fn + ".calls");
            equal(sum(n, r -> e.get(f.name(), r, Expected.SENT)), f.bytesSent(), fn + ".bytes_sent");
            equal(sum(n, r -> e.get(f.name(), r, Expected.RECV)), f.bytesRecv(), fn + ".bytes_recv");
            stat(f.perRank().calls(), e, r -> e.get(f.name(), r, Expected.CALLS), fn + ".per_rank.calls");
            stat(f.perRank().bytesSent(), e, r -> e.get(f.name(), r, Expected.SENT), fn + ".per_rank.bytes_sent");
            stat(f.perRank().bytesRecv(), e, r -> e.get(f.name(), r, Expected.RECV), fn + ".per_rank.bytes_recv");
            long[] h = e.histogram(f.name());
            equal(Expected.trim(h), f.histogram(), fn + ".histogram");
            for (int k = 0; k < h.length; k++) {
                total[k] += h[k];
            }
            check(f.timeSeconds() >= 0 && f.minCallSeconds() >= 0 && f.minCallSeconds() <= f.maxCallSeconds()
                    && f.maxCallSeconds() <= f.timeSeconds() + 1e-12, fn + " times: total " + f.timeSeconds()
                    + " min " + f.minCallSeconds() + " max " + f.maxCallSeconds());
            check(Math.abs(f.perRank().timeSeconds().sum() - f.timeSeconds()) <= 1e-9 + 1e-9 * f.timeSeconds(),
                    fn + ".per_rank.time_s.sum " + f.perRank().timeSeconds().sum() + " != time_s " + f.timeSeconds());
        }
        for (int i = 1; i < p.functions().size(); i++) {
            check(p.functions().get(i - 1).timeSeconds() >= p.functions().get(i).timeSeconds(),
                    "functions[] not by time_s, largest first, at " + p.functions().get(i).name());
        }
        equal(Expected.trim(total), p.histogram(), "histogram (all functions)");
        // summary and rank rows
        stat(p.summary().calls(), e, r -> e.rankTotal(r, Expected.CALLS), "summary.calls");
        stat(p.summary().bytesSent(), e, r -> e.rankTotal(r, Expected.SENT), "summary.bytes_sent");
        stat(p.summary().bytesRecv(), e, r -> e.rankTotal(r, Expected.RECV), "summary.bytes_recv");
        equal(sum(n, r -> e.rankTotal(r, Expected.CALLS)), p.overhead().calls(), "overhead.calls");
        equal(n, p.rankRows().size(), "rank_rows size");
        for (int r = 0; r < Math.min(n, p.rankRows().size()); r++) {
            Profile.RankRow row = p.rankRows().get(r);
            equal(r, row.rank(), "rank_rows[" + r + "].rank");
            equal(e.rankTotal(r, Expected.CALLS), row.calls(), "rank_rows[" + r + "].calls");
        }
        // matrix, sparse and in blocks
        equal(n, p.messages().size(), "matrix.messages rows");
        equal(n, p.bytes().size(), "matrix.bytes rows");
        for (int r = 0; r < Math.min(n, Math.min(p.messages().size(), p.bytes().size())); r++) {
            equal(e.messages[r], dense(p.messages().get(r), n), "matrix.messages[" + r + "]");
            equal(e.bytes[r], dense(p.bytes().get(r), n), "matrix.bytes[" + r + "]");
        }
        if (n <= 64) {
            int[] first = new int[n];
            Arrays.setAll(first, i -> i);
            check(Arrays.equals(first, p.blocks().firstRank()), "blocks.first_rank: "
                    + Arrays.toString(p.blocks().firstRank()));
            equal(Arrays.deepToString(e.messages), Arrays.deepToString(p.blocks().messages()), "blocks.messages");
            equal(Arrays.deepToString(e.bytes), Arrays.deepToString(p.blocks().bytes()), "blocks.bytes");
        }
        return this;
    }

    /** A profile of a run that reached MPI_Finalize everywhere. */
    Checks complete(Profile p) {
        check(!p.partial(), "partial is true: " + p.partialReasons());
        equal(List.of(), p.partialReasons(), "partial_reasons");
        for (Profile.RankRow row : p.rankRows()) {
            equal(null, row.partial(), "rank_rows[" + row.rank() + "].partial");
        }
        return this;
    }

    /** s summarises value(r) over the ranks with figures (e.present). */
    private void stat(Stat s, Expected e, IntToLongFunction value, String what) {
        double sum = 0;
        double squares = 0;
        int count = 0;
        int minRank = -1;
        int maxRank = -1;
        double[] v = new double[e.ranks];
        for (int r = 0; r < e.ranks; r++) {
            v[r] = value.applyAsLong(r);
            if (!e.present[r]) {
                continue;
            }
            count++;
            sum += v[r];
            squares += v[r] * v[r];
            if (minRank < 0 || v[r] < v[minRank]) {
                minRank = r;
            }
            if (maxRank < 0 || v[r] > v[maxRank]) {
                maxRank = r;
            }
        }
        Stat want = count == 0 ? Stat.ZERO
                : Stat.fromMoments(sum, squares, count, v[minRank], minRank, v[maxRank], maxRank);
        if (s.sum() != want.sum() || s.min() != want.min() || s.minRank() != want.minRank() || s.max() != want.max()
                || s.maxRank() != want.maxRank() || Math.abs(s.avg() - want.avg()) > 1e-9 * Math.max(1, want.avg())
                || Math.abs(s.cv() - want.cv()) > 1e-9) {
            diffs.add(what + ": expected " + want + " (per rank " + Arrays.toString(v) + ", with figures "
                    + Arrays.toString(e.present) + "), got " + s);
        }
    }

    private static long sum(int n, IntToLongFunction f) {
        long s = 0;
        for (int r = 0; r < n; r++) {
            s += f.applyAsLong(r);
        }
        return s;
    }

    private static long[] dense(Profile.SparseRow row, int n) {
        long[] d = new long[n];
        for (int i = 0; i < row.peers().length; i++) {
            int peer = row.peers()[i];
            if (peer < 0 || peer >= n) {
                return new long[] {-1, peer};
            }
            d[peer] += row.values()[i];
        }
        return d;
    }
}
