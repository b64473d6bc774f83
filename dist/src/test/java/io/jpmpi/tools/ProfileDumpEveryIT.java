package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.profilers.profile.RankDumps;
import io.jpmpi.profilers.report.FunctionProfile;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * JPMPI_PROFILE_DUMP_EVERY (profilers/profile/PROFILE.md): every N seconds each rank writes its
 * figures so far, so that a job killed without warning (SIGKILL of every rank: no handler runs)
 * still leaves its last snapshot, which jpmpi run merges into a partial profile; a bad value is one
 * line and changes nothing else.
 */
class ProfileDumpEveryIT {
    /** The calls of {@code name} in {@code p}, 0 if it was not called. */
    private static long calls(Profile p, String name) {
        return p.functions().stream().filter(f -> f.name().equals(name)).mapToLong(FunctionProfile::calls).sum();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void aJobKilledWithoutWarningLeavesItsLastSnapshot(Impl impl) throws Exception {
        LauncherIT.Held held = LauncherIT.Held.start(impl, List.of("--tools", "profile", "--output", "prof"),
                Map.of("JPMPI_PROFILE_DUMP_EVERY", "1"));
        Process p = held.process();
        List<String> lines = held.lines();
        Path dir = held.dir();
        Path prof = dir.resolve("prof");
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            // Nothing is sent to the ranks: the dumps come by themselves, until one of each rank has
            // the barrier that both passed before saying they were ready.
            Profile running = null;
            while (running == null || calls(running, "MPI_Barrier") != 2) {
                assertTrue(System.nanoTime() < deadline, "no periodic dumps with both ranks' MPI_Barrier in " + prof);
                Thread.sleep(200);
                if (RankDumps.present(prof) && Files.isRegularFile(prof.resolve("ranks/rank-0.bin"))
                        && Files.isRegularFile(prof.resolve("ranks/rank-1.bin"))) {
                    running = RankDumps.merge(prof);
                }
            }
            assertTrue(p.isAlive(), "the job goes on while its ranks dump");
            for (String line : List.copyOf(lines)) {
                if (line.contains(" ready pid ")) {
                    String pid = line.substring(line.lastIndexOf(' ') + 1);
                    // hydra may have killed the second rank already, once the first was gone
                    new ProcessBuilder("kill", "-KILL", pid).start().waitFor();
                }
            }
            assertTrue(p.waitFor(90, TimeUnit.SECONDS), "jpmpi did not end after its ranks were killed");
        } finally {
            held.end();
        }
        String err = Files.readString(dir.resolve("stderr.txt"));
        assertTrue(Files.isRegularFile(prof.resolve("profile.json")), () -> "no profile.json\n" + err);
        assertTrue(err.contains("jpmpi: profile: " + prof.resolve("report.txt")), err);
        Profile merged = ProfileJson.read(prof.resolve("profile.json"));
        assertTrue(merged.partial());
        assertEquals(List.of("rank 0: still running (periodic dump, JPMPI_PROFILE_DUMP_EVERY)",
                "rank 1: still running (periodic dump, JPMPI_PROFILE_DUMP_EVERY)"), merged.partialReasons());
        assertEquals(2, calls(merged, "MPI_Init"));
        assertEquals(2, calls(merged, "MPI_Comm_rank"));
        assertEquals(2, calls(merged, "MPI_Comm_size"));
        assertEquals(2, calls(merged, "MPI_Barrier"));
        assertEquals(0, calls(merged, "MPI_Finalize"));
        assertTrue(Files.readString(prof.resolve("report.txt")).contains("rank 1: still running (periodic dump,"
                + " JPMPI_PROFILE_DUMP_EVERY)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void aBadValueIsOneLineAndChangesNothing(Impl impl) throws Exception {
        for (String bad : List.of("1x", "0", "-5", "604801")) {
            Jpmpi.Result r = Jpmpi.run(Map.of("JPMPI_PROFILE_DUMP_EVERY", bad),
                    LauncherIT.run(List.of("--tools", "profile", "--output", "prof"), impl, 2, "exitcode", "3"));
            assertEquals(3, r.exit(), r::describe);
            String line = "jpmpi: profile: JPMPI_PROFILE_DUMP_EVERY=" + bad + " is not a whole number of seconds from"
                    + " 1 to 604800: no periodic dumps";
            assertEquals(1, r.err().lines().filter(l -> l.contains("JPMPI_PROFILE_DUMP_EVERY")).count(), r::describe);
            assertTrue(r.err().lines().anyMatch(line::equals), r::describe);
            Profile prof = ProfileJson.read(r.dir().resolve("prof/profile.json"));
            assertFalse(prof.partial(), r::describe);
            assertEquals(2, calls(prof, "MPI_Finalize"), r::describe);
        }
    }
}
