package io.jpmpi.profilers.profile;

import io.jpmpi.profilers.report.FunctionProfile;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileBreakdown;
import io.jpmpi.profilers.report.Stat;
import io.jpmpi.profilers.report.ProfileCheck;
import io.jpmpi.profilers.report.InputFile;
import io.jpmpi.profilers.report.ProfileDetails;
import io.jpmpi.profilers.report.ProfileFormatException;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.profilers.report.UtcSeconds;
import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A profile from the per-rank dumps {@code DIR/ranks/rank-R.bin} the recorder writes when a rank
 * ends without the Java level writing profile.json (MPI_Abort, exit without MPI_Finalize, a
 * signal, no Java level in the entry list) or on {@code MPI_Pcontrol(2)}. Ranks that left no dump
 * are listed as missing; any rank that did not reach MPI_Finalize makes the profile partial.
 */
public final class RankDumps {
    /** A dump's name: its rank without leading zeros, below {@link ProfileJson#MAX_RANKS}. */
    private static final Pattern NAME = Pattern.compile("rank-(0|[1-9][0-9]{0,6})\\.bin");
    /** At most this many partial reasons are listed one by one. */
    static final int MAX_REASONS = 20;

    /** Rank 0's command line and settings (rec_snapshot.c writes it beside its first dump). */
    static final String RUN = "run-0.txt";
    /** Rank 0's whole finalize time (rec_snapshot.c writes it after the other ranks' dumps). */
    static final String FINALIZE = "finalize-0.txt";
    /** The largest run-0.txt read (the recorder writes at most 32 KiB). */
    private static final long MAX_RUN_BYTES = 64 * 1024;

    private RankDumps() {
    }

