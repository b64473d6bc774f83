package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.profilers.report.Profile;
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
    }
}
