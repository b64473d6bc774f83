package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.profilers.profile.RankDumps;
import io.jpmpi.profilers.profile.Snapshot;
import io.jpmpi.profilers.report.CallSites;
import io.jpmpi.profilers.report.FunctionProfile;
import io.jpmpi.profilers.report.HtmlReport;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileWriter;
import io.jpmpi.profilers.report.TextReport;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sampled timing (PROFILE.md, "Sampled timing"): poll.c calls MPI_Comm_rank SHORT times and an
 * empty MPI_Iprobe SHORT/4 times (calls of tens of nanoseconds, too short to time honestly),
 * MPI_Send to, MPI_Recv from and MPI_Sendrecv with MPI_PROC_NULL SHORT/4 times each, and a ring of
 * 8-byte messages SHORT/1000 times on a communicator of all ranks in reverse order (MPI_Send and
 * MPI_Recv, then an MPI_Sendrecv on every rank), each world rank sending to world rank - 1 (the
 * untimed calls of a sampled MPI_Send, MPI_Recv and MPI_Sendrecv take the lean path, counted with their
 * bytes and messages before the call, the ring's sends to the world ranks the thread keeps for the
 * ring's), then MPI_Sendrecv_replace of 1 MiB ITERS times (hundreds of microseconds: every call
 * timed). The counts and bytes are exact as always ({@link Checks}); MPI_Comm_rank, MPI_Send, MPI_Recv
 * and MPI_Sendrecv were timed on a sample only (some calls timed, fewer than counted, a variance above
 * 0), MPI_Sendrecv_replace and the rest on every call (MPI_Iprobe
 * either way: {@link #EITHER}, but the figures say which consistently); the
 * merged profile and both reports say so. With JPMPI_PROFILE_TIMING=all every call is timed.
 */
class SampledTimingIT {
    static final int RANKS = 3;
    static final int SHORT = 200000;
    static final int DOUBLES = 131072;
    static final int ITERS = 4;
    /**
     * Always too short to time honestly: a local query of a few nanoseconds; a send to, a receive from
     * and an exchange with MPI_PROC_NULL (whatever the ring's calls then make of the stride, some were
     * untimed).
     */
    static final List<String> SAMPLED = List.of("MPI_Comm_rank", "MPI_Send", "MPI_Recv", "MPI_Sendrecv");
    /**
     * Either: an empty MPI_Iprobe takes tens of nanoseconds, but Open MPI yields the processor in it
     * when the ranks oversubscribe the cores (microseconds: then every call is timed).
     */
    static final List<String> EITHER = List.of("MPI_Iprobe");

    static Expected expected() {
        Expected e = new Expected(RANKS).startup().finalizeAll();
        long b = 8L * DOUBLES;
        for (int r = 0; r < RANKS; r++) {
            e.call(r, "MPI_Comm_rank", SHORT).call(r, "MPI_Iprobe", SHORT / 4);
            // to and from MPI_PROC_NULL: nothing moves; the ring: 8 bytes to the right, from the left
            e.io(r, "MPI_Send", 0, 0, SHORT / 4).io(r, "MPI_Recv", 0, 0, SHORT / 4);
            e.io(r, "MPI_Sendrecv", 0, 0, SHORT / 4);
            e.send(r, "MPI_Send", (r + RANKS - 1) % RANKS, 8, SHORT / 1000).io(r, "MPI_Recv", 0, 8, SHORT / 1000);
            e.io(r, "MPI_Sendrecv", 8, 8, SHORT / 1000).msg(r, (r + RANKS - 1) % RANKS, 8, SHORT / 1000);
            e.call(r, "MPI_Comm_split", 1).call(r, "MPI_Comm_free", 1);
            e.io(r, "MPI_Sendrecv_replace", b, b, ITERS).msg(r, (r + 1) % RANKS, b, ITERS);
        }
        return e;
    }

    static Result run(Impl impl, Level level, String timing) {
        return ProfileRun.run(impl, level, RANKS, m -> timing == null ? m : m.env("JPMPI_PROFILE_TIMING", timing),
                "poll", Integer.toString(SHORT), Integer.toString(DOUBLES), Integer.toString(ITERS));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void shortCallsAreTimedOnASampleAndCountedExactly(Impl impl, Level level) throws IOException {
        Result r = run(impl, level, null);
        Checks.exactly(r, level, "poll", expected());
        Profile p;
        if (level == Level.C) {
            Snapshot[] s = ProfileRun.snapshots(r, RANKS);
            for (Snapshot rank : s) {
                for (int f = 0; f < rank.names().length; f++) {
                    String fn = rank.names()[f];
                    long calls = rank.stats()[f][Snapshot.CALLS];
                    String at = "rank " + rank.rank() + " " + fn + ": " + rank.timed()[f] + " of " + calls
                            + " calls timed, variance " + rank.variance()[f] + "\n" + r.describe();
                    if (SAMPLED.contains(fn) || EITHER.contains(fn) && rank.sampled(f)) {
                        assertTrue(rank.timed()[f] > 0 && rank.sampled(f) && rank.variance()[f] > 0, at);
                    } else {
                        assertTrue(!rank.sampled(f) && rank.variance()[f] == 0, at);
                    }
                }
            }
            p = RankDumps.merge(ProfileRun.dir(r));
            // every call is in a call site, the lean path's untimed ones too: each function's sites add
            // up to its calls and its bytes, and poll.c's loop of MPI_Comm_rank is one site with its SHORT
            // calls a rank
            Profile withSites = ProfileWriter.mergeDumps(ProfileRun.dir(r));
            List<CallSites.Site> sites = withSites.sites().sites();
            for (FunctionProfile f : withSites.functions()) {
                long inSites = sites.stream().filter(site -> site.function().equals(f.name()))
                        .mapToLong(site -> (long) site.calls().sum()).sum();
                assertEquals(f.calls(), inSites, f.name() + "\n" + withSites.sites() + "\n" + r.describe());
                long bytesInSites = sites.stream().filter(site -> site.function().equals(f.name()))
                        .mapToLong(site -> (long) site.bytes().sum()).sum();
                assertEquals(f.bytesSent() + f.bytesRecv(), bytesInSites, f.name() + " bytes\n" + withSites.sites()
                        + "\n" + r.describe());
            }
            assertEquals(1, sites.stream().filter(site -> site.function().equals("MPI_Comm_rank")
                    && site.calls().sum() == (double) SHORT * RANKS).count(), withSites.sites() + "\n" + r.describe());
        } else {
            p = ProfileRun.profile(r);
        }
        for (FunctionProfile f : p.functions()) {
            String at = f + "\n" + r.describe();
            if (SAMPLED.contains(f.name()) || EITHER.contains(f.name()) && f.sampled()) {
                assertTrue(f.sampled() && f.timedCalls() > 0 && f.timeErrorSeconds() > 0
                        && f.timeErrorSeconds() < f.timeSeconds(), at);
            } else {
                assertTrue(!f.sampled() && f.timedCalls() == f.calls() && f.timeErrorSeconds() == 0, at);
            }
        }
        String text = TextReport.render(p);
        String html = HtmlReport.render(p);
        assertTrue(text.contains("Sampled timing") && html.contains("Sampled timing"), text);
        // the banner's MPI time says how much of it is an estimate, and its standard error
        String estimated = " functions is estimated from a sample of its calls, see Sampled timing)";
        String flat = text.replaceAll("\\s*\\|\\s*", " ").replaceAll("\\s+", " ");
        assertTrue(flat.contains(estimated) && flat.contains("% of application time +- ") && html.contains(estimated),
                text);
        for (FunctionProfile f : p.functions()) {
            assertEquals(f.sampled(), text.lines().anyMatch(l -> l.startsWith(f.name() + " ")
                    && l.contains(" calls timed, time ")), f + "\n" + text);
        }
    }

    /**
     * Without call sites (JPMPI_PROFILE_SITES=off) the untimed calls of the functions without bytes
     * still take the lean path (recorder.h, jp_lean: one site, the thread's own entry), and every
     * count stays exact.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void sitesOffCountsExactly(Impl impl) {
        Result r = ProfileRun.run(impl, Level.C, RANKS, m -> m.env("JPMPI_PROFILE_SITES", "off"),
                "poll", Integer.toString(SHORT), Integer.toString(DOUBLES), Integer.toString(ITERS));
        Checks.exactly(r, Level.C, "poll", expected());
        for (Snapshot s : ProfileRun.snapshots(r, RANKS)) {
            int f = Arrays.asList(s.names()).indexOf("MPI_Comm_rank");
            assertTrue(s.sampled(f) && s.timed()[f] < s.stats()[f][Snapshot.CALLS] / 10,
                    "rank " + s.rank() + ": " + s.timed()[f] + " of " + s.stats()[f][Snapshot.CALLS]
                            + " MPI_Comm_rank calls timed\n" + r.describe());
        }
        assertTrue(!Files.exists(ProfileRun.dir(r).resolve("sites")), r::describe);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void timingAllTimesEveryCall(Impl impl) {
        Result r = run(impl, Level.C, "all");
        Checks.exactly(r, Level.C, "poll", expected());
        for (Snapshot s : ProfileRun.snapshots(r, RANKS)) {
            for (int f = 0; f < s.names().length; f++) {
                assertEquals(s.stats()[f][Snapshot.CALLS], s.timed()[f], s.names()[f] + " on rank " + s.rank() + "\n"
                        + r.describe());
                assertEquals(0, s.variance()[f], Arrays.toString(s.variance()));
            }
        }
    }
}
