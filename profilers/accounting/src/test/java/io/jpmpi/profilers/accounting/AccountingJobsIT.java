package io.jpmpi.profilers.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jpmpi.testsupport.BuiltTools;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The accounting tool in real jobs (src/test/c/acct.c: ITERS MPI_Allreduce, an MPI_Bcast every
 * tenth iteration, one MPI_Barrier; every rank says whether a JVM is in its process): 8 jobs at
 * once, split over the installed MPIs, append to one file, which must then hold 8 whole lines with
 * each job's ranks, executable and calls; the tool alone starts no JVM and makes no profile
 * directory; with the profile and hwc tools the record is the same and they still write theirs.
 */
class AccountingJobsIT {
    static final int JOBS = 8;
    static final String FILE_VARIABLE = "JPMPI_ACCOUNTING_FILE";
    static final String OUT = "tools-out";

    static Path level(Impl impl, String file) {
        Path p = Path.of(System.getProperty("jpmpi.profile.native.dir", "target/native")).toAbsolutePath()
                .resolve(impl.id).resolve(file);
        assertTrue(Files.isRegularFile(p), () -> "missing " + p + " (mvn compile builds it)");
        return p;
    }

    static Path jar(String property, String path) {
        Path p = Path.of(System.getProperty(property, path)).toAbsolutePath();
        assertTrue(Files.isRegularFile(p), () -> "missing " + p + " (mvn process-classes builds it)");
        return p;
    }

    /** The files of the tools these tests list, for one MPI. */
    record Parts(String recorder, String accounting, String profileJar, String hwc, String hwcJar) {
        static Parts of(Impl impl) {
            return new Parts(BuiltTools.recorder(impl).toString(), level(impl, "libjpmpi-accounting.so").toString(),
                    jar("jpmpi.profile.jar", "target/jpmpi-profile/jpmpi-profile.jar").toString(),
                    level(impl, "libjpmpi-hwc.so").toString(), jar("jpmpi.hwc.jar", "target/jpmpi-hwc/jpmpi-hwc.jar")
                    .toString());
        }
    }

    /** The recorder over the accounting level (counted: every call timed; --tools profile,accounting). */
    static MpiRun accounting(Impl impl, int ranks) {
        Parts p = Parts.of(impl);
        return MpiRun.on(impl).ranks(ranks).levels(MpiRun.entry(p.recorder, p.accounting));
    }

    /** The accounting tool alone, as --tools accounting lists it: one C level that samples. */
    static MpiRun sampled(Impl impl, int ranks) {
        return MpiRun.on(impl).ranks(ranks).levels(Parts.of(impl).accounting);
    }

    /** Every rank of `r` said whether it has a JVM: all the same, `jvm`. */
    static void jvm(Result r, int ranks, boolean jvm) {
        for (int rank = 0; rank < ranks; rank++) {
            String said = "acct rank=" + rank + " jvm=" + (jvm ? 1 : 0) + " ";
            assertEquals(1, r.out().stream().filter(l -> l.startsWith(said)).count(), r::describe);
        }
    }

    /** One job of the test: where it runs, its ranks and iterations. */
    record Job(Impl impl, int ranks, int iters) {
        long allreduces() {
            return (long) ranks * iters;
        }

        long bcasts() {
            return (long) ranks * ((iters + 9) / 10);
        }
    }

