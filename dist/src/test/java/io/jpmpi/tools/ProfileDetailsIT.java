package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileBreakdown;
import io.jpmpi.profilers.report.ProfileDetails;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Schema 2's details from a real job (3 ranks of pingpong 5 under jpmpi run): every rank's calls
 * and bytes per function exactly as pingpong makes them, the run's command line and settings in the
 * profile and both reports' headers, the timer's resolution, the rank x function heat map.
 */
class ProfileDetailsIT {
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void everyRanksFiguresAndTheRunInTheProfile(Impl impl) throws Exception {
        List<String> args = LauncherIT.run(List.of("--tools", "profile", "--output", "prof"), impl, 3, "pingpong", "5");
        Jpmpi.Result r = Jpmpi.run(args);
        assertEquals(0, r.exit(), r::describe);
        Path prof = r.dir().resolve("prof");
        String json = Files.readString(prof.resolve("profile.json"));
        assertTrue(json.startsWith("{\"schema\":\"" + Profile.SCHEMA + "\","), json);
        Profile p = ProfileJson.read(prof.resolve("profile.json"));
        List<ProfileDetails.RankFunctions> ranks = p.details().rankFunctions();
        assertEquals(3, ranks.size());
        for (int rank = 0; rank < 3; rank++) {
            ProfileDetails.RankFunctions mine = ranks.get(rank);
            for (String once : List.of("MPI_Init", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Pcontrol", "MPI_Barrier",
                    "MPI_Allreduce", "MPI_Finalize")) {
                assertEquals(1, mine.get(once).calls(), "rank " + rank + " " + once);
            }
            if (rank < 2) {
                // 5 ints each way: 20 bytes
                assertEquals(List.of(5L, 20L, 0L), List.of(mine.get("MPI_Send").calls(), mine.get("MPI_Send").bytesSent(),
                        mine.get("MPI_Send").bytesRecv()), "rank " + rank);
                assertEquals(List.of(5L, 0L, 20L), List.of(mine.get("MPI_Recv").calls(), mine.get("MPI_Recv").bytesSent(),
                        mine.get("MPI_Recv").bytesRecv()), "rank " + rank);
                assertEquals(9, mine.functions().size(), "rank " + rank + ": " + mine);
            } else {
                assertNull(mine.get("MPI_Send"));
                assertNull(mine.get("MPI_Recv"));
                assertEquals(7, mine.functions().size(), "rank 2: " + mine);
            }
        }
        // the run, as jpmpi run had it
        ProfileDetails.Run run = p.details().run();
        List<String> command = new ArrayList<>(args.subList(args.indexOf("--") + 1, args.size()));
        assertEquals(command, run.command());
        assertEquals("profile", run.tools());
        assertEquals(prof.toRealPath().toString(), Path.of(run.output()).toRealPath().toString());
        assertEquals("on", run.settings().get("JPMPI_PROFILE_OUTPUT"), run.settings()::toString);
        assertTrue(run.wallSeconds() > 0 && run.wallSeconds() >= p.summary().appSeconds().max(), run::toString);
        assertTrue(p.details().timerSeconds() > 0 && p.details().timerSeconds() < 1e-6, p.details()::toString);
        String text = Files.readString(prof.resolve("report.txt"));
        assertTrue(text.contains("| command     " + command.get(0) + " " + command.get(1) + " "), text);
        assertTrue(text.contains(" (jpmpi run: from starting the launcher to its end)"), text);
        assertTrue(text.contains("MPI_Init 3 calls, MPI_Finalize 3 calls: counted, not timed"), text);
        assertTrue(text.lines().noneMatch(l -> l.startsWith("MPI_Init  ") || l.startsWith("MPI_Finalize  ")), text);
        assertTrue(text.contains("The ranks with the least and the most MPI time, per function: rank"), text);
        String html = Files.readString(prof.resolve("report.html"));
        assertTrue(html.contains("id=\"rank-functions\""), "no rank x function heat map");
        assertTrue(html.contains("<title>rank 2, MPI_Send: not called</title>"), "rank 2 sends nothing");
        assertTrue(html.contains("<table class=\"sortable\" id=\"functions\">"));
        breakdown(p, text, html);
    }

    /**
     * Schema 3 (pingpong's one MPI_Allreduce of 1 int and one MPI_Barrier per rank, 3 ranks): the
     * Allreduce's buffer bytes 3 x 4 (mpiP's 4 bytes a call) beside its pairwise 3 x 8 sent, both
     * collectives' 3 calls in the communicator-size bucket of 2-3 processes, the Send/Recv time by
     * size in the bucket of their 4 bytes, jpmpi's own start and finalize in the overhead, and both
     * reports showing them.
     */
    private static void breakdown(Profile p, String text, String html) {
        ProfileBreakdown b = p.details().breakdown();
        assertNotNull(b, "no breakdown");
        ProfileBreakdown.FunctionDetail allreduce = b.get("MPI_Allreduce");
        assertEquals(12, allreduce.bufferBytes());
        assertEquals(24, p.functions().stream().filter(f -> f.name().equals("MPI_Allreduce")).findFirst()
                .orElseThrow().bytesSent());
        assertArrayEquals(new long[] {0, 3}, allreduce.callsByComm());
        ProfileBreakdown.FunctionDetail barrier = b.get("MPI_Barrier");
        assertEquals(0, barrier.bufferBytes());
        assertArrayEquals(new long[] {0, 3}, barrier.callsByComm());
        ProfileBreakdown.FunctionDetail send = b.get("MPI_Send");
        assertTrue(!send.collective() && send.timeBySize().length == 4 && send.timeBySize()[3] > 0, send::toString);
        assertTrue(b.cost().startSeconds().max() > 0 && b.cost().startSeconds().max() < 60, b.cost()::toString);
        assertTrue(b.cost().finalizeSeconds().max() > 0, b.cost()::toString);
        assertTrue(b.cost().rank0FinalizeSeconds() > 0, b.cost()::toString);
        String box = text.replaceAll(" *\\|\n\\| +", " "); // the banner's wrapped lines joined
        assertTrue(box.contains("jpmpi's own start in MPI_Init (after the library's): max "), text);
        assertTrue(box.contains("its finalize in MPI_Finalize: rank 0 "), text);
        assertTrue(text.contains("Collectives: buffer bytes (mpiP's message size"), text);
        assertTrue(text.lines().anyMatch(l -> l.matches("MPI_Allreduce +3 +12 +4 +24\\* +24\\*")), text);
        assertTrue(text.lines().anyMatch(l -> l.matches("MPI_Allreduce +2-3 +3 +100\\S* +\\S+ [mun]?s +100\\S*")), text);
        assertTrue(html.contains("<table class=\"sortable\" id=\"collectives\">"), "no buffer bytes table");
        assertTrue(html.contains("<table class=\"sortable\" id=\"comm-sizes\">"), "no communicator sizes table");
        assertTrue(html.contains("id=\"size-time\""), "no time per function and message size heat map");
    }
}
