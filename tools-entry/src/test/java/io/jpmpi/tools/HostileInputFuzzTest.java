package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jpmpi.profilers.profile.Dumps;
import io.jpmpi.profilers.profile.RankDumps;
import io.jpmpi.profilers.report.FunctionProfile;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.profilers.report.Stat;
import io.jpmpi.tools.accounting.Month;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded mutations of real inputs through the commands that read them, in process: a profile.json
 * and rank dumps through {@code jpmpi report}, accounting records through {@code jpmpi accounting
 * summary}. Every case ends, within seconds, either with reports whose every figure is finite,
 * non-negative and consistent with the others, or with one line naming the file and exit 74
 * (report) or 75 (accounting); a line that is not a record is named FILE:LINE and skipped.
 */
class HostileInputFuzzTest {
    private static final long SEED = 19;
    private static final int CASES = 1200;
    private static final Duration EACH = Duration.ofSeconds(20);
    private static final int RANKS = 4;
    private static final String[] EXTREME = {"1e308", "1e-300", "9223372036854775807", "9223372036854775808",
        "18446744073709551615", "-0", "-1", "0", "-5e-324", "1.5", "NaN", "Infinity", "-Infinity", "1e999",
        "\"7\"", "null", "true", "[]", "{}", "2147483648", "4.9e-324", "123456789012345678901234567890"};
    private static final double[] DOUBLES = {1e308, 1e-300, Double.NaN, Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY, -0.0, -1.0, 0, 4.9e-324, 1e11, 1e6};
    private static final long[] LONGS = {Long.MAX_VALUE, -1, 0, 1L << 62, Long.MIN_VALUE, 1, Integer.MAX_VALUE,
        0xffffffffL, 1L << 53};
    private static final Pattern NUMBER = Pattern.compile("(?<=[:\\[,])-?\\d+(\\.\\d+)?([eE][+-]?\\d+)?");
    private static final Pattern KEY_VALUE = Pattern.compile("\"[a-z_]+\":(-?[0-9.eE+-]+|\"[^\"]*\")");
    /** A minus right before a digit that is not inside a word, a date or a range ("2-3"). */
    private static final Pattern NEGATIVE = Pattern.compile("(?<![\\w./:+-])-\\d");
    private static final Pattern REASON = Pattern.compile("^\\| +rank \\d+: ");
    private static final Pattern E_NOTATION = Pattern.compile("\\d[eE][+-]?\\d");

    @TempDir
    Path dir;

    // --- profile.json ---------------------------------------------------------------------------

    @Test
    void mutatedProfileJson() throws IOException {
        Dumps.writeAll(dir.resolve("source"), RANKS);
        String good = text(RankDumps.merge(dir.resolve("source")));
        Random rnd = new Random(SEED);
        int refused = 0;
        for (int i = 0; i < CASES; i++) {
            Path d = fresh("json");
            String mutated = mutate(good, rnd, 1 + rnd.nextInt(2));
            Files.writeString(d.resolve("profile.json"), mutated);
            refused += report(d, d.resolve("profile.json").toString(), "case " + i + ": " + clip(mutated, good));
        }
        assertTrue(refused > CASES / 3 && refused < CASES, refused + " of " + CASES + " refused");
    }

    private static String text(Profile p) throws IOException {
        var w = new java.io.StringWriter();
        ProfileJson.write(p, w);
        return w.toString();
    }

    /** {@code json} with {@code n} changes: a number made extreme, a byte flipped, a cut, a key twice, a value moved. */
    private static String mutate(String json, Random rnd, int n) {
        String s = json;
        for (int k = 0; k < n; k++) {
            List<int[]> numbers = spans(NUMBER, s);
            if (numbers.isEmpty()) {
                return flip(s, rnd);
            }
            int[] at = numbers.get(rnd.nextInt(numbers.size()));
            s = switch (rnd.nextInt(10)) {
                case 0, 1, 2, 3 -> s.substring(0, at[0]) + EXTREME[rnd.nextInt(EXTREME.length)] + s.substring(at[1]);
                case 4 -> flip(s, rnd);
                case 5 -> s.substring(0, rnd.nextInt(s.length()));
                case 6 -> twice(s, rnd);
                case 7 -> {
                    int[] other = numbers.get(rnd.nextInt(numbers.size()));
                    yield other[0] > at[1] ? s.substring(0, at[0]) + s.substring(other[0], other[1])
                            + s.substring(at[1], other[0]) + s.substring(at[0], at[1]) + s.substring(other[1]) : s;
                }
                case 8 -> s.substring(0, at[0]) + scaled(s.substring(at[0], at[1]), rnd) + s.substring(at[1]);
                default -> s.substring(0, at[0]) + s.substring(at[1], Math.min(s.length(), at[1] + 1 + rnd.nextInt(40)))
                        + s.substring(Math.min(s.length(), at[1] + 1 + rnd.nextInt(40)));
            };
        }
        return s;
    }

