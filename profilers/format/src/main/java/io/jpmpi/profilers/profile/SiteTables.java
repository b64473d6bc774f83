package io.jpmpi.profilers.profile;

import io.jpmpi.profilers.report.Stat;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The ranks' call-site tables, {@code sites/rank-R.tsv} (PROFILE.md, "Call sites"), merged: one
 * entry per (function, module, offset), its calls, time and bytes added up over the rank's threads
 * and summarised across ranks (a rank without the site counts 0). Addresses are not resolved here
 * (see the report module's SiteNames); the dynamic symbol the rank found is kept.
 */
public final class SiteTables {
    /** The directory of the tables inside a profile directory. */
    public static final String DIR = "sites";
    /** The most lines read from one table (a rank has 4097 entries per thread). */
    static final int MAX_LINES = 1 << 22;
    private static final Pattern FILE = Pattern.compile("rank-(\\d{1,7})\\.tsv");
    private static final int FIELDS = 8;

    private SiteTables() {
    }

    /**
     * One site over the whole job, not yet named.
     *
     * @param symbol the nearest dynamic symbol and the offset from it, null if the rank found none
     */
    public record Raw(String function, String module, long offset, String symbol, Stat calls, Stat timeSeconds,
                      Stat bytes) {
    }

    /**
     * Every site, most time first (then most calls, module, offset, function), and what was wrong
     * with the tables (null if nothing): missing ranks, lines skipped.
     */
    public record Merged(List<Raw> sites, String problem) {
    }

    /** Whether {@code dir} holds any rank's table. */
    public static boolean present(Path dir) {
        Path sites = dir.resolve(DIR);
        if (!Files.isDirectory(sites)) {
            return false;
        }
        try (var files = Files.list(sites)) {
            return files.anyMatch(f -> FILE.matcher(f.getFileName().toString()).matches());
        } catch (IOException e) {
            return false;
        }
    }

    /** The tables in {@code dir} of a job of {@code ranks} ranks, merged. */
    public static Merged read(Path dir, int ranks) throws IOException {
        Map<Integer, Path> files = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        try (var list = Files.list(dir.resolve(DIR))) {
            for (Path f : list.toList()) {
                Matcher m = FILE.matcher(f.getFileName().toString());
                if (m.matches()) {
                    int rank = Integer.parseInt(m.group(1));
                    if (rank < ranks) {
                        files.put(rank, f);
                    } else {
                        problems.add(DIR + "/" + f.getFileName() + ": no rank " + rank + " in a job of " + ranks
                                + " ranks (ignored)");
                    }
                }
            }
        }
        if (files.size() < ranks) {
            problems.add((ranks - files.size()) + " of " + ranks + " ranks left no " + DIR + "/rank-R.tsv (their"
                    + " sites count 0)");
        }
        Map<String, Accumulator> all = new HashMap<>();
        for (var e : files.entrySet()) {
            Map<String, double[]> rank = new LinkedHashMap<>();
            Map<String, String[]> identity = new HashMap<>();
            readOne(e.getValue(), rank, identity, problems);
            for (var s : rank.entrySet()) {
                all.computeIfAbsent(s.getKey(), k -> new Accumulator(identity.get(k))).add(e.getKey(), s.getValue());
            }
        }
        List<Raw> out = new ArrayList<>(all.size());
        for (Accumulator a : all.values()) {
            out.add(a.raw(ranks));
        }
        out.sort(MOST_TIME_FIRST);
        return new Merged(List.copyOf(out), problems.isEmpty() ? null : String.join("; ", problems));
    }

    /**
     * The sites' order: most time first, then most calls, then module, offset and function. A class
     * rather than a chain of Comparator.comparing(...) over lambdas and method references, whose
     * linking costs a fresh JVM, such as the launcher's after a job, ~5 ms.
     */
    private static final Comparator<Raw> MOST_TIME_FIRST = new Comparator<>() {
        @Override
        public int compare(Raw a, Raw b) {
            int c = Double.compare(b.timeSeconds().sum(), a.timeSeconds().sum());
            if (c == 0) {
                c = Double.compare(b.calls().sum(), a.calls().sum());
            }
            if (c == 0) {
                c = a.module().compareTo(b.module());
            }
            if (c == 0) {
                c = Long.compare(a.offset(), b.offset());
            }
            return c != 0 ? c : a.function().compareTo(b.function());
        }
    };

    /** One table's lines, added up by site over the threads: key → {calls, seconds, bytes}. */
    private static void readOne(Path file, Map<String, double[]> out, Map<String, String[]> identity,
                                List<String> problems) throws IOException {
        String name = DIR + "/" + file.getFileName();
        int skipped = 0;
        String first = null;
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int n = 0;
            while ((line = r.readLine()) != null && n < MAX_LINES) {
                n++;
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t", -1);
                String bad = f.length != FIELDS ? FIELDS + " tab-separated fields expected, found " + f.length
                        : check(f);
                if (bad != null) {
                    skipped++;
                    first = first == null ? "line " + n + ": " + bad : first;
                    continue;
                }
                String key = f[0] + "\t" + f[1] + "\t" + f[2];
                double[] v = out.computeIfAbsent(key, k -> new double[3]);
                v[0] += Long.parseUnsignedLong(f[5]);
                v[1] += Double.parseDouble(f[6]);
                v[2] += Long.parseUnsignedLong(f[7]);
                identity.putIfAbsent(key, new String[] {f[0], f[1], f[2], f[4]});
            }
        }
        if (skipped > 0) {
            problems.add(name + ": " + skipped + (skipped == 1 ? " line" : " lines") + " skipped (" + first + ")");
        }
    }

    /** What is wrong with a line's fields, or null. */
    private static String check(String[] f) {
        if (f[0].isEmpty() || f[1].isEmpty()) {
            return "no function or module";
        }
        try {
            offset(f[2]);
            Long.parseUnsignedLong(f[5]);
            Long.parseUnsignedLong(f[7]);
            double s = Double.parseDouble(f[6]);
            if (!Double.isFinite(s) || s < 0) {
                return "seconds \"" + f[6] + "\" is not a non-negative number";
            }
        } catch (NumberFormatException e) {
            return "not a number where one is expected";
        }
        return null;
    }

    /** "0x1a2b" as a number. */
    static long offset(String hex) {
        if (!hex.startsWith("0x") || hex.length() > 18) {
            throw new NumberFormatException(hex);
        }
        return Long.parseUnsignedLong(hex.substring(2), 16);
    }

    /** One site's figures over the ranks that have it; the others count 0. */
    private static final class Accumulator {
        final String[] identity;
        final BitSet present = new BitSet();
        final double[] sum = new double[3];
        final double[] squares = new double[3];
        final double[] min = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
        final int[] minRank = new int[3];
        final double[] max = {-1, -1, -1};
        final int[] maxRank = new int[3];

        Accumulator(String[] identity) {
            this.identity = identity;
        }

        /** Ranks come in ascending order, so ties keep the lowest rank. */
        void add(int rank, double[] v) {
            present.set(rank);
            for (int q = 0; q < 3; q++) {
                sum[q] += v[q];
                squares[q] += v[q] * v[q];
                if (v[q] < min[q]) {
                    min[q] = v[q];
                    minRank[q] = rank;
                }
                if (v[q] > max[q]) {
                    max[q] = v[q];
                    maxRank[q] = rank;
                }
            }
        }

        Raw raw(int ranks) {
            Stat[] s = new Stat[3];
            int absent = present.nextClearBit(0);
            for (int q = 0; q < 3; q++) {
                double lo = min[q];
                int loRank = minRank[q];
                int hiRank = maxRank[q];
                if (absent < ranks) { // a rank without the site: 0 there
                    if (0 < lo || 0 == lo && absent < loRank) {
                        lo = 0;
                        loRank = absent;
                    }
                    if (0 == max[q] && absent < hiRank) {
                        hiRank = absent;
                    }
                }
                s[q] = Stat.fromMoments(sum[q], squares[q], ranks, lo, loRank, max[q], hiRank);
            }
            String symbol = "?".equals(identity[3]) ? null : identity[3];
            return new Raw(identity[0], identity[1], offset(identity[2]), symbol, s[0], s[1], s[2]);
        }
    }
}
