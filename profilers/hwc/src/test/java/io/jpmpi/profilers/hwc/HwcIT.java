package io.jpmpi.profilers.hwc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jpmpi.testsupport.BuiltTools;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.testsupport.Pingpong;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The hwc tool (C level + Java level) on hwcloop.c under mpirun, every installed MPI: ITERS rounds
 * of N iterations of a 10-instruction asm block (4 floating-point operations) between MPI calls,
 * so every rank's application part is 10 x ITERS x N instructions and 4 x ITERS x N fp_ops, plus
 * a few hundred. The PMU cases are skipped, with the reason, where the tool found no usable PMU;
 * the software cases run everywhere.
 */
class HwcIT {
    static final int RANKS = 3;
    static final int ITERS = 10;
    static final long N = 2_000_000;
    static final String OUT = "hwc-out";

    static Stream<Arguments> pmuCases() {
        return MpiRun.implementations().flatMap(i -> Stream.of("auto", "rdpmc", "read").map(m -> Arguments.of(i, m)));
    }

    static Stream<Impl> impls() {
        return MpiRun.implementations();
    }

    /** The hwc tool's entry items: its C level, then its Java level. */
    static List<String> hwc(Impl impl) {
        Path lib = Path.of(System.getProperty("jpmpi.profile.native.dir", "target/native")).toAbsolutePath()
                .resolve(impl.id).resolve("libjpmpi-hwc.so");
        Path jar = Path.of(System.getProperty("jpmpi.hwc.jar", "target/jpmpi-hwc/jpmpi-hwc.jar")).toAbsolutePath();
        assertTrue(Files.isRegularFile(lib), () -> "missing " + lib + " (mvn compile builds it)");
        assertTrue(Files.isRegularFile(jar), () -> "missing " + jar + " (mvn process-classes builds it)");
        return List.of(lib.toString(), jar.toString());
    }

    static Result run(Impl impl, Map<String, String> env) {
        return run(impl, env, hwc(impl));
    }

    static Result run(Impl impl, Map<String, String> env, List<String> entry) {
        return loop(impl, env, entry, ITERS, N, false);
    }

    /** hwcloop iters n [times] under the tool. */
    static Result loop(Impl impl, Map<String, String> env, List<String> entry, int iters, long n, boolean times) {
        MpiRun run = MpiRun.on(impl).ranks(RANKS).env("JPMPI_OUTPUT_DIR", OUT)
                .levels(MpiRun.entry(entry.toArray(String[]::new))).java();
        env.forEach(run::env);
        Result r = (times ? run.run("hwcloop", Integer.toString(iters), Long.toString(n), "times")
                : run.run("hwcloop", Integer.toString(iters), Long.toString(n))).assertSuccess();
        assertEquals(1, r.countOut("hwcloop ranks=" + RANKS + " iters=" + iters + " n=" + n + " ok"), r::describe);
        return r;
    }

    static String json(Result r) {
        Path p = r.runDir().resolve(OUT).resolve("hwc.json");
        try {
            assertTrue(Files.size(r.runDir().resolve(OUT).resolve("hwc.txt")) > 0, r::describe);
            return Files.readString(p);
        } catch (IOException e) {
            return fail(p + ": " + e + "\n" + r.describe(), e);
        }
    }

    private static final Pattern FIELD = Pattern.compile("\"([\\w-]+)\":(-?[0-9.]+(?:[Ee][+-]?[0-9]+)?)");

    /** The numbers of one part ("app" or "mpi") of rank `rank`'s line of hwc.json. */
    static Map<String, Double> part(String json, int rank, String part) {
        String line = json.lines().filter(l -> l.contains("{\"rank\":" + rank + ",")).findFirst()
                .orElseThrow(() -> new AssertionError("no rank " + rank + " in\n" + json));
        int at = line.indexOf("\"" + part + "\":{");
        String obj = line.substring(at, line.indexOf('}', at));
        Map<String, Double> m = new HashMap<>();
        Matcher x = FIELD.matcher(obj);
        while (x.find()) {
            m.put(x.group(1), Double.parseDouble(x.group(2)));
        }
        return m;
    }

    static void near(double expected, double actual, String what, Result r) {
        assertTrue(Math.abs(actual - expected) <= 0.05 * expected,
                () -> what + ": " + actual + " is not within 5 % of " + expected + "\n" + r.describe());
    }