    private static List<int[]> spans(Pattern p, String s) {
        List<int[]> out = new ArrayList<>();
        Matcher m = p.matcher(s);
        while (m.find()) {
            out.add(new int[] {m.start(), m.end()});
        }
        return out;
    }

    private static String flip(String s, Random rnd) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    /** A {@code "key":value} pair written again right after itself, with another value. */
    private static String twice(String s, Random rnd) {
        List<int[]> pairs = spans(KEY_VALUE, s);
        if (pairs.isEmpty()) {
            return s;
        }
        int[] at = pairs.get(rnd.nextInt(pairs.size()));
        String pair = s.substring(at[0], at[1]);
        String again = pair.replaceFirst(":.*", ":" + (rnd.nextInt(1000) + 1));
        return s.substring(0, at[1]) + "," + again + s.substring(at[1]);
    }

    /** A number times 10^k or 2^k: consistent-looking but far off. */
    private static String scaled(String number, Random rnd) {
        double v = Double.parseDouble(number);
        double f = rnd.nextBoolean() ? Math.pow(10, rnd.nextInt(40) - 20) : Math.scalb(1.0, rnd.nextInt(70));
        return Double.toString(v * f + (v == 0 ? f : 0));
    }

    // --- rank dumps -----------------------------------------------------------------------------

    @Test
    void mutatedRankDumps() throws Exception {
        Random rnd = new Random(SEED + 1);
        int refused = 0;
        for (int i = 0; i < CASES; i++) {
            Path d = fresh("dumps");
            Path ranks = Dumps.writeAll(d, RANKS);
            String what = mutateDumps(ranks, rnd);
            refused += report(d, ranks.toString(), "case " + i + ": " + what);
        }
        assertTrue(refused > CASES / 3 && refused < CASES, refused + " of " + CASES + " refused");
    }

    /** Changes the dumps in {@code ranks}; returns what it did. */
    private static String mutateDumps(Path ranks, Random rnd) throws Exception {
        int r = rnd.nextInt(RANKS);
        Path file = ranks.resolve("rank-" + r + ".bin");
        int kind = rnd.nextInt(100);
        if (kind < 8) {
            return renamed(ranks, file, r, rnd);
        }
        if (kind < 10) {
            return special(file, rnd);
        }
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        StringBuilder what = new StringBuilder("rank " + r + ":");
        for (int k = 0; k <= rnd.nextInt(2); k++) {
            what.append(' ').append(poke(b, rnd));
        }
        byte[] out = b.array();
        if (kind < 16) {
            int len = kind < 13 ? rnd.nextInt(out.length) : out.length + 1 + rnd.nextInt(64);
            out = Arrays.copyOf(out, len);
            what.append(" size ").append(len);
        }
        Files.write(file, out);
        return what.toString();
    }

    /** One value of the dump made extreme, or one bit flipped: in the header, the figures, the buckets or the matrix. */
    private static String poke(ByteBuffer b, Random rnd) {
        int region = rnd.nextInt(10);
        int at = region < 3 ? 8 * rnd.nextInt(11) : region < 7 ? Dumps.statAt(0, 0) + 8 * rnd.nextInt(6
                * Dumps.FUNCTIONS.length) : region < 9 ? Dumps.bucketAt(rnd.nextInt(Dumps.FUNCTIONS.length),
                rnd.nextInt(Dumps.BUCKETS)) : Dumps.matrixAt(rnd.nextInt(RANKS), rnd.nextInt(2));
        switch (rnd.nextInt(4)) {
            case 0 -> b.putDouble(at, DOUBLES[rnd.nextInt(DOUBLES.length)]);
            case 1 -> b.putLong(at, LONGS[rnd.nextInt(LONGS.length)]);
            case 2 -> b.putInt(at + 4 * rnd.nextInt(2), (int) LONGS[rnd.nextInt(LONGS.length)]);
            default -> {
                int bit = rnd.nextInt(64);
                b.put(at + bit / 8, (byte) (b.get(at + bit / 8) ^ (1 << (bit % 8))));
            }
        }
        return "@" + at;
    }

