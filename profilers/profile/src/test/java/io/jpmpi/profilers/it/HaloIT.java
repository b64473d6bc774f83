package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.profilers.profile.RankDumps;
import io.jpmpi.profilers.profile.Snapshot;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileDetails;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Non-blocking halo exchange (halo.c) through every completion path: 8 phases of ITERS exchanges,
 * each posting 2 MPI_Irecv and 2 MPI_Isend (left and right neighbour, DOUBLES doubles) and completing
 * them with MPI_Waitall, MPI_Waitany (4 calls), MPI_Waitsome, MPI_Wait (4 calls), MPI_Testall,
 * MPI_Testany, MPI_Testsome, MPI_Test; the calls of the polling ones vary, so the program prints
 * how many it made and those are the expected calls. The matrix counts each MPI_Isend when its
 * request completes, whichever function completes it: r → r±1 8 x ITERS messages each.
 */
class HaloIT {
    static final int RANKS = 4;
    static final int ITERS = 6;
    static final int DOUBLES = 300;
    static final Pattern LINE = Pattern.compile(
            "halo rank (\\d+) waitsome=(\\d+) testall=(\\d+) testany=(\\d+) testsome=(\\d+) test=(\\d+) ok");
    static final String[] POLLED = {"MPI_Waitsome", "MPI_Testall", "MPI_Testany", "MPI_Testsome", "MPI_Test"};

    /** polled[r][k]: rank r's calls of POLLED[k], as the program counted them. */
    static Expected expected(int n, int iters, int doubles, long[][] polled) {
        Expected e = new Expected(n).startup().finalizeAll();
        long b = 8L * doubles;
        int phases = 8;
        for (int r = 0; r < n; r++) {
            e.io(r, "MPI_Irecv", 0, b, 2L * iters * phases);
            e.send(r, "MPI_Isend", (r + 1) % n, b, (long) iters * phases);
            e.send(r, "MPI_Isend", (r - 1 + n) % n, b, (long) iters * phases);
            e.call(r, "MPI_Waitall", iters);
            e.call(r, "MPI_Waitany", 4L * iters);
            e.call(r, "MPI_Wait", 4L * iters);
            for (int k = 0; k < POLLED.length; k++) {
                e.call(r, POLLED[k], polled[r][k]);
            }
        }
        return e;
    }

    static long[][] polled(Result r, int n) {
        long[][] p = new long[n][];
        for (String line : r.out()) {
            Matcher m = LINE.matcher(line);
            if (m.matches()) {
                int rank = Integer.parseInt(m.group(1));
                p[rank] = new long[POLLED.length];
                for (int k = 0; k < POLLED.length; k++) {
                    p[rank][k] = Long.parseLong(m.group(2 + k));
                }
            }
        }
        for (int rank = 0; rank < n; rank++) {
            if (p[rank] == null) {
                fail("no \"halo rank " + rank + " ... ok\" line\n" + r.describe());
            }
        }
        return p;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void halo(Impl impl, Level level) {
        Result r = ProfileRun.run(impl, level, RANKS, "halo", Integer.toString(ITERS), Integer.toString(DOUBLES))
                .assertSuccess();
        assertEquals(RANKS, r.out().stream().filter(l -> LINE.matcher(l).matches()).count(), r::describe);
        Expected e = expected(RANKS, ITERS, DOUBLES, polled(r, RANKS));
        if (level == Level.C) {
            Checks.of(r).snapshots(ProfileRun.snapshots(r, RANKS), e, Snapshot.State.FINALIZE).done();
            // started by hand: rank 0's own command line and settings beside its dump (PROFILE.md, "run")
            Profile merged;
            try {
                merged = RankDumps.merge(ProfileRun.dir(r));
            } catch (java.io.IOException x) {
                throw new java.io.UncheckedIOException(x);
            }
            ProfileDetails.Run run = merged.details().run();
            assertEquals(ProfileDetails.FROM_RANK_0, run.source(), r::describe);
            assertEquals(3, run.command().size(), run::toString);
            assertEquals(List.of(Integer.toString(ITERS), Integer.toString(DOUBLES)), run.command().subList(1, 3));
            assertTrue(run.command().get(0).endsWith("/halo"), run::toString);
            assertEquals(ProfileRun.OUT, run.settings().get("JPMPI_OUTPUT_DIR"), run::toString);
        } else {
            Profile p = ProfileRun.profile(r);
            Checks.of(r).profile(p, e).complete(p).done();
            // the Java level's profile.json has every rank's figures per function too (schema 2)
            assertEquals(RANKS, p.details().rankFunctions().size(), r::describe);
            for (int rank = 0; rank < RANKS; rank++) {
                assertEquals(1, p.details().rankFunctions().get(rank).get("MPI_Init").calls(), r::describe);
            }
            assertTrue(p.details().timerSeconds() > 0, r::describe);
        }
    }
}
