package io.jpmpi.profilers.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jpmpi.nativestubs.MpiRun;
import io.jpmpi.nativestubs.MpiRun.Impl;
import io.jpmpi.nativestubs.MpiRun.Result;
import io.jpmpi.profilers.it.ProfileRun;
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
 * tenth iteration, one MPI_Barrier): 8 jobs at once, split over the installed MPIs, append to one
 * file, which must then hold 8 whole lines with each job's ranks, executable and calls.
 */
class AccountingJobsTest {
    static final int JOBS = 8;

    static Path jar() {
        Path p = Path.of(System.getProperty("jpmpi.accounting.jar", "target/jpmpi-accounting/jpmpi-accounting.jar"))
                .toAbsolutePath();
        assertTrue(Files.isRegularFile(p), () -> "missing " + p + " (mvn process-classes builds it)");
        return p;
    }

    static MpiRun accounting(Impl impl, int ranks) {
        return MpiRun.on(impl).ranks(ranks).levels(MpiRun.entry(ProfileRun.recorder(impl).toString(), jar().toString())).java();
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
            jobs.add(new Job(impls.get(i % impls.size()), 2 + i % 2, 100 + 10 * i));
        }
        List<Result> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(JOBS)) {
            List<Future<Result>> running = new ArrayList<>();
            for (Job j : jobs) {
                running.add(pool.submit(() -> accounting(j.impl, j.ranks).env(AccountingLevel.FILE_VARIABLE,
                        file.toString()).run("acct", Integer.toString(j.iters))));
            }
            for (Future<Result> f : running) {
                results.add(f.get());
            }
        }
        for (int i = 0; i < JOBS; i++) {
            Result r = results.get(i).assertSuccess();
            assertEquals(1, r.countOut("acct ranks=" + jobs.get(i).ranks + " iters=" + jobs.get(i).iters + " ok"),
                    r::describe);
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
            assertTrue(line.length() < RecordSink.MAX_RECORD, line);
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

    static void check(AccountingRecord rec, Job j) {
        String why = rec.toString();
        assertEquals(1, rec.nodes(), why);
        assertTrue(rec.mpi().startsWith(j.impl.id + " "), why);
        assertEquals(System.getProperty("user.name"), rec.user(), why);
        assertTrue(rec.wallS() > 0 && rec.end().compareTo(rec.start()) >= 0, why);
        assertEquals(rec.ranks() * rec.wallS() / 3600, rec.coreH(), 1e-5, why);
        assertTrue(rec.mpiPct() > 0 && rec.mpiPct() <= 100, why);
        assertTrue(rec.acctMs() > 0, why);
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

    /** Without JPMPI_ACCOUNTING_FILE: a notice from rank 0, no record, no directory, the job succeeds. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.nativestubs.MpiRun#implementations")
    void noFileNoRecord(Impl impl) throws IOException {
        Result r = accounting(impl, 2).run("acct", "20").assertSuccess();
        assertEquals(1, r.err().stream().filter(l -> l.contains("accounting: JPMPI_ACCOUNTING_FILE is not set;"
                + " no record")).count(), r::describe);
        try (Stream<Path> left = Files.list(r.runDir())) {
            assertEquals(Set.of("stdout.txt", "stderr.txt"), left.map(p -> p.getFileName().toString())
                    .collect(Collectors.toSet()), r::describe);
        }
    }

    /**
     * The finalize cost, printed (not asserted: these 2-vCPU machines swing): a job long enough for
     * the warm-up started at MPI_Init to be over, as in production.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.nativestubs.MpiRun#implementations")
    void finalizeCost(Impl impl) throws Exception {
        Path file = Files.createTempDirectory(Files.createDirectories(MpiRun.RUNS_DIR), "accounting-").resolve("cost.jsonl");
        for (int i = 0; i < 3; i++) {
            accounting(impl, 2).env(AccountingLevel.FILE_VARIABLE, file.toString()).run("acct", "20000")
                    .assertSuccess();
        }
        List<Double> ms = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            ms.add(AccountingRecord.parse(line).acctMs());
        }
        assertEquals(3, ms.size());
        System.out.println("accounting: " + impl.id + " 2 ranks, finalize cost (acct_ms) of 3 jobs: " + ms
                + " ms " + Map.of("budget", "50 ms"));
    }
}