    @Test
    void concurrentJobsAppendWholeLines() throws Exception {
        List<Impl> impls = MpiRun.implementations().toList();
        assertFalse(impls.isEmpty(), "no MPI installed");
        Path file = Files.createTempDirectory(Files.createDirectories(MpiRun.RUNS_DIR), "accounting-").resolve("jobs.jsonl");
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            jobs.add(new Job(impls.get(i % impls.size()), 2 + i / impls.size() % 2, 100 + 10 * i));
        }
        List<Result> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(JOBS)) {
            List<Future<Result>> running = new ArrayList<>();
            for (Job j : jobs) {
                // USER and LOGNAME say someone else: the record's user is the kernel's (the real uid's name)
                running.add(pool.submit(() -> accounting(j.impl, j.ranks).env(FILE_VARIABLE, file.toString())
                        .env("USER", "alice").env("LOGNAME", "alice")
                        .run("acct", Integer.toString(j.iters))));
            }
            for (Future<Result> f : running) {
                results.add(f.get());
            }
        }
        for (int i = 0; i < JOBS; i++) {
            Result r = results.get(i).assertSuccess();
            assertEquals(1, r.countOut("acct ranks=" + jobs.get(i).ranks + " iters=" + jobs.get(i).iters + " ok"),
                    r::describe);
            jvm(r, jobs.get(i).ranks, false);
            assertEquals(List.of(), r.err(), r::describe);
            try (Stream<Path> left = Files.list(r.runDir())) {
                assertEquals(List.of(), left.filter(p -> p.getFileName().toString().startsWith("jpmpi-")).toList(),
                        () -> "the recorder made a profile directory for accounting alone\n" + r.describe());
            }
        }
        String text = Files.readString(file);
        assertTrue(text.endsWith("\n"), text);
        List<String> lines = text.lines().toList();
        assertEquals(JOBS, lines.size(), text);
        List<AccountingRecord> records = new ArrayList<>();
        for (String line : lines) {
            assertTrue(line.length() < AccountingRecord.MAX_RECORD, line);
            assertFalse(line.contains("\"hwc\""), () -> "no counters tool, no hwc: " + line);
            records.add(AccountingRecord.parse(line));
        }
        Set<String> ids = records.stream().map(AccountingRecord::job).collect(Collectors.toSet());
        assertEquals(JOBS, ids.size(), () -> "job ids not distinct: " + text);
        Set<Job> matched = new HashSet<>();
        for (AccountingRecord rec : records) {
            Job j = jobs.stream().filter(job -> rec.exe().equals(job.impl.file("acct")) && rec.ranks() == job.ranks
                    && calls(rec, "MPI_Allreduce") == job.allreduces()).findFirst()
                    .orElseGet(() -> fail("no job matches " + rec + "\n" + text));
            assertTrue(matched.add(j), () -> "two records for " + j);
            check(rec, j);
            System.out.printf("accounting: %s %d ranks: finalize cost %.1f ms (acct_ms; the job ran %.2f s)%n",
                    j.impl.id, j.ranks, rec.acctMs(), rec.wallS());
        }
    }

    static long calls(AccountingRecord r, String function) {
        return r.top().stream().filter(t -> t.function().equals(function)).mapToLong(AccountingRecord.Top::calls)
                .findFirst().orElse(-1);
    }

    /** core_h is written with 6 decimals and wall_s with 3: how far ranks * wall_s / 3600 may be from it. */
    static double coreHoursRounding(AccountingRecord rec) {
        return 0.5e-6 + rec.ranks() * 0.5e-3 / 3600 + 1e-9;
    }

    static void check(AccountingRecord rec, Job j) {
        String why = rec.toString();
        assertEquals(1, rec.nodes(), why);
        assertTrue(rec.mpi().startsWith(j.impl.id + " "), why);
        assertEquals(System.getProperty("user.name"), rec.user(), why);
        assertTrue(rec.wallS() > 0 && rec.end().compareTo(rec.start()) >= 0, why);
        assertEquals(rec.ranks() * rec.wallS() / 3600, rec.coreH(), coreHoursRounding(rec), why);
        assertTrue(rec.mpiPct() > 0 && rec.mpiPct() <= 100, why);
        assertTrue(rec.acctMs() >= 0, why); // present (NaN when missing); 0 when under 0.05 ms
        // What acct.c calls: the two collectives with their exact counts, the barrier once per rank.
        assertEquals(5, rec.top().size(), why);
        assertEquals(j.allreduces(), calls(rec, "MPI_Allreduce"), why);
        assertEquals(j.bcasts(), calls(rec, "MPI_Bcast"), why);
        assertEquals(j.ranks, calls(rec, "MPI_Barrier"), why);
        for (int i = 1; i < rec.top().size(); i++) {
            assertTrue(rec.top().get(i - 1).seconds() >= rec.top().get(i).seconds(), why);
        }
        assertNull(rec.hwc(), why);
    }

    /** What src/test/c/acctsplit.c measured itself, summed over the ranks (nanoseconds of wall time). */
    record Split(long total, long mpi, long allreduce, long barrier) {
        static Split of(Result r, int ranks) {
            long[] sums = new long[4];
            int seen = 0;
            for (String line : r.out()) {
                if (line.startsWith("split rank=")) {
                    seen++;
                    String[] f = line.split(" ");
                    for (int i = 0; i < 4; i++) {
                        sums[i] += Long.parseLong(f[2 + i].substring(f[2 + i].indexOf('=') + 1));
                    }
                }
            }
            assertEquals(ranks, seen, r::describe);
            return new Split(sums[0], sums[1], sums[2], sums[3]);
        }
    }

    static double seconds(AccountingRecord r, String function) {
        return r.top().stream().filter(t -> t.function().equals(function)).mapToDouble(AccountingRecord.Top::seconds)
                .findFirst().orElse(0);
    }

    /**
     * The tool alone samples (no recorder: nothing on any MPI call), and its MPI % and top match
     * what the program measured around its own calls: 2 ranks computing random lengths between an
     * MPI_Allreduce and, every fourth round, an MPI_Barrier where rank 1 waits for rank 0, 1000
     * samples a second for 3 s. Within 6 points of MPI %, and each function's seconds within 6 % of
     * the job's time (a binomial error of about 1 point with these samples); the top has no calls.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void sampledAloneMatchesTheMeasuredSplit(Impl impl) throws Exception {
        Path file = Files.createTempDirectory(Files.createDirectories(MpiRun.RUNS_DIR), "accounting-").resolve("s.jsonl");
        int ranks = 2;
        Result r = sampled(impl, ranks).env(FILE_VARIABLE, file.toString()).env("JPMPI_ACCOUNTING_SAMPLING", "1000")
                .run("acctsplit", "3").assertSuccess();
        assertEquals(List.of(), r.err(), r::describe);
        List<String> lines = Files.readAllLines(file);
        assertEquals(1, lines.size(), r::describe);
        AccountingRecord rec = AccountingRecord.parse(lines.get(0));
        Split split = Split.of(r, ranks);
        String why = lines.get(0) + "\n" + split + "\n" + r.describe();
        assertTrue(rec.sampled(), why);
        assertEquals(ranks, rec.ranks(), why);
        assertEquals(1, rec.nodes(), why);
        assertEquals(rec.ranks() * rec.wallS() / 3600, rec.coreH(), coreHoursRounding(rec), why);
        double expected = 100.0 * split.mpi / split.total;
        System.out.printf("accounting: %s sampled MPI %% %.2f, measured %.2f; MPI_Allreduce %.3f s (measured %.3f),"
                + " MPI_Barrier %.3f s (measured %.3f), %d samples%n", impl.id, rec.mpiPct(), expected,
                seconds(rec, "MPI_Allreduce"), split.allreduce / 1e9, seconds(rec, "MPI_Barrier"), split.barrier / 1e9,
                rec.samples());
        // How close the figures come is measured by benchmarks/accounting/accuracy.sh, not asserted here:
        // on a shared 2-vCPU machine a job's timing swings. What is exact: only functions the program
        // calls (a sample can land in MPI_Init or MPI_Finalize too), seconds and no calls, the loop's
        // collective sampled (about a quarter of 3 s at 1000 samples a second), an MPI % in range.
        for (AccountingRecord.Top t : rec.top()) {
            assertTrue(Set.of("MPI_Allreduce", "MPI_Barrier", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Init",
                    "MPI_Finalize").contains(t.function()), why);
            assertEquals(-1, t.calls(), why);
        }
        assertTrue(seconds(rec, "MPI_Allreduce") > 0, why);
        assertTrue(rec.samples() > 0 && rec.mpiPct() > 0 && rec.mpiPct() < 100, why);
    }

    /**
     * JPMPI_ACCOUNTING_SAMPLING=0 is a choice, not a failure: no sampler, nothing said on any rank, and
     * a record whose MPI % and top are empty with 0 samples (which is what says that they are not
     * figures).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void sampledAtRateZeroSaysNothing(Impl impl) throws Exception {
        Path file = Files.createTempDirectory(Files.createDirectories(MpiRun.RUNS_DIR), "accounting-").resolve("z.jsonl");
        Result r = sampled(impl, 2).env(FILE_VARIABLE, file.toString()).env("JPMPI_ACCOUNTING_SAMPLING", "0")
                .run("acctsplit", "0.3").assertSuccess();
        Split.of(r, 2);
        assertEquals(List.of(), r.err(), r::describe);
        List<String> lines = Files.readAllLines(file);
        assertEquals(1, lines.size(), r::describe);
        AccountingRecord rec = AccountingRecord.parse(lines.get(0));
        assertTrue(rec.sampled() && rec.samples() == 0 && rec.mpiPct() == 0 && rec.top().isEmpty(), rec::toString);
        assertEquals(2, rec.ranks(), rec::toString);
    }

    /**
     * A program with its own SIGPROF handler keeps it: the tool does not sample (one line from each
     * rank but 0, one from rank 0 at MPI_Finalize naming SIGPROF), the record is still written
     * (no MPI %, no top, 0 samples) and the program's results are unchanged. A bad rate is said and
     * the default taken.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void sampledNeverTakesTheProgramsSigprof(Impl impl) throws Exception {
        Path file = Files.createTempDirectory(Files.createDirectories(MpiRun.RUNS_DIR), "accounting-").resolve("p.jsonl");
        Result r = sampled(impl, 2).env(FILE_VARIABLE, file.toString()).run("acctsplit", "0.2", "--own-sigprof")
                .assertSuccess();
        Split.of(r, 2);
        String taken = "SIGPROF is taken (the program or another profiler set a handler)";
        assertEquals(Set.of("jpmpi (rank 1): accounting: cannot sample: " + taken,
                "jpmpi (rank 0): accounting: 2 of 2 ranks could not sample (rank 0: " + taken
                        + "); MPI % and top are from the others"), Set.copyOf(r.err()), r::describe);
        AccountingRecord rec = AccountingRecord.parse(Files.readAllLines(file).get(0));
        assertTrue(rec.sampled() && rec.samples() == 0 && rec.mpiPct() == 0 && rec.top().isEmpty(), rec::toString);

        Result bad = sampled(impl, 2).env(FILE_VARIABLE, file.toString()).env("JPMPI_ACCOUNTING_SAMPLING", "fast")
                .run("acctsplit", "0.5").assertSuccess();
        assertEquals(List.of("jpmpi (rank 0): accounting: JPMPI_ACCOUNTING_SAMPLING='fast' is not a rate from 0 to"
                + " 10000 per second; sampling at 20"), bad.err(), bad::describe);
        AccountingRecord second = AccountingRecord.parse(Files.readAllLines(file).get(1));
        assertTrue(second.samples() > 0, second::toString);
    }

    /**
     * Jobs of more ranks than one MPI_Gather takes count nodes with MPI_Comm_split_type and take the
     * longest time with an MPI_Reduce: the same record (a test build of the level switches at 2).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void largeJobsTheOtherWay(Impl impl) throws Exception {
        Path split = Path.of(System.getProperty("jpmpi.accounting.test.dir", "target/test-native")).toAbsolutePath()
                .resolve(impl.id).resolve("libjpmpi-accounting-split.so");
        assertTrue(Files.isRegularFile(split), () -> "missing " + split + " (mvn test-compile builds it)");
        Path file = Files.createTempDirectory(Files.createDirectories(MpiRun.RUNS_DIR), "accounting-").resolve("s.jsonl");
        Job j = new Job(impl, 3, 120);
        Result r = MpiRun.on(impl).ranks(j.ranks).levels(MpiRun.entry(Parts.of(impl).recorder, split.toString())).env(FILE_VARIABLE, file.toString()).run("acct", Integer.toString(j.iters))
                .assertSuccess();
        assertEquals(List.of(), r.err(), r::describe);
        List<String> lines = Files.readAllLines(file);
        assertEquals(1, lines.size(), r::describe);
        AccountingRecord rec = AccountingRecord.parse(lines.get(0));
        assertEquals(j.ranks, rec.ranks(), lines.get(0));
        check(rec, j);
    }

    /** Without JPMPI_ACCOUNTING_FILE: a notice from rank 0, no record, no directory, the job succeeds. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void noFileNoRecord(Impl impl) throws IOException {
        Result r = accounting(impl, 2).run("acct", "20").assertSuccess();
        assertEquals(List.of("jpmpi (rank 0): accounting: JPMPI_ACCOUNTING_FILE is not set; no record"), r.err(),
                r::describe);
        try (Stream<Path> left = Files.list(r.runDir())) {
            assertEquals(Set.of("stdout.txt", "stderr.txt"), left.map(p -> p.getFileName().toString())
                    .collect(Collectors.toSet()), r::describe);
        }
    }

    /**
     * A file that cannot be written (here: a directory) loses the record with one line from rank 0,
     * and the job succeeds; syslog takes it without a file or a message.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void aBadTargetNeverFailsTheJob(Impl impl) throws IOException {
        Path dir = Files.createTempDirectory(Files.createDirectories(MpiRun.RUNS_DIR), "accounting-");
        Result r = accounting(impl, 3).env(FILE_VARIABLE, dir.toString()).run("acct", "20").assertSuccess();
        assertEquals(List.of("jpmpi (rank 0): accounting: cannot append the record to " + dir + " (Is a directory)"),
                r.err(), r::describe);
        Result s = accounting(impl, 2).env(FILE_VARIABLE, "syslog").run("acct", "20").assertSuccess();
        assertEquals(List.of(), s.err(), s::describe);
        try (Stream<Path> left = Files.list(s.runDir())) {
            assertEquals(Set.of("stdout.txt", "stderr.txt"), left.map(p -> p.getFileName().toString())
                    .collect(Collectors.toSet()), s::describe);
        }
    }

    /** A job with other tools (a JVM) over the accounting tool, and the one record it appended. */
    record WithOthers(Result result, AccountingRecord record, String line) {
        static WithOthers run(Job j, String entry, String... env) throws Exception {
            Path file = Files.createTempDirectory(Files.createDirectories(MpiRun.RUNS_DIR), "accounting-").resolve("r.jsonl");
            MpiRun run = MpiRun.on(j.impl).ranks(j.ranks).levels(entry).java().env(FILE_VARIABLE, file.toString())
                    .env("JPMPI_OUTPUT_DIR", OUT);
            for (int i = 0; i < env.length; i += 2) {
                run.env(env[i], env[i + 1]);
            }
            Result r = run.run("acct", Integer.toString(j.iters)).assertSuccess();
            jvm(r, j.ranks, true);
            List<String> lines = Files.readAllLines(file);
            assertEquals(1, lines.size(), r::describe);
            return new WithOthers(r, AccountingRecord.parse(lines.get(0)), lines.get(0));
        }

        Path output(String file) {
            return result.runDir().resolve(OUT).resolve(file);
        }
    }

    /**
     * With the profile tool too (its Java level: a JVM), in either order: one recorder, the profile
     * written as without accounting, and the same record.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void withTheProfileTool(Impl impl) throws Exception {
        Parts p = Parts.of(impl);
        // What --tools profile,accounting and --tools accounting,profile list: the recorder above the
        // accounting level gives it every call; below, it samples (its own calls reach no level).
        Job j = new Job(impl, 3, 50);
        boolean counted = impl == Impl.OPENMPI;
        WithOthers w = WithOthers.run(j, counted ? MpiRun.entry(p.recorder, p.profileJar, p.accounting)
                : MpiRun.entry(p.accounting, p.recorder, p.profileJar));
        assertTrue(Files.size(w.output("profile.json")) > 0, w.result::describe);
        assertTrue(Files.isRegularFile(w.output("report.txt")), w.result::describe);
        assertEquals(j.ranks, w.record.ranks(), w.line);
        if (counted) {
            check(w.record, j);
        } else {
            assertTrue(w.record.sampled(), w.line);
            // The profile has the program's calls only: none of the accounting level's own.
            String profile = Files.readString(w.output("profile.json"));
            for (String own : List.of("MPI_Igather", "MPI_Ireduce", "MPI_Comm_idup", "MPI_Test")) {
                assertFalse(profile.contains("\"" + own + "\""), () -> own + " in the profile\n" + profile);
            }
        }
    }

    /**
     * With the hwc tool above (as --tools hwc,accounting lists it; software events, so that it runs
     * on any machine): the record has the counters, summed over the ranks.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void withTheHwcTool(Impl impl) throws Exception {
        Job j = new Job(impl, 2, 200);
        Parts p = Parts.of(impl);
        // Counted per call: a job this short has few task-clock overflows, maybe none inside MPI, when sampled.
        WithOthers w = WithOthers.run(j, MpiRun.entry(p.hwc, p.hwcJar, p.recorder, p.accounting),
                "JPMPI_HWC_EVENTS", "software", "JPMPI_HWC_MODE", "calls");
        assertTrue(Files.size(w.output("hwc.json")) > 0, w.result::describe);
        AccountingRecord rec = w.record;
        assertEquals(j.allreduces(), calls(rec, "MPI_Allreduce"), w.line);
        assertNotNull(rec.hwc(), w.line);
        assertFalse(rec.hwc().hardware(), w.line);
        assertEquals(List.of("task-clock", "context-switches", "page-faults"), List.copyOf(rec.hwc().events().keySet()),
                w.line);
        AccountingRecord.Event clock = rec.hwc().events().get("task-clock");
        // Two ranks of 200 iterations of 20,000 additions: well over a millisecond of task-clock (ns).
        assertTrue(clock.total() > 1_000_000 && clock.mpi() > 0 && clock.mpi() < clock.total(), w.line);
    }

    /**
     * A job that aborts leaves no record (there is no MPI_Finalize); the recorder dumps the aborting
     * rank when the profile tool is listed too (its Java level said the output is needed), and
     * makes no directory for the accounting tool alone (it said none is).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void anAbortLeavesRankDumpsOnlyForTheProfileTool(Impl impl) throws Exception {
        Parts p = Parts.of(impl);
        Path file = Files.createTempDirectory(Files.createDirectories(MpiRun.RUNS_DIR), "accounting-").resolve("x.jsonl");
        Result alone = accounting(impl, 2).env(FILE_VARIABLE, file.toString()).env("JPMPI_OUTPUT_DIR", OUT)
                .run("early", "abort");
        aborted(alone);
        assertFalse(Files.exists(alone.runDir().resolve(OUT)), alone::describe);
        Result both = MpiRun.on(impl).ranks(2).levels(MpiRun.entry(p.recorder, p.accounting, p.profileJar)).java()
                .env(FILE_VARIABLE, file.toString()).env("JPMPI_OUTPUT_DIR", OUT).run("early", "abort");
        aborted(both);
        assertTrue(Files.isRegularFile(both.runDir().resolve(OUT).resolve("ranks").resolve("rank-1.bin")),
                both::describe);
        assertFalse(Files.exists(file), () -> "a record without MPI_Finalize\n" + both.describe());
    }

    /**
     * The run ended in rank 1's MPI_Abort: a failed status, and its line at most once (hydra may kill
     * its proxies before it has passed the aborting rank's last output on).
     */
    static void aborted(Result r) {
        assertFalse(r.timedOut(), r::describe);
        assertTrue(r.exit() != 0, r::describe);
        assertTrue(r.countOut("early abort rank 1") <= 1, r::describe);
        assertEquals(0, r.countOut("early survived"), r::describe);
    }

    /**
     * The finalize cost (acct_ms) is in every record, printed here for a few seconds' jobs; its
     * budget (50 ms) is measured by benchmarks/accounting/run.sh, not asserted on a shared machine.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void finalizeCost(Impl impl) throws Exception {
        Path file = Files.createTempDirectory(Files.createDirectories(MpiRun.RUNS_DIR), "accounting-").resolve("cost.jsonl");
        for (int i = 0; i < 3; i++) {
            accounting(impl, 2).env(FILE_VARIABLE, file.toString()).run("acct", "20000").assertSuccess();
        }
        List<Double> ms = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            ms.add(AccountingRecord.parse(line).acctMs());
        }
        assertEquals(3, ms.size());
        System.out.println("accounting: " + impl.id + " 2 ranks, finalize cost (acct_ms) of 3 jobs: " + ms
                + " ms " + Map.of("budget", "50 ms"));
        assertTrue(ms.stream().allMatch(v -> v >= 0), () -> "acct_ms " + ms);
    }
}
