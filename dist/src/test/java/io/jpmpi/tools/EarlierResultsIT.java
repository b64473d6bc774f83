package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two jobs into one output directory (an --output named again, a job script run twice): the second
 * job's profile and reports are the second job's, and the first job's results are kept, moved into
 * earlier-<time> inside the directory. Through jpmpi run (which moves them before the job, in one
 * line), and by hand (the ranks started as jpmpi run's --dry-run prints, then jpmpi report, which
 * finds the earlier job's profile.json beside the later job's dumps). Before, the second jpmpi run
 * printed the path of the first job's report as its own, and jpmpi report showed the first job's.
 * A 3-rank pingpong first, then a 2-rank sendloop: another program and fewer ranks. Each installed MPI.
 */
class EarlierResultsIT {
    private static Path output(Impl impl, String how) throws Exception {
        Files.createDirectories(Jpmpi.RUNS);
        return Files.createTempDirectory(Jpmpi.RUNS, "twojobs-" + how + "-" + impl.id + "-").resolve("out");
    }

    private static List<String> job(Impl impl, Path out, boolean dryRun, int ranks, String... program) {
        List<String> options = new ArrayList<>(List.of("--tools", "profile", "--output", out.toString()));
        if (dryRun) {
            options.addFirst("--dry-run");
        }
        return LauncherIT.run(options, impl, ranks, program[0], List.of(program).subList(1, program.length)
                .toArray(String[]::new));
    }

    private static Path earlier(Path out) throws Exception {
        try (Stream<Path> s = Files.list(out)) {
            List<Path> all = s.filter(p -> p.getFileName().toString().startsWith("earlier-")).toList();
            assertEquals(1, all.size(), all::toString);
            return all.getFirst();
        }
    }

    private static void isOf(Path dir, String program, int ranks) throws Exception {
        Profile p = ProfileJson.read(dir.resolve("profile.json"));
        assertTrue(p.job().executable().endsWith("/" + program), p.job().executable());
        assertEquals(ranks, p.ranks(), dir::toString);
        assertTrue(Files.readString(dir.resolve("report.txt")).contains("/" + program + "\n")
                || Files.readString(dir.resolve("report.txt")).contains("/" + program + " "), dir::toString);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void jpmpiRunMovesTheEarlierJobsResultsAside(Impl impl) throws Exception {
        Path out = output(impl, "run");
        Jpmpi.Result first = Jpmpi.run(job(impl, out, false, 3, "pingpong", "5"));
        assertEquals(0, first.exit(), first::describe);
        isOf(out, "pingpong", 3);

        Jpmpi.Result second = Jpmpi.run(job(impl, out, false, 2, "sendloop", "1000"));
        assertEquals(0, second.exit(), second::describe);
        assertTrue(second.out().contains("sendloop rank 1: calls=1000"), second::describe);
        isOf(out, "sendloop", 2);
        Path kept = earlier(out);
        isOf(kept, "pingpong", 3);
        String said = "jpmpi: " + out + " held an earlier job's results: moved profile.json, report.txt, report.html"
                + " and sites/ to " + kept + "\n";
        assertTrue(second.err().contains(said), () -> said + second.describe());
        assertTrue(second.err().contains("jpmpi: profile: " + out.resolve("report.txt")), second::describe);
        assertFalse(Files.exists(out.resolve("ranks")), "a complete profile's dumps are removed: " + second.describe());
        assertEquals(0, first.err().lines().filter(l -> l.contains("held an earlier job")).count(), first::describe);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void jpmpiReportTakesTheLaterDumpsOverAnEarlierProfile(Impl impl) throws Exception {
        Path out = output(impl, "report");
        byHand(impl, out, 3, "pingpong", "5");
        Jpmpi.Result report1 = Jpmpi.run(List.of("report", "--quiet", out.toString()));
        assertEquals(0, report1.exit(), report1::describe);
        isOf(out, "pingpong", 3);

        // the later job's dumps (ranks 0 and 1) beside the earlier profile and the earlier rank 2's dump
        byHand(impl, out, 2, "sendloop", "1000");
        assertTrue(Files.exists(out.resolve("ranks/rank-2.bin")));
        Jpmpi.Result report2 = Jpmpi.run(List.of("report", out.toString()));
        assertEquals(0, report2.exit(), report2::describe);
        isOf(out, "sendloop", 2);
        assertTrue(report2.out().contains("/sendloop"), report2::describe);
        Path kept = earlier(out);
        isOf(kept, "pingpong", 3);
        String said = "jpmpi: report: profile.json, report.txt and report.html in " + out + " were of an earlier job"
                + " than the ranks' dumps: moved them to " + kept + "\n";
        assertTrue(report2.err().contains(said), () -> said + report2.describe());
    }

    /** The ranks started as jpmpi run would start them, without it: the command its --dry-run prints. */
    private static void byHand(Impl impl, Path out, int ranks, String... program) throws Exception {
        Jpmpi.Result dry = Jpmpi.run(job(impl, out, true, ranks, program));
        assertEquals(0, dry.exit(), dry::describe);
        String command = dry.out().strip();
        Path log = Files.createTempFile(Jpmpi.RUNS, "byhand-", ".log");
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("JPMPI_") || k.equals("LD_PRELOAD") || k.startsWith("OMPI_MCA_"));
        env.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        env.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        Process p = pb.start();
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        assertEquals(0, p.waitFor(), () -> command + "\n" + readQuietly(log));
    }

    private static String readQuietly(Path log) {
        try {
            return Files.readString(log);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