    /**
     * What rank 0 knew of the run (ranks/run-0.txt: records "a" + a word of its command line and
     * "e" + NAME=value of a JPMPI_* setting, each ended by a NUL), or null without the file; records
     * of another kind are left out. The output directory is {@code dir}; the wall time is not known (0).
     */
    static ProfileDetails.Run run(Path file, Path dir) throws IOException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        InputFile.check(file, "rank 0's run record", MAX_RUN_BYTES);
        String text = new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.UTF_8);
        List<String> command = new ArrayList<>();
        Map<String, String> settings = new TreeMap<>();
        for (String record : text.split("\0")) {
            if (record.startsWith("a")) {
                command.add(record.substring(1));
            } else if (record.startsWith("e") && record.indexOf('=') > 1) {
                settings.put(record.substring(1, record.indexOf('=')), record.substring(record.indexOf('=') + 1));
            }
        }
        return new ProfileDetails.Run(ProfileDetails.FROM_RANK_0, command,
                settings.getOrDefault("JPMPI_TOOLS_ENTRY", ""), dir.toAbsolutePath().normalize().toString(), 0,
                settings);
    }

    /** Whether dir has rank dumps to merge (or a ranks folder that cannot be listed: merge says why). */
    public static boolean present(Path dir) {
        Path ranks = dir.resolve("ranks");
        if (!Files.isDirectory(ranks)) {
            return false;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(ranks, "rank-*.bin")) {
            return ds.iterator().hasNext();
        } catch (IOException | DirectoryIteratorException e) {
            return true;
        }
    }

    /**
     * Whether rank 0 has written every rank's figures of a job that ended with MPI_Finalize: its own
     * dump says FINALIZE and the world size N, and the dumps of ranks 0 to N-1 are all there and, for
     * N > 1, so is finalize-0.txt, which rank 0 writes after the last of them (rec_snapshot.c,
     * jp_gather_dumps). The launcher asks this while the job's launcher is still taking the job down,
     * to merge meanwhile; false for anything else (no dumps, a dump that does not read, another state,
     * a rank missing). finalize-0.txt is looked at first: it is the last file, and this is asked again
     * as each dump comes.
     */
    public static boolean finished(Path dir) {
        Path ranks = dir.resolve("ranks");
        boolean last = Files.isRegularFile(ranks.resolve(FINALIZE), LinkOption.NOFOLLOW_LINKS);
        Snapshot.Head h;
        try {
            h = Snapshot.head(ranks.resolve("rank-0.bin"));
        } catch (IOException e) {
            return false;
        }
        if (h.rank() != 0 || h.state() != Snapshot.State.FINALIZE || (h.size() > 1) != last) {
            return false;
        }
        for (int r = 1; r < h.size(); r++) {
            if (!Files.isRegularFile(ranks.resolve("rank-" + r + ".bin"), LinkOption.NOFOLLOW_LINKS)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The job rank 0's dump in {@code dir} is of (its header alone), as a profile made of it names the
     * job ({@link io.jpmpi.profilers.report.Job}'s id, executable and start); empty without one to read.
     */
    public static Optional<Job> job(Path dir) {
        Snapshot.Head h;
        try {
            h = Snapshot.head(dir.resolve("ranks").resolve("rank-0.bin"));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        return Optional.of(new Job(h.job().isEmpty() ? null : h.job(), h.executable(),
                h.initUnixNs() > 0 ? UtcSeconds.format(h.initUnixNs() / 1_000_000_000L) : null));
    }

    /** Which job a profile or a dump is of: the job id (null if none), the executable, the start (UTC, seconds). */
    public record Job(String id, String executable, String start) {
        /** The job {@code p} is of. */
        public static Job of(Profile p) {
            return new Job(p.job().id(), p.job().executable(), p.job().start());
        }
    }

    /** The world size rank 0's dump in {@code dir} says (its header alone), or -1 without one to read. */
    public static int worldSize(Path dir) {
        try {
            return Snapshot.head(dir.resolve("ranks").resolve("rank-0.bin")).size();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Removes the dumps {@code dir/ranks/rank-R.bin} once a complete profile.json holds what they
     * held (the launcher, after merging them), and the ranks folder if nothing else is left in it.
     */
    public static void remove(Path dir) throws IOException {
        Path ranksDir = dir.resolve("ranks");
        if (!Files.isDirectory(ranksDir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        for (Path p : files(ranksDir).values()) {
            Files.deleteIfExists(p);
        }
        Files.deleteIfExists(ranksDir.resolve(RUN));
        Files.deleteIfExists(ranksDir.resolve(FINALIZE));
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(ranksDir)) {
            if (ds.iterator().hasNext()) {
                return;
            }
        }
        Files.deleteIfExists(ranksDir);
    }

    /**
     * The profile the dumps in {@code dir/ranks} make. Every dump is checked ({@link Snapshot#read}),
     * and so are they together: named after the rank they hold, of one job (world size, functions,
     * size buckets), sums that fit 64 bits; a file named {@code rank-*.bin} that is not
     * {@code rank-<R>.bin} is refused, not left out. The dumps of ranks at or above the world size
     * rank 0's dump says are left out: no rank of its job wrote them. The profile is checked as the reader of
     * profile.json checks one ({@link ProfileCheck}) before it is returned.
     */
    public static Profile merge(Path dir) throws IOException {
        Path ranksDir = dir.resolve("ranks");
        TreeMap<Integer, Path> files = files(ranksDir);
        if (files.isEmpty()) {
            throw new IOException("no profile.json and no rank dumps (ranks/rank-<R>.bin) in " + dir);
        }
        List<Snapshot> snaps = new ArrayList<>();
        List<Path> paths = new ArrayList<>();
        for (Map.Entry<Integer, Path> e : files.entrySet()) {
            // (in rank order) the dumps of ranks a job of rank 0's world size does not have: an earlier,
            // larger job's in the same directory (by hand: jpmpi run moves an earlier job's results aside)
            if (!snaps.isEmpty() && snaps.getFirst().rank() == 0 && e.getKey() >= snaps.getFirst().size()) {
                break;
            }
            paths.add(e.getValue());
            Snapshot s = Snapshot.read(e.getValue());
            if (s.rank() != e.getKey()) {
                throw new ProfileFormatException(e.getValue() + ": holds the figures of rank " + s.rank()
                        + ", not of rank " + e.getKey() + " (its name)");
            }
            sameJob(paths.getFirst(), snaps.isEmpty() ? s : snaps.getFirst(), e.getValue(), s);
            snaps.add(s);
        }
        checkSums(snaps, paths);
        Profile p = profile(snaps, rank0Finalize(ranksDir.resolve(FINALIZE)));
        ProfileDetails.Run run = run(ranksDir.resolve(RUN), dir);
        if (run != null) {
            p = p.withDetails(p.details().withRun(run));
        }
        try {
            ProfileCheck.check(p);
        } catch (ProfileCheck.Inconsistency e) {
            throw new ProfileFormatException(ranksDir + ": the dumps make an inconsistent profile: " + e.getMessage());
        }
        return p;
    }

    /** Dumps of one job: the same world size, the same functions in the same order, the same size buckets. */
    private static void sameJob(Path firstFile, Snapshot first, Path file, Snapshot s) throws ProfileFormatException {
        String why = s.size() != first.size() ? "rank " + s.rank() + " of " + s.size() + " ranks, " + firstFile
                + " of " + first.size()
                : !Arrays.equals(s.names(), first.names()) ? "other functions than " + firstFile
                : s.histograms()[0].length != first.histograms()[0].length ? "other size buckets than " + firstFile
                : null;
        if (why != null) {
            throw new ProfileFormatException(file + ": " + why + " (dumps of different jobs or jpmpi versions?)");
        }
    }

    /** The job's figures kept as 64-bit integers must fit: per function calls and bytes, all calls, the matrix. */
    private static void checkSums(List<Snapshot> snaps, List<Path> paths) throws ProfileFormatException {
        String[] names = snaps.getFirst().names();
        int n = names.length;
        long[] sums = new long[3 * n + 3];
        for (int i = 0; i < snaps.size(); i++) {
            Snapshot s = snaps.get(i);
            long[] v = new long[sums.length];
            for (int f = 0; f < n; f++) {
                v[3 * f] = s.stats()[f][Snapshot.CALLS];
                v[3 * f + 1] = s.stats()[f][Snapshot.SENT];
                v[3 * f + 2] = s.stats()[f][Snapshot.RECV];
            }
            v[3 * n] = s.calls();
            v[3 * n + 1] = Arrays.stream(s.messages()).sum();
            v[3 * n + 2] = Arrays.stream(s.bytes()).sum();
            for (int k = 0; k < sums.length; k++) {
                try {
                    sums[k] = Math.addExact(sums[k], v[k]);
                } catch (ArithmeticException e) {
                    String what = k < 3 * n ? names[k / 3] + (k % 3 == 0 ? " calls" : k % 3 == 1 ? " bytes sent"
                            : " bytes received") : k == 3 * n ? "calls" : k == 3 * n + 1 ? "messages" : "bytes sent";
                    throw new ProfileFormatException(paths.get(i) + ": with it, the ranks' " + what
                            + " add up to more than 2^63-1");
                }
            }
        }
    }

    private static Profile profile(List<Snapshot> snaps, double rank0Finalize) {
        Snapshot first = snaps.getFirst();
        int ranks = first.size();
        Aggregate total = null;
        List<String> reasons = new ArrayList<>();
        Set<String> hosts = new HashSet<>();
        Profile.RankRow[] rows = new Profile.RankRow[ranks];
        Profile.SparseRow[] messages = new Profile.SparseRow[ranks];
        Profile.SparseRow[] bytes = new Profile.SparseRow[ranks];
        ProfileDetails.RankFunctions[] perRank = new ProfileDetails.RankFunctions[ranks];
        boolean partial = false;
        for (Snapshot s : snaps) {
            Aggregate a = Aggregate.of(s, ranks);
            if (total == null) {
                total = a;
            } else {
                total.add(a);
            }
            hosts.add(s.host());
            rows[s.rank()] = Aggregate.rankRow(s);
            Profile.SparseRow[] m = Aggregate.matrixRows(s);
            messages[s.rank()] = m[0];
            bytes[s.rank()] = m[1];
            perRank[s.rank()] = rankFunctions(s);
            if (s.partialReason() != null) {
                partial = true;
                reasons.add("rank " + s.rank() + ": " + s.partialReason());
            }
        }
        for (int r = 0; r < ranks; r++) {
            if (rows[r] == null) {
                partial = true;
                reasons.add("rank " + r + ": no figures (no dump)");
                rows[r] = new Profile.RankRow(r, "", 0, 0, 0, 0, "no figures (no dump)");
                messages[r] = Profile.SparseRow.EMPTY;
                bytes[r] = Profile.SparseRow.EMPTY;
                perRank[r] = new ProfileDetails.RankFunctions(List.of());
            }
        }
        if (reasons.size() > MAX_REASONS) {
            int more = reasons.size() - MAX_REASONS;
            reasons.subList(MAX_REASONS, reasons.size()).clear();
            reasons.add("... and " + more + " more ranks");
        }
        Snapshot rank0 = snaps.stream().filter(s -> s.rank() == 0).findFirst().orElse(first);
        Profile p = total.toProfile(rank0, snaps.size(), hosts.size(), partial, reasons, List.of(rows),
                List.of(messages), List.of(bytes));
        return p.withDetails(new ProfileDetails(null, rank0.timerSeconds(), List.of(perRank),
                breakdown(snaps, ranks, p, rank0Finalize)));
    }

    /**
     * Schema 3's breakdown from the dumps of version 3 (null if none is): every rank's own start and
     * finalize (a rank without such a dump counts 0), rank 0's whole finalize from
     * {@code ranks/finalize-0.txt} (0: not there), and per function of {@code p} the detail summed over
     * ranks, in the order of {@code p}'s functions.
     */
    static ProfileBreakdown breakdown(List<Snapshot> snaps, int ranks, Profile p, double rank0Finalize) {
        if (snaps.stream().allMatch(s -> s.breakdown() == null)) {
            return null;
        }
        double[] start = new double[ranks];
        double[] fin = new double[ranks];
        Map<String, double[]> sizeSeconds = new HashMap<>();
        Map<String, long[]> commCalls = new HashMap<>();
        Map<String, double[]> commSeconds = new HashMap<>();
        Map<String, long[]> buffer = new HashMap<>();
        for (Snapshot s : snaps) {
            Snapshot.Breakdown d = s.breakdown();
            if (d == null) {
                continue;
            }
            start[s.rank()] = s.seconds(d.startTicks());
            fin[s.rank()] = s.seconds(d.finalizeTicks());
            for (int f = 0; f < s.names().length; f++) {
                if (s.stats()[f][Snapshot.CALLS] == 0) {
                    continue;
                }
                String name = s.names()[f];
                double[] ss = sizeSeconds.computeIfAbsent(name, k -> new double[d.sizeTicks()[0].length]);
                for (int k = 0; k < ss.length; k++) {
                    ss[k] += s.seconds(d.sizeTicks()[f][k]);
                }
                long[] cc = commCalls.computeIfAbsent(name, k -> new long[Snapshot.COMM_BUCKETS]);
                double[] cs = commSeconds.computeIfAbsent(name, k -> new double[Snapshot.COMM_BUCKETS]);
                for (int k = 0; k < Snapshot.COMM_BUCKETS; k++) {
                    cc[k] += d.commCalls()[f][k];
                    cs[k] += s.seconds(d.commTicks()[f][k]);
                }
                buffer.computeIfAbsent(name, k -> new long[1])[0] += d.bufferBytes()[f];
            }
        }
        List<ProfileBreakdown.FunctionDetail> out = new ArrayList<>();
        for (FunctionProfile f : p.functions()) {
            if (!sizeSeconds.containsKey(f.name())) {
                continue;
            }
            long[] cc = ProfileBreakdown.trim(commCalls.get(f.name()));
            double[] bySize = ProfileBreakdown.trim(sizeSeconds.get(f.name()));
            if (cc.length == 0 && bySize.length == 0) {
                continue; // nothing to add to the function's figures: no bytes, not a collective
            }
            out.add(new ProfileBreakdown.FunctionDetail(f.name(), cc.length > 0 ? buffer.get(f.name())[0] : 0,
                    bySize, cc,
                    cc.length > 0 ? ProfileBreakdown.trim(commSeconds.get(f.name())) : new double[0]));
        }
        return new ProfileBreakdown(new ProfileBreakdown.Cost(Stat.of(start), Stat.of(fin), rank0Finalize), out);
    }

    /** Rank 0's whole finalize work in seconds (rec_snapshot.c writes ranks/finalize-0.txt after every rank's
     * dump), 0 without the file. */
    static double rank0Finalize(Path file) throws IOException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return 0;
        }
        InputFile.check(file, "rank 0's finalize time", 64);
        String text = Files.readString(file, java.nio.charset.StandardCharsets.US_ASCII).strip();
        try {
            double v = Double.parseDouble(text);
            if (v >= 0 && v <= ProfileJson.MAX_SECONDS) {
                return v;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new ProfileFormatException(file + ": \"" + text + "\" is not a number of seconds from 0 to "
                + ProfileJson.MAX_SECONDS);
    }

    /** The functions rank {@code s} called: calls, time, bytes sent and received, in the dump's order. */
    public static ProfileDetails.RankFunctions rankFunctions(Snapshot s) {
        List<ProfileDetails.Entry> entries = new ArrayList<>();
        for (int f = 0; f < s.names().length; f++) {
            long[] st = s.stats()[f];
            if (st[Snapshot.CALLS] > 0) {
                entries.add(new ProfileDetails.Entry(s.names()[f], st[Snapshot.CALLS], s.seconds(st[Snapshot.TICKS]),
                        st[Snapshot.SENT], st[Snapshot.RECV]));
            }
        }
        return new ProfileDetails.RankFunctions(entries);
    }

    /** The dumps in {@code ranks} by rank; one named rank-*.bin but not rank-R.bin is refused. */
    private static TreeMap<Integer, Path> files(Path ranks) throws IOException {
        TreeMap<Integer, Path> files = new TreeMap<>();
        if (!Files.isDirectory(ranks)) {
            return files;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(ranks, "rank-*.bin")) {
            for (Path p : ds) {
                Matcher m = NAME.matcher(p.getFileName().toString());
                if (!m.matches() || Integer.parseInt(m.group(1)) >= ProfileJson.MAX_RANKS) {
                    throw new ProfileFormatException(p + ": not the name of a rank dump (rank-<R>.bin, R a rank from"
                            + " 0 to " + (ProfileJson.MAX_RANKS - 1) + " without leading zeros)");
                }
                files.put(Integer.parseInt(m.group(1)), p);
            }
        } catch (DirectoryIteratorException e) {
            throw e.getCause();
        }
        return files;
    }
}
