package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.profilers.profile.RankDumps;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileDetails;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The launcher's warm-up while a job runs ({@link Warmup}): the development installation has its sample
 * (the ranks' dumps the launcher's AOT training kept), the warm-up goes through it without changing it,
 * and a real job's dumps (pingpong, 2 ranks, the profile tool's recorder started as jpmpi run starts it)
 * become the very same profile.json, report.txt and report.html, byte for byte, and no other file,
 * whether merged without a warm-up, after one, while one runs, or early ({@link EarlyMerge}: the
 * dumps arriving as rank 0 writes them, merged by the warm-up's thread before the "job" ends); an
 * early merge is not taken when a file changed after it, nor made of an earlier job's dumps;
 * {@code JPMPI_LAUNCHER_WARMUP=off} starts none.
 */
class WarmupIT {
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void theReportsAreTheSameWithAndWithoutTheWarmupWhichWritesNothing(Impl impl) throws Exception {
        Layout layout = new Layout(Jpmpi.HOME);
        Path sample = layout.launcherSample();
        assertTrue(RankDumps.present(sample), () -> sample + ": no sample (the launcher's AOT training keeps one)");
        Map<String, String> sampleBefore = contents(sample);

        Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "warmup-");
        Path dumps = dir.resolve("dumps");
        List<String> words = new ArrayList<>(LauncherIT.launcher(impl, 2));
        words.add(impl.file("pingpong"));
        Map<String, String> env = new HashMap<>(System.getenv());
        env.keySet().removeIf(k -> k.startsWith("JPMPI_") || k.equals("LD_PRELOAD") || k.startsWith("OMPI_MCA_"));
        Job job = Job.plan(layout, new Job.Request(words, "profile", dumps, Optional.empty(), true), env);
        ProcessBuilder pb = new ProcessBuilder(job.command()).directory(dir.toFile())
                .redirectOutput(dir.resolve("job.txt").toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.environment().putAll(job.launcherEnv());
        pb.environment().putAll(Map.of("OMPI_ALLOW_RUN_AS_ROOT", "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"));
        Process p = pb.start();
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the job did not end");
        String describe = "exit " + p.exitValue() + " (files in " + dir + ")\n" + Files.readString(dir.resolve("job.txt"));
        assertEquals(0, p.exitValue(), describe);
        assertTrue(RankDumps.present(dumps), describe);

        // the same dumps and the same header three times: no warm-up, after a whole one, while one runs
        PrintWriter nowhere = new PrintWriter(Writer.nullWriter());
        Context ctx = new Context(layout, env, nowhere, nowhere);
        ProfileDetails.Run run = new ProfileDetails.Run(ProfileDetails.FROM_LAUNCHER, words, "profile",
                dumps.toString(), 1.25, Map.of("JPMPI_TOOLS_ENTRY", "profile"));
        Path cold = copy(dumps, dir.resolve("cold"));
        ProfileOutput.finish(ctx, cold, run);
        Map<String, String> expected = contents(cold);
        assertTrue(expected.containsKey("report.html") && expected.containsKey("profile.json"), expected::toString);

        Warmup whole = Warmup.start(ctx).orElseThrow();
        for (int i = 0; i < 1200 && !whole.done(); i++) {
            Thread.sleep(100); // at nice 19: it takes what the machine leaves it
        }
        assertTrue(whole.done(), "the warm-up did not go through the sample " + sample);
        Path warm = copy(dumps, dir.resolve("warm"));
        ProfileOutput.finish(ctx, warm, run);
        assertEquals(expected, contents(warm));

        Path during = copy(dumps, dir.resolve("during"));
        Warmup running = Warmup.start(ctx).orElseThrow();
        ProfileOutput.finish(ctx, during, run);
        running.stop();
        assertEquals(expected, contents(during));

        // the early merge: the dumps come into the output directory while the warm-up's thread watches it,
        // as rank 0 writes them (each file renamed into place; finalize-0.txt last)
        Path early = Files.createDirectory(dir.resolve("early"));
        Warmup watching = Warmup.start(ctx, early).orElseThrow();
        arrive(dumps, early);
        Optional<Profile> merged = Optional.empty();
        for (int i = 0; i < 1200 && merged.isEmpty(); i++) {
            Thread.sleep(100);
            merged = watching.earlyForTests();
        }
        assertTrue(merged.isPresent(), "no early merge of " + early);
        watching.stop();
        Optional<Profile> taken = watching.merged();
        assertTrue(taken.isPresent(), "the early merge was not taken, the files unchanged");
        ProfileOutput.finish(ctx, early, run, taken);
        assertEquals(expected, contents(early));

        // a file changed after the early merge: it is not taken (the launcher merges again)
        Path changed = Files.createDirectory(dir.resolve("changed"));
        Warmup second = Warmup.start(ctx, changed).orElseThrow();
        arrive(dumps, changed);
        for (int i = 0; i < 1200 && second.earlyForTests().isEmpty(); i++) {
            Thread.sleep(100);
        }
        assertTrue(second.earlyForTests().isPresent(), "no early merge of " + changed);
        Path table = changed.resolve("sites/rank-1.tsv");
        Files.writeString(table, Files.readString(table));
        Files.setLastModifiedTime(table, FileTime.fromMillis(1000));
        second.stop();
        assertTrue(second.merged().isEmpty(), "an early merge taken after " + table + " changed");
        ProfileOutput.finish(ctx, changed, run, Optional.empty());
        assertEquals(expected, contents(changed));

        // an earlier job's complete dumps in the directory are not this job's: no early merge of them
        Path stale = copy(dumps, dir.resolve("stale"));
        Warmup third = Warmup.start(ctx, stale).orElseThrow();
        for (int i = 0; i < 1200 && !third.done(); i++) {
            Thread.sleep(100);
        }
        Thread.sleep(2 * EarlyMerge.LOOK_EVERY_MS);
        third.stop();
        assertTrue(third.merged().isEmpty(), "an earlier job's dumps merged early");

        assertEquals(sampleBefore, contents(sample), "the warm-up changed its sample");
        Map<String, String> off = new HashMap<>(env);
        off.put("JPMPI_LAUNCHER_WARMUP", "off");
        assertTrue(Warmup.start(new Context(layout, off, nowhere, nowhere)).isEmpty());
    }

    /** Every file under {@code dir}: its path in it and its bytes (as ISO-8859-1 text, for the message). */
    private static Map<String, String> contents(Path dir) throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (var all = Files.walk(dir)) {
            for (Path f : all.filter(Files::isRegularFile).toList()) {
                m.put(dir.relativize(f).toString(), new String(Files.readAllBytes(f), java.nio.charset.StandardCharsets.ISO_8859_1));
            }
        }
        return m;
    }

    /**
     * The files of {@code from} put into {@code to} as the ranks put them: the call-site tables, run-0.txt,
     * the dumps from rank 0 up, then finalize-0.txt; each written beside its place and renamed into it.
     */
    private static void arrive(Path from, Path to) throws IOException, InterruptedException {
        List<String> order = new ArrayList<>();
        try (var sites = Files.list(from.resolve("sites"))) {
            sites.map(f -> "sites/" + f.getFileName()).sorted().forEach(order::add);
        }
        order.add("ranks/run-0.txt");
        for (int r = 0; Files.exists(from.resolve("ranks/rank-" + r + ".bin")); r++) {
            order.add("ranks/rank-" + r + ".bin");
        }
        order.add("ranks/finalize-0.txt");
        for (String name : order) {
            Path t = to.resolve(name);
            Files.createDirectories(t.getParent());
            Path tmp = t.resolveSibling("." + t.getFileName() + ".tmp");
            Files.copy(from.resolve(name), tmp);
            Files.move(tmp, t, StandardCopyOption.ATOMIC_MOVE);
            Thread.sleep(20);
        }
    }

    private static Path copy(Path from, Path to) throws IOException {
        try (var all = Files.walk(from)) {
            for (Path f : all.toList()) {
                Path t = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(f, t);
                }
            }
        }
        return to;
    }
}