    @ParameterizedTest(name = "{0} read={1}")
    @MethodSource("pmuCases")
    void applicationInstructionsMatchTheLoop(Impl impl, String method) {
        Result r = run(impl, Map.of("JPMPI_HWC_READ", method, "JPMPI_HWC_MODE", "calls"));
        String json = json(r);
        String notice = r.err().stream().filter(l -> l.startsWith("jpmpi hwc: no usable")).findFirst()
                .orElse("the tool reported software counters");
        Assumptions.assumeTrue(json.contains("\"hardware\":true"), "no usable PMU on this machine: " + notice);
        assertTrue(json.contains("\"read\":\"" + (method.equals("auto") ? "" : method)), () -> json);
        boolean fp = json.contains("\"fp_ops\"");
        for (int rank = 0; rank < RANKS; rank++) {
            Map<String, Double> app = part(json, rank, "app");
            Map<String, Double> mpi = part(json, rank, "mpi");
            near(10.0 * ITERS * N, app.get("instructions"), "rank " + rank + " application instructions", r);
            if (fp) {
                near(4.0 * ITERS * N, app.get("fp_ops"), "rank " + rank + " application fp_ops", r);
            }
            assertTrue(mpi.get("instructions") > 0 && mpi.get("cycles") > 0, () -> "nothing inside MPI\n" + json);
            assertTrue(app.get("ipc") > 0 && app.get("instructions_per_s") > 0, () -> json);
        }
        assertTrue(json.contains("{\"name\":\"MPI_Allreduce\",\"calls\":" + RANKS * ITERS + ","), () -> json);
        assertTrue(json.contains("{\"name\":\"MPI_Barrier\",\"calls\":" + RANKS * ITERS + ","), () -> json);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void softwareEventsWhenAsked(Impl impl) {
        Result r = run(impl, Map.of("JPMPI_HWC_EVENTS", "software", "JPMPI_HWC_MODE", "calls"));
        String json = json(r);
        assertTrue(json.contains("\"hardware\":false"), () -> json);
        assertTrue(json.contains("\"mode\":\"calls\""), () -> json);
        assertTrue(json.contains("\"events\":[\"task-clock\",\"context-switches\",\"page-faults\"]"), () -> json);
        assertFalse(r.err().stream().anyMatch(l -> l.startsWith("jpmpi hwc: no usable")), r::describe);
        for (int rank = 0; rank < RANKS; rank++) {
            Map<String, Double> app = part(json, rank, "app");
            Map<String, Double> mpi = part(json, rank, "mpi");
            assertTrue(app.get("task-clock") > 1e6, () -> "the loop takes more than 1 ms of task-clock\n" + json);
            assertTrue(mpi.get("task-clock") > 0, () -> json);
        }
        assertTrue(json.contains("\"mpi_percent\":"), () -> json);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void fallbackIsOneNoticeAndNeverFailsTheJob(Impl impl) {
        Result r = run(impl, Map.of("JPMPI_HWC_EVENTS", "no-such-event"));
        String json = json(r);
        assertTrue(json.contains("\"hardware\":false"), () -> json);
        List<String> notices = r.err().stream().filter(l -> l.startsWith("jpmpi hwc: no usable hardware counters"))
                .toList();
        assertEquals(1, notices.size(), r::describe);
        assertEquals(1, r.err().stream().filter(l -> l.contains("unknown event 'no-such-event'")).count(),
                r::describe);
    }

    /** `--tools profile,hwc` and `--tools hwc,profile`: whichever writes last, the profile's reports end with hwc.txt. */
    @ParameterizedTest(name = "profile first: {0}")
    @ValueSource(booleans = {true, false})
    void theProfileReportsIncludeTheHwcSection(boolean profileFirst) throws IOException {
        Impl impl = MpiRun.implementations().findFirst().orElseThrow();
        List<String> profile = List.of(BuiltTools.recorder(impl).toString(), BuiltTools.profileJar().toString());
        List<String> entry = profileFirst ? Stream.concat(profile.stream(), hwc(impl).stream()).toList()
                : Stream.concat(hwc(impl).stream(), profile.stream()).toList();
        Result r = run(impl, Map.of("JPMPI_HWC_EVENTS", "software"), entry);
        Path dir = r.runDir().resolve(OUT);
        String hwcText = Files.readString(dir.resolve(HwcLevel.TEXT));
        String report = Files.readString(dir.resolve("report.txt"));
        String html = Files.readString(dir.resolve("report.html"));
        assertTrue(hwcText.startsWith("jpmpi hwc: " + RANKS + " ranks, software"), hwcText);
        assertTrue(report.startsWith("+---") && report.contains("| jpmpi profile"), () -> report);
        assertTrue(report.endsWith("\n" + hwcText), () -> "report.txt does not end with hwc.txt:\n" + report);
        assertTrue(html.contains("<h2>Hardware counters inside and outside MPI</h2>\n<pre>jpmpi hwc: " + RANKS
                + " ranks, software"), () -> html);
    }

    private static final Pattern OWN = Pattern.compile("hwcloop rank (\\d+) app_s=([0-9.]+) mpi_s=([0-9.]+)");

    /** The number `name` of rank `rank`'s line (top level of the rank object, after its parts). */
    static double rankField(String json, int rank, String name) {
        String line = json.lines().filter(l -> l.contains("{\"rank\":" + rank + ",")).findFirst()
                .orElseThrow(() -> new AssertionError("no rank " + rank + " in\n" + json));
        Matcher m = Pattern.compile("\"" + name + "\":(-?[0-9.]+(?:[Ee][+-]?[0-9]+)?)").matcher(line);
        assertTrue(m.find(), () -> "no " + name + " in " + line);
        return Double.parseDouble(m.group(1));
    }

    /**
     * Sampled mode with software events (task-clock overflows): every rank's application task-clock
     * within 5 % of the CPU time hwcloop measured in its own loop (CLOCK_THREAD_CPUTIME_ID), at 5000
     * samples per second of CPU time; the report says the mode, the samples and the interval.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void sampledSoftwareSplitMatchesTheProgramsOwnTiming(Impl impl) {
        Result r = loop(impl, Map.of("JPMPI_HWC_EVENTS", "software", "JPMPI_HWC_MODE", "sampled",
                "JPMPI_HWC_SAMPLING", "5000"), hwc(impl), 20, 6_000_000, true);
        String json = json(r);
        assertTrue(json.contains("\"mode\":\"sampled\",\"sampling_per_s\":5000"), () -> json);
        Map<Integer, Double> own = new HashMap<>();
        for (String l : r.out()) {
            Matcher m = OWN.matcher(l);
            if (m.matches()) {
                own.put(Integer.parseInt(m.group(1)), Double.parseDouble(m.group(2)));
            }
        }
        assertEquals(RANKS, own.size(), r::describe);
        for (int rank = 0; rank < RANKS; rank++) {
            Map<String, Double> app = part(json, rank, "app");
            near(own.get(rank) * 1e9, app.get("task-clock"), "rank " + rank + " sampled application task-clock", r);
            assertTrue(rankField(json, rank, "samples") >= 1000, () -> json);
            assertTrue(rankField(json, rank, "mpi_samples") > 0, () -> json);
            assertTrue(rankField(json, rank, "ci95_points") > 0, () -> json);
        }
        assertTrue(json.contains("\"mpi_ci95\":{\"mpi_percent\":["), () -> json);
        assertTrue(json.contains("\"samples\":") && json.contains("{\"name\":\"MPI_Allreduce\",\"calls\":0,\"samples\":"),
                () -> json);
        String text = r.runDir().resolve(OUT).resolve(HwcLevel.TEXT).toFile().exists() ? readText(r) : "";
        assertTrue(text.contains("split by sampling (5000 overflows per second"), text);
    }

    private static String readText(Result r) {
        try {
            return Files.readString(r.runDir().resolve(OUT).resolve(HwcLevel.TEXT));
        } catch (IOException e) {
            return fail(e);
        }
    }

    /** Sampled mode with a PMU: application instructions within 5 % of the loop's (skipped without a usable PMU). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void sampledHardwareSplitMatchesTheLoop(Impl impl) {
        Result r = loop(impl, Map.of("JPMPI_HWC_MODE", "sampled", "JPMPI_HWC_SAMPLING", "2000"), hwc(impl), 20,
                4_000_000, false);
        String json = json(r);
        Assumptions.assumeTrue(json.contains("\"hardware\":true"), "no usable PMU on this machine");
        assertTrue(json.contains("\"mode\":\"sampled\""), () -> json);
        for (int rank = 0; rank < RANKS; rank++) {
            near(10.0 * 20 * 4_000_000, part(json, rank, "app").get("instructions"),
                    "rank " + rank + " sampled application instructions", r);
        }
    }

    /** auto: sampled exactly when a call's two reads (the cheaper way, measured at MPI_Init) cost over 200 ns. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void autoChoosesByTheMeasuredReadCost(Impl impl) {
        String json = json(run(impl, Map.of()));
        Matcher read = Pattern.compile("\"read_ns\":([0-9.Ee+-]+)").matcher(json);
        assertTrue(read.find(), () -> json);
        double best = Double.parseDouble(read.group(1));
        Matcher rdpmc = Pattern.compile("\"rdpmc_ns\":([0-9.Ee+-]+)").matcher(json);
        if (rdpmc.find()) {
            best = Math.min(best, Double.parseDouble(rdpmc.group(1)));
        }
        String expected = 2 * best > 200 ? "sampled" : "calls";
        assertTrue(json.contains("\"mode\":\"" + expected + "\""), () -> "read cost " + json);
    }

    /** Sampled, the hardware events asked for where there are none: the software set, one notice, still sampled. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void sampledFallbackIsOneNotice(Impl impl) {
        Result r = run(impl, Map.of("JPMPI_HWC_EVENTS", "no-such-event", "JPMPI_HWC_MODE", "sampled"));
        String json = json(r);
        assertTrue(json.contains("\"mode\":\"sampled\""), () -> json);
        assertTrue(json.contains("\"events\":[\"task-clock\",\"context-switches\",\"page-faults\"]"), () -> json);
        assertEquals(1, r.err().stream().filter(l -> l.startsWith("jpmpi hwc: no usable hardware counters")).count(),
                r::describe);
    }

    /**
     * Sampled, and hwcloop calls MPI_Init (MPI_THREAD_SINGLE): the level leaves the chain right
     * after MPI_Init for every function but MPI_Init, MPI_Init_thread and MPI_Finalize (said once,
     * with `v`), each rank's line says so, and the counting levels above and below it still see
     * exactly the program's calls. The C level alone, so that it prints its line per rank.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void sampledLeavesTheChainWhenOnlyTheMainThreadCallsMpi(Impl impl) {
        int iters = 12;
        Result r = loop(impl, Map.of("JPMPI_HWC_EVENTS", "software", "JPMPI_HWC_MODE", "sampled", "JPMPI_HWC_SAMPLING",
                "2000"), List.of("v", impl.file("libcount.so"), hwc(impl).get(0), impl.file("libcount2.so")), iters,
                N, false);
        Pattern left = Pattern.compile("jpmpi: level 1 \\S+/libjpmpi-hwc\\.so left the chain for \\d+ functions, keeps 3");
        assertEquals(1, r.err().stream().filter(l -> left.matcher(l).matches()).count(), r::describe);
        assertEquals(RANKS, r.err().stream().filter(l -> l.startsWith("jpmpi hwc (pid ")
                && l.contains(" in MPI, wrappers left after MPI_Init) task-clock app=")).count(), r::describe);
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(Pingpong.counts(1, 0, 0, iters, iters, 1, 1), r.counts("count", rank), r::describe);
            assertEquals(Pingpong.counts(1, 0, 0, iters, iters, 1, 1), r.counts("count2", rank), r::describe);
        }
    }

    static Stream<Arguments> threadCases() {
        return MpiRun.implementations().flatMap(i -> Stream.of("calls", "sampled").map(m -> Arguments.of(i, m)));
    }

    /**
     * MPI_THREAD_MULTIPLE: hwcthreads' second thread is the only caller of MPI_Allgather; both
     * threads of every rank are counted, and MPI_Allgather has its calls (calls mode) or samples
     * (sampled mode). The wrappers stay in the chain (no level leaves it: `v` would say so).
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("threadCases")
    void theSecondThreadsCallsAreAttributed(Impl impl, String mode) {
        int rounds = 300;
        MpiRun run = MpiRun.on(impl).ranks(RANKS).env("JPMPI_OUTPUT_DIR", OUT)
                .levels(MpiRun.entry(Stream.concat(Stream.of("v"), hwc(impl).stream()).toArray(String[]::new))).java()
                .env("JPMPI_HWC_EVENTS", "software")
                .env("JPMPI_HWC_MODE", mode).env("JPMPI_HWC_SAMPLING", "2000");
        Result r = run.run("hwcthreads", Integer.toString(rounds)).assertSuccess();
        assertEquals(1, r.countOut("hwcthreads ranks=" + RANKS + " rounds=" + rounds + " ok"), r::describe);
        String json = json(r);
        assertTrue(json.contains("\"mode\":\"" + mode + "\""), () -> json);
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(2, (int) rankField(json, rank, "threads"), json);
        }
        Matcher m = Pattern.compile("\\{\"name\":\"MPI_Allgather\",\"calls\":(\\d+)(?:,\"samples\":(\\d+))?")
                .matcher(json);
        assertTrue(m.find(), () -> "MPI_Allgather is not in\n" + json);
        assertTrue(r.err().stream().noneMatch(l -> l.contains(" left the chain for ")), r::describe);
        if (mode.equals("calls")) {
            assertEquals(RANKS * rounds, Long.parseLong(m.group(1)), json);
        } else {
            assertTrue(Long.parseLong(m.group(2)) > 0, json);
        }
    }
}