    /** A dump under another name: another rank's, a second name for a rank, a name that is no rank's. */
    private static String renamed(Path ranks, Path file, int r, Random rnd) throws IOException {
        String[] names = {"rank-0" + r + ".bin", "rank-" + ((r + 1) % RANKS) + ".bin", "rank-99999999999.bin",
            "rank-" + r + "0.bin", "rank-+" + r + ".bin", "rank-" + r + ".bin.tmp"};
        String name = names[rnd.nextInt(names.length)];
        Files.copy(file, ranks.resolve(name), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        if (rnd.nextBoolean()) {
            Files.delete(file);
        }
        return "copied rank " + r + " to " + name;
    }

    /** A dump that is not a file: a directory, a FIFO, a link to /dev/zero, to nothing, to itself. */
    private static String special(Path file, Random rnd) throws Exception {
        Files.delete(file);
        int kind = rnd.nextInt(5);
        switch (kind) {
            case 0 -> Files.createDirectory(file);
            case 1 -> assertEquals(0, new ProcessBuilder("mkfifo", file.toString()).start().waitFor());
            case 2 -> Files.createSymbolicLink(file, Path.of("/dev/zero"));
            case 3 -> Files.createSymbolicLink(file, file.resolveSibling("nowhere"));
            default -> Files.createSymbolicLink(file, file);
        }
        return "special " + kind + " " + file.getFileName();
    }

    // --- the report and its checks --------------------------------------------------------------

    /**
     * {@code jpmpi report -q DIR}: either reports that pass {@link #consistent}, or exit 74 with one
     * line naming {@code names}; returns 1 if refused.
     */
    private static int report(Path d, String names, String what) throws IOException {
        Cli r = assertTimeoutPreemptively(EACH, () -> Cli.run("report", "-q", d.toString()), what);
        if (r.exit() == ExitCode.BAD_PROFILE.code) {
            assertEquals("", r.out(), what);
            assertEquals(1, r.err().lines().count(), () -> what + "\n" + r.describe());
            assertTrue(r.err().startsWith("jpmpi: report: "), () -> what + "\n" + r.describe());
            assertTrue(r.err().contains(names), () -> what + ": does not name " + names + "\n" + r.describe());
            assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), () -> what + "\n" + r.describe());
            assertFalse(Files.exists(d.resolve("report.txt")), what);
            return 1;
        }
        assertEquals(0, r.exit(), () -> what + "\n" + r.describe());
        assertEquals("", r.out() + r.err(), what);
        Path json = d.resolve("profile.json");
        Profile p = ProfileJson.read(json); // a merge writes only what the reader takes
        consistent(p, Files.readString(json), Files.readString(d.resolve("report.txt")), what);
        return 0;
    }

    /** Every number finite and non-negative, sums that add up, min <= mean <= max, a report without NaN or -1. */
    private static void consistent(Profile p, String json, String text, String what) throws IOException {
        numbers(new ObjectMapper().readTree(json), what);
        double calls = 0;
        for (FunctionProfile f : p.functions()) {
            calls += f.calls();
            close(f.calls(), f.perRank().calls().sum(), what + ": " + f.name() + " calls");
            close(f.timeSeconds(), f.perRank().timeSeconds().sum(), what + ": " + f.name() + " time");
            assertTrue(f.minCallSeconds() <= f.maxCallSeconds(), what + ": " + f.name() + " min > max");
            Stream.of(f.perRank().calls(), f.perRank().timeSeconds(), f.perRank().bytesSent(),
                    f.perRank().bytesRecv()).forEach(s -> ordered(s, what + ": " + f.name()));
        }
        close(calls, p.summary().calls().sum(), what + ": calls");
        Stream.of(p.summary().appSeconds(), p.summary().mpiSeconds(), p.summary().calls())
                .forEach(s -> ordered(s, what + ": summary"));
        for (String bad : new String[] {"NaN", "Infinity", "n/a"}) {
            assertFalse(text.contains(bad), () -> what + ": " + bad + " in\n" + text);
        }
        for (String line : text.lines().toList()) {
            // Names and reasons are text (an MPI_Abort error code may be negative); the rest are figures.
            String figures = line.startsWith("| executable") || line.startsWith("| mpi") || line.startsWith("| hosts")
                    || line.startsWith("| jpmpi profile") || REASON.matcher(line).find() ? "" : line;
            assertFalse(NEGATIVE.matcher(figures).find(), () -> what + ": a negative figure in " + line);
            assertFalse(!line.startsWith("| overhead") && E_NOTATION.matcher(figures).find(),
                    () -> what + ": E-notation in " + line);
        }
    }

    private static void numbers(JsonNode n, String what) {
        if (n.isNumber()) {
            assertTrue(Double.isFinite(n.asDouble()) && n.asDouble() >= 0, () -> what + ": " + n);
        }
        n.forEach(c -> numbers(c, what));
    }

    private static void ordered(Stat s, String what) {
        double slack = 1e-6 * Math.max(s.max(), 1e-300);
        assertTrue(s.min() <= s.avg() + slack && s.avg() <= s.max() + slack, () -> what + ": " + s);
    }

    private static void close(double a, double b, String what) {
        assertTrue(Math.abs(a - b) <= 1e-6 * Math.max(Math.abs(a), Math.abs(b)), () -> what + ": " + a + " vs " + b);
    }

    // --- accounting records ---------------------------------------------------------------------

    @Test
    void mutatedAccountingLines() throws Exception {
        List<String> good = Month.records().stream().limit(6).map(r -> r.toJson()).toList();
        Random rnd = new Random(SEED + 2);
        int skipped = 0;
        for (int i = 0; i < CASES; i++) {
            Path f = fresh("acct").resolve("acct.jsonl");
            String line = mutate(good.get(rnd.nextInt(good.size())), rnd, 1 + rnd.nextInt(2)).replace("\n", " ");
            if (i % 97 == 0) {
                line = line + "x".repeat(5000);
            }
            Files.writeString(f, good.get(0) + "\n" + good.get(1) + "\n" + line + "\n" + good.get(2) + "\n");
            skipped += summary(f, i % 2 == 0, "case " + i + ": " + line);
        }
        assertTrue(skipped > CASES / 3 && skipped < CASES, skipped + " of " + CASES + " skipped");
        Path fifo = fresh("acct").resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Cli r = assertTimeoutPreemptively(EACH, () -> Cli.run("accounting", "summary", fifo.toString()));
        assertEquals(ExitCode.BAD_RECORDS.code, r.exit(), r::describe);
        assertEquals(1, r.err().lines().count(), r::describe);
        assertTrue(r.err().contains(fifo.toString()), r::describe);
    }

    /**
     * The summary of {@code f} (line 3 mutated): counted, or named FILE:3 (or, for a mutation that
     * kept the job id and start of line 4, line 4 as a job counted already) and skipped; returns 1 if
     * a line was skipped.
     */
    private static int summary(Path f, boolean json, String what) throws IOException {
        Cli r = assertTimeoutPreemptively(EACH, () -> json ? Cli.run("accounting", "summary", "--json", f.toString())
                : Cli.run("accounting", "summary", f.toString()), what);
        assertEquals(0, r.exit(), () -> what + "\n" + r.describe());
        for (String bad : new String[] {"NaN", "Infinity", "Exception"}) {
            assertFalse(r.out().contains(bad), () -> what + "\n" + r.describe());
        }
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), () -> what + "\n" + r.describe());
        List<String> err = r.err().lines().toList();
        if (!err.isEmpty()) {
            assertEquals(2, err.size(), () -> what + "\n" + r.describe());
            // the mutated line, or the good line 4 when the mutated one kept its job and start (a job counted twice)
            assertTrue(err.get(0).startsWith(f + ":3: ")
                    || err.get(0).startsWith(f + ":4: job ") && err.get(0).endsWith(" is counted already"),
                    () -> what + "\n" + r.describe());
        }
        if (json) {
            JsonNode j = new ObjectMapper().readTree(r.out());
            numbers(j, what);
            for (JsonNode period : j.get("periods")) {
                assertTrue(period.get("mpi_pct").asDouble() <= 100, () -> what + "\n" + r.describe());
            }
            assertEquals(err.isEmpty() ? 4 : 3, j.get("records").asInt() + j.get("before_since").asInt(), what);
        } else {
            assertFalse(NEGATIVE.matcher(r.out()).find() || E_NOTATION.matcher(r.out()).find(),
                    () -> what + "\n" + r.describe());
        }
        return err.isEmpty() ? 0 : 1;
    }

    // --- helpers --------------------------------------------------------------------------------

    private int serial;

    /** An empty folder for one case; the one before is deleted, so that the cases do not fill the disk. */
    private Path fresh(String what) throws IOException {
        Path old = dir.resolve("case-" + serial);
        if (Files.exists(old)) {
            try (Stream<Path> s = Files.walk(old)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        return Files.createDirectories(dir.resolve("case-" + ++serial).resolve(what));
    }

    /** Where {@code mutated} first differs from {@code good}, for the failure messages. */
    private static String clip(String mutated, String good) {
        int i = 0;
        while (i < Math.min(mutated.length(), good.length()) && mutated.charAt(i) == good.charAt(i)) {
            i++;
        }
        return "at " + i + ": ..." + mutated.substring(Math.max(0, i - 40), Math.min(mutated.length(), i + 60))
                + "...";
    }
}
