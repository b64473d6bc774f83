package io.jpmpi.profilers.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** report.txt: the figures in their places, the width, determinism, hostile strings. */
class TextReportTest {
    private static List<String> lines(String report) {
        return report.lines().toList();
    }

    /** The line that starts with {@code prefix} (after the box's "| "). */
    private static String line(String report, String prefix) {
        return lines(report).stream().filter(l -> l.startsWith(prefix) || l.startsWith("| " + prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no line " + prefix + " in\n" + report));
    }

    /** The whitespace-separated words of a line, box borders left out. */
    private static List<String> words(String line) {
        return List.of(line.replace("|", " ").trim().split(" +"));
    }

    private static void fitsAndIsDeterministic(Profile p) {
        String report = TextReport.render(p);
        for (String l : lines(report)) {
            assertTrue(l.length() <= TextReport.WIDTH, () -> l.length() + " columns: " + l);
            assertEquals(l.stripTrailing(), l, () -> "trailing blanks: " + l);
            if (l.startsWith("|") || l.startsWith("+")) {
                assertEquals(TextReport.WIDTH, l.length(), l);
            }
        }
        assertEquals(report, TextReport.render(p));
        assertTrue(report.endsWith("\n"));
    }

    @Test
    void fitsInOneHundredColumnsWhateverTheSize() {
        for (int ranks : new int[] {1, 2, 4, 64, 100, 1000}) {
            fitsAndIsDeterministic(Fixtures.ring(ranks, ranks % 2 == 0));
        }
        fitsAndIsDeterministic(Fixtures.withoutRows(Fixtures.fourRanks()));
    }

    @Test
    void theBannerHasTheJobAndThePerRankFigures() {
        Profile p = Fixtures.fourRanks();
        String r = TextReport.render(p);
        assertTrue(lines(r).get(0).matches("\\+-{98}\\+"), r);
        assertTrue(line(r, "jpmpi profile").trim().endsWith("job 4711 |"), r);
        assertFalse(r.contains("PARTIAL"), r);
        assertEquals(List.of("executable", "/home/me/halo"), words(line(r, "executable")));
        assertEquals(List.of("mpi", "openmpi", "4.1.4"), words(line(r, "mpi ")));
        assertEquals(List.of("ranks", "4", "on", "1", "host", "start", "2026-11-21T10:00:00Z"), words(line(r, "ranks ")));
        // both wall times, named: the longest application time (its rank) and the job's, which only
        // jpmpi run knows
        Stat longest = p.summary().appSeconds();
        assertEquals("| longest app " + Units.seconds(longest.max()) + " (rank " + longest.maxRank()
                + "): application time, end of MPI_Init to start of MPI_Finalize",
                line(r, "longest app").replaceAll(" +\\|$", ""));
        assertEquals(List.of("job", "wall", "not", "known", "(the", "job", "was", "not", "started", "by", "jpmpi",
                "run)"), words(line(r, "job wall")));
        assertTrue(line(r, "command").contains("not known (the job was not started by jpmpi run"), r);
        assertTrue(line(r, "units").contains("KiB = 1024 bytes, MiB = 1024 KiB"), r);
        String withRun = TextReport.render(Fixtures.withDetails(p));
        assertEquals(List.of("job", "wall", "13.5", "s", "(jpmpi", "run:", "from", "starting", "the", "launcher", "to",
                "its", "end)"), words(line(withRun, "job wall")));
        assertEquals(List.of("command", "mpirun", "-np", "4", "./halo"), words(line(withRun, "command")));
        String jpmpi = line(withRun, "jpmpi       ");
        String next = lines(withRun).get(lines(withRun).indexOf(jpmpi) + 1);
        assertEquals(List.of("jpmpi", "tools", "profile;", "output", "/home/me/out;", "JPMPI_OUTPUT_DIR=/home/me/out;",
                "JPMPI_PROFILE_OUTPUT=on"), words(jpmpi + " " + next));
        fitsAndIsDeterministic(Fixtures.withDetails(p));
        // a job started by hand: rank 0's own command line, said to be so
        Profile byHand = p.withDetails(new ProfileDetails(new ProfileDetails.Run(ProfileDetails.FROM_RANK_0,
                List.of("./halo", "100"), "", "/home/me/prof", 0, java.util.Map.of()), 0,
                p.details().rankFunctions()));
        String hand = TextReport.render(byHand);
        assertTrue(line(hand, "command").contains("./halo 100 (rank 0's own; the job was not started by jpmpi run:"),
                hand);
        assertTrue(line(hand, "job wall").contains("not known (the job was not started by jpmpi run)"), hand);
        assertEquals(List.of("hosts", "node1", "x4"), words(line(r, "hosts ")));
        // app time: min, its rank, avg, max, its rank, cv.
        Stat app = p.summary().appSeconds();
        assertEquals(List.of("app", "time", num(Units.seconds(app.min())), "s", Integer.toString(app.minRank()),
                num(Units.seconds(app.avg())), "s", num(Units.seconds(app.max())), "s", Integer.toString(app.maxRank()),
                String.format(Locale.ROOT, "%.2f", app.cv())), words(line(r, "app time")));
        Stat pct = p.summary().mpiPercent();
        assertEquals(List.of("MPI", "%", Units.percent(pct.min()), Integer.toString(pct.minRank()),
                Units.percent(pct.avg()), Units.percent(pct.max()), Integer.toString(pct.maxRank()),
                String.format(Locale.ROOT, "%.2f", pct.cv())), words(line(r, "MPI %")));
        String header = line(r, "per rank");
        String mpi = line(r, "MPI time");
        // Figures right-aligned under their headings.
        assertEquals(header.indexOf("min") + 3, mpi.indexOf(Units.seconds(p.summary().mpiSeconds().min()))
                + Units.seconds(p.summary().mpiSeconds().min()).length());
        assertEquals(List.of("calls", "1204", "0", "1204", "1204", "0", "0.00"), words(line(r, "calls ")));
        assertEquals(List.of("total", "4816", "calls,", "100MiB", "sent,", "100MiB", "received;", "MPI", "time",
                Units.percent(TextReport.mpiShare(p)) + "%", "of", "application", "time"), words(line(r, "total")));
        assertTrue(line(r, "overhead").contains("14.2 ns per call x 4816 calls = 68.4 us, 0.000137% of application"
                + " time; jpmpi's own"), r);
        assertTrue(r.contains("|             start (in MPI_Init) and finalize (the dumps to rank 0) are not in this profile"), r);
    }

    private static String num(String seconds) {
        return seconds.split(" ")[0];
    }

    @Test
    void theTopFunctionsWithTheirSpread() {
        Profile p = Fixtures.fourRanks();
        String r = TextReport.render(p);
        FunctionProfile top = p.functions().get(0);
        assertEquals("MPI_Waitall", top.name());
        String header = line(r, "function", 0);
        assertEquals(List.of("function", "calls", "time", "%MPI", "%app", "avg/call", "min", "call", "max", "call",
                "sent", "recv"), words(header));
        List<String> row = words(lines(r).get(lines(r).indexOf(header) + 1)).stream()
                .filter(w -> !List.of("s", "ms", "us", "ns").contains(w)).toList();
        double mpi = p.summary().mpiSeconds().sum();
        double app = p.summary().appSeconds().sum();
        assertEquals(List.of("MPI_Waitall", "800", num(Units.seconds(top.timeSeconds())),
                Units.percent(100 * top.timeSeconds() / mpi), Units.percent(100 * top.timeSeconds() / app),
                num(Units.seconds(top.timeSeconds() / 800)), num(Units.seconds(top.minCallSeconds())),
                num(Units.seconds(top.maxCallSeconds())), "0", "0"), row);
        // Functions by time, as the profile lists them.
        int at = lines(r).indexOf(header);
        for (int i = 0; i < p.functions().size(); i++) {
            assertTrue(lines(r).get(at + 1 + i).startsWith(p.functions().get(i).name() + " "), r);
        }
        String spread = line(r, "MPI_Waitall", 1);
        Stat t = top.perRank().timeSeconds();
        assertEquals(List.of("MPI_Waitall", num(Units.seconds(t.min())), "s", Integer.toString(t.minRank()),
                num(Units.seconds(t.avg())), "s", num(Units.seconds(t.max())), "s", Integer.toString(t.maxRank()),
                String.format(Locale.ROOT, "%.2f", t.cv()), String.format(Locale.ROOT, "%.2f", t.max() / t.avg())),
                words(spread));
    }

    /** The {@code n}-th (from 0) line starting with {@code prefix}. */
    private static String line(String report, String prefix, int n) {
        return lines(report).stream().filter(l -> l.startsWith(prefix)).skip(n).findFirst()
                .orElseThrow(() -> new AssertionError("no line " + prefix + " #" + n));
    }

    @Test
    void manyFunctionsAreCutToTheTopAndLongNamesGetALine() {
        Profile p = Fixtures.fourRanks();
        List<FunctionProfile> fns = new ArrayList<>(p.functions());
        FunctionProfile f = fns.get(fns.size() - 1);
        for (int i = 0; i < 20; i++) {
            fns.add(new FunctionProfile("MPI_Neighbor_alltoallw_init_c" + i, 1, 1e-9 * (20 - i), 0, 0, 1e-9, 1e-9,
                    f.perRank(), new long[] {1}));
        }
        fns.add(0, new FunctionProfile("MPI_Neighbor_alltoallw_init_c", 3, 100, 0, 0, 1, 50, f.perRank(),
                new long[] {3}));
        String r = TextReport.render(Fixtures.withFunctions(p, fns));
        assertTrue(r.contains("Top 15 of 28 MPI functions by time"), r);
        assertTrue(r.contains("... 13 more in report.html and profile.json"), r);
        int at = lines(r).indexOf("MPI_Neighbor_alltoallw_init_c");
        assertTrue(at > 0, r);
        assertTrue(lines(r).get(at + 1).startsWith(" ".repeat(24) + "        3"), lines(r).get(at + 1));
        fitsAndIsDeterministic(Fixtures.withFunctions(p, fns));
    }

    @Test
    void messageSizesAndRankPairs() {
        String r = TextReport.render(Fixtures.fourRanks());
        assertEquals(List.of("0", "812", "16.9", "16.9", "MPI_Waitall", "######"), words(line(r, "0    ")));
        assertEquals(List.of("64KiB-128KiB", "3200", "66.4", "100.0", "MPI_Isend", "#".repeat(24)),
                words(line(r, "64KiB-128KiB")));
        assertEquals(List.of("16-1023", "0", "0.0", "33.5"), words(line(r, "16-1023")));
        assertTrue(r.contains("Rank pairs by bytes (sender to receiver; 1603 messages, 100MiB in all)"), r);
        String header = line(r, "  sender");
        List<String> first = words(lines(r).get(lines(r).indexOf(header) + 1));
        assertEquals(List.of("0", "1", "12.5MiB", "12.5", "201", "63.7KiB"), first);
        assertEquals(List.of("0", "2", "1KiB", "<0.1", "1", "1KiB"), words(lines(r).get(lines(r).indexOf(header) + 9)));
    }

    /**
     * Read without a manual: no 0 s rows for MPI_Init/MPI_Finalize (a note says they are counted, not
     * timed), collectives' bytes marked and explained, the shortest calls floored at the timer's
     * resolution with a note, every function's sizes, the ranks with the least and most MPI time.
     */
    @Test
    void theNotesTheTablesNeed() {
        Profile p = Fixtures.fourRanks();
        List<FunctionProfile> fns = new ArrayList<>();
        FunctionProfile any = p.functions().get(0);
        fns.add(new FunctionProfile("MPI_Init", 4, 0, 0, 0, 0, 0, any.perRank(), new long[] {4}));
        for (FunctionProfile f : p.functions()) {
            fns.add(f.name().equals("MPI_Comm_rank") ? new FunctionProfile(f.name(), f.calls(), f.timeSeconds(), 0, 0,
                    4e-10, f.maxCallSeconds(), f.perRank(), f.histogram()) : f);
        }
        fns.add(new FunctionProfile("MPI_Finalize", 4, 0, 0, 0, 0, 0, any.perRank(), new long[] {4}));
        Profile q = Fixtures.withFunctions(p, fns).withDetails(new ProfileDetails(null, 1.2e-8,
                p.details().rankFunctions()));
        String r = TextReport.render(q);
        assertTrue(lines(r).stream().noneMatch(l -> (l.startsWith("MPI_Init ") || l.startsWith("MPI_Finalize "))
                && !l.contains("counted, not timed")), r);
        assertTrue(r.contains("MPI_Init 4 calls, MPI_Finalize 4 calls: counted, not timed (the application time runs"),
                r);
        String allreduce = line(r, "MPI_Allreduce", 0);
        assertEquals(List.of("6.3KiB*", "6.3KiB*"), words(allreduce).subList(words(allreduce).size() - 2,
                words(allreduce).size()));
        assertTrue(r.contains("* collective: bytes counted as the pairwise messages the call implies (a 1 KiB"
                + " MPI_Allreduce on 4"), r);
        assertTrue(line(r, "MPI_Comm_rank", 0).contains("  <=12 ns   215 ns"), r);
        assertTrue(r.contains("min call: \"<=12 ns\" is a call at or below the timer's resolution (12 ns: the"
                + " shortest interval two\n  reads of the recorder's clock show)"), r);
        fitsAndIsDeterministic(q);
        // every rank's figures: the ranks with the least and the most MPI time, side by side
        Stat mpi = p.summary().mpiSeconds();
        assertTrue(r.contains("The ranks with the least and the most MPI time, per function: rank " + mpi.minRank()
                + " (" + Units.seconds(mpi.min()) + ") and rank " + mpi.maxRank() + " (" + Units.seconds(mpi.max())
                + ")"), r);
        ProfileDetails.Entry lo = p.details().rankFunctions().get(mpi.minRank()).get("MPI_Waitall");
        ProfileDetails.Entry hi = p.details().rankFunctions().get(mpi.maxRank()).get("MPI_Waitall");
        assertEquals(List.of("MPI_Waitall", "200", num(Units.seconds(lo.timeSeconds())), "s", "0", "0", "200",
                num(Units.seconds(hi.timeSeconds())), "s", "0", "0"), words(line(r, "MPI_Waitall", 2)));
        // calls per size, per function that moves bytes
        assertEquals(List.of("MPI_Isend", "64KiB-128KiB", "1600", "100.0"), words(line(r, "MPI_Isend", 3)));
        assertTrue(lines(r).stream().noneMatch(l -> l.startsWith("MPI_Waitall") && l.contains("0 ")
                && words(l).size() == 4), r);
    }

    /**
     * Schema 3: jpmpi's own start and finalize in the overhead line, the collectives' buffer bytes
     * beside their pairwise bytes (and the note saying where), calls and time by communicator size,
     * time per message size.
     */
    @Test
    void theBreakdownOfSchemaThree() {
        Profile p = Fixtures.withBreakdown(Fixtures.fourRanks());
        String r = TextReport.render(p);
        String box = String.join(" ", lines(r).stream().filter(l -> l.startsWith("|"))
                .map(l -> l.substring(1, l.length() - 1).trim()).toList());
        assertTrue(box.contains("jpmpi's own start in MPI_Init (after the library's): max 1.50 ms (rank 2), avg"
                + " 1.28 ms; its finalize in MPI_Finalize: rank 0 2.10 ms (it writes every rank's figures), the others"
                + " up to their snapshot max 300 us (rank 0); the dispatcher's own load before MPI_Init is not"
                + " measured"), box);
        assertTrue(r.replace("\n  ", " ").contains("the per-call buffer bytes mpiP reports (1 KiB a call there) are"
                + " in \"Collectives: buffer bytes\" below"), r);
        FunctionProfile allreduce = Fixtures.function(p, "MPI_Allreduce");
        assertEquals(List.of("MPI_Allreduce", Units.count(allreduce.calls()), Units.bytes(8 * allreduce.calls()), "8",
                Units.bytes(allreduce.bytesSent()) + "*", Units.bytes(allreduce.bytesRecv()) + "*"),
                words(line(r, "MPI_Allreduce", 4)));
        assertEquals(List.of("MPI_Allreduce", "4-7", Units.count(allreduce.calls()), "100.0",
                num(Units.seconds(0.75 * allreduce.timeSeconds())), Units.seconds(0.75 * allreduce.timeSeconds())
                .split(" ")[1], "75.0"), words(line(r, "MPI_Allreduce", 5)));
        FunctionProfile isend = Fixtures.function(p, "MPI_Isend");
        assertEquals(List.of("MPI_Isend", "64KiB-128KiB", "1600", "100.0", num(Units.seconds(isend.timeSeconds() / 2)),
                Units.seconds(isend.timeSeconds() / 2).split(" ")[1], "50.0"), words(line(r, "MPI_Isend", 3)));
        fitsAndIsDeterministic(p);
        // the non-blocking collectives' bytes are pairwise too, and marked so
        for (String c : List.of("MPI_Iallreduce", "MPI_Ibcast", "MPI_Iscatterv", "MPI_Ineighbor_alltoallw",
                "MPI_Ibarrier", "MPI_Allreduce_init", "MPI_Ialltoall_c")) {
            assertTrue(Readable.collective(c), c);
        }
        for (String c : List.of("MPI_Irecv", "MPI_Isend", "MPI_Init", "MPI_Iprobe", "MPI_Improbe", "MPI_Info_get")) {
            assertFalse(Readable.collective(c), c);
        }
        // a profile without it says what it lacks
        String old = TextReport.render(Fixtures.fourRanks());
        assertFalse(old.contains("Collectives: buffer bytes"), old);
        assertTrue(old.replace("\n  ", " ").contains("are not in this profile (written before jpmpi-profile-3)"), old);
    }

    @Test
    void withoutTheRankMatrixThePairsComeFromTheBlocks() {
        String r = TextReport.render(Fixtures.withoutRows(Fixtures.fourRanks()));
        assertTrue(r.contains("Rank pairs by bytes (sender to receiver; 1603 messages, 100MiB in all)"), r);
        String grouped = TextReport.render(Fixtures.withoutRows(Fixtures.ring(200, false)));
        assertTrue(grouped.contains("pairs of rank blocks by bytes"), grouped);
        assertTrue(grouped.lines().anyMatch(l -> words(l).size() == 6 && words(l).get(0).equals("0-2")), grouped);
        assertTrue(grouped.lines().noneMatch(l -> l.startsWith("| hosts")), grouped);
    }

    @Test
    void partialProfilesSayWhy() {
        String r = TextReport.render(Fixtures.ring(4, true));
        assertTrue(line(r, "jpmpi profile").contains("** PARTIAL **"), r);
        assertTrue(line(r, "PARTIAL ").contains("the profile does not cover the whole run:"), r);
        assertTrue(r.contains("|             rank 3: MPI_Abort(errorcode 2)"), r);
        List<String> reasons = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            reasons.add("rank " + i + ": exit without MPI_Finalize");
        }
        String many = TextReport.render(Fixtures.withReasons(Fixtures.fourRanks(), reasons));
        assertTrue(many.contains("rank 4: exit without MPI_Finalize"), many);
        assertFalse(many.contains("rank 5: exit"), many);
        assertTrue(many.contains("... and 4 more (profile.json)"), many);
        fitsAndIsDeterministic(Fixtures.withReasons(Fixtures.fourRanks(), reasons));
    }

    @Test
    void hostileAndLongStrings() {
        String exe = "/tmp/\u001b[31mred\u001b[0m/" + "very-long-directory/".repeat(12) + "a.out\r\nfake line\u202e";
        Profile p = Fixtures.withJob(Fixtures.fourRanks(), new Job(null, exe, null, 1, null, 3));
        String r = TextReport.render(p);
        for (char c : r.toCharArray()) {
            assertTrue(c == '\n' || (c >= 0x20 && c != 0x7f && c != '\u202e'), () -> "control character "
                    + (int) c + " in\n" + r);
        }
        assertTrue(r.contains("/tmp/?[31mred?[0m/very-long-directory/"), r);
        assertTrue(r.contains("a.out??fake line?"), r);
        assertTrue(line(r, "jpmpi profile").contains("job (no job id)"), r);
        assertEquals(List.of("mpi", "(unknown)"), words(line(r, "mpi ")));
        fitsAndIsDeterministic(p);
    }

    @Test
    void nothingRecorded() {
        Profile p = Fixtures.fourRanks();
        Profile empty = new Profile(p.schema(), false, List.of(), p.job(), 1,
                new Profile.Summary(Stat.ZERO, Stat.ZERO, Stat.ZERO, Stat.ZERO, Stat.ZERO, Stat.ZERO),
                new Profile.Overhead(0, 0, 0), List.of(), new long[0],
                new Profile.Blocks(new int[] {0}, new double[1], new double[1], new long[1][1], new long[1][1]),
                List.of(new Profile.RankRow(0, "h", 1, 0, 0, 0, null)), List.of(Profile.SparseRow.EMPTY),
                List.of(Profile.SparseRow.EMPTY));
        String r = TextReport.render(empty);
        assertTrue(r.contains("No MPI function was called while recording."), r);
        assertTrue(r.contains("Message sizes: no call was recorded."), r);
        assertTrue(r.contains("Rank pairs: no message between ranks was recorded."), r);
        fitsAndIsDeterministic(empty);
    }

    @Test
    void writeReportsWritesBothFilesAndReturnsTheText(@TempDir Path dir) throws Exception {
        Profile p = Fixtures.fourRanks();
        String text = Reports.writeReports(p, dir);
        assertEquals(text, Files.readString(dir.resolve("report.txt")));
        assertEquals(HtmlReport.render(p), Files.readString(dir.resolve("report.html")));
        Files.delete(dir.resolve("report.html"));
        Reports.writeReports(p, dir, false);
        assertFalse(Files.exists(dir.resolve("report.html")));
        try (var files = Files.list(dir)) {
            assertEquals(List.of(dir.resolve("report.txt")), files.toList());
        }
    }
}
