package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.profilers.profile.RankDumps;
import io.jpmpi.profilers.profile.Snapshot;
import io.jpmpi.profilers.report.Profile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs that end before MPI_Finalize (early.c): after ITERS MPI_Sendrecv around the ring and an
 * MPI_Barrier, either the last rank calls MPI_Abort(MPI_COMM_WORLD, 3) (after an MPI_Isend to rank 0
 * that it never waits for: counted when called, its bytes and its message, as PROFILE.md says) or
 * rank 0 returns from main without MPI_Finalize, while the others sleep outside MPI until the
 * launcher ends them.
 *
 * <p>The rank that ends the run leaves its dump, state ABORT (detail 3) or EXIT, with exactly its
 * calls, bytes and matrix row. The others are ended by the launcher: MPICH's hydra sends SIGKILL,
 * so they leave nothing; Open MPI's orted sends SIGTERM (they dump in state SIGNAL, detail 15) but
 * follows it with SIGKILL as soon as the first of its children dies (its sleep before the SIGKILL
 * is cut short by SIGCHLD), so whether they finish their dump is a race: usually they do. A dump
 * that is there must be exact. With either level, no profile.json is written, and RankDumps.merge
 * of the directory gives a partial profile with one reason per rank (the missing ones "no
 * figures") and exactly the figures of the ranks that dumped (per-rank spreads over those only).
 *
 * <p>fatal: the last rank calls MPI_Send to a rank that does not exist under MPI_ERRORS_ARE_FATAL.
 * The recorder's watch (PROFILE.md) writes its dump, state FATAL with the error class (MPI_ERR_RANK,
 * 6), before the library's own fatal handler ends it: the job's exit status is the one it has
 * without jpmpi, and no line of jpmpi's or the JVM's is added (the library's own message races
 * with the end of the job in both MPIs, with or without jpmpi). The MPI_Send never returned, so it
 * is not counted.
 *
 * <p>pollfatal: the same from the last rank's 200 001st MPI_Comm_rank, from the same call site as
 * the others, on MPI_COMM_NULL (MPI_ERR_COMM, 5): by then the profile times about 1 call in 100, so
 * the failing one most likely took the recorder's lean path (no frame to return to: the watch makes
 * the call again itself, and takes back the count that path made first). Either way the call is not
 * counted and the job ends as without jpmpi.
 *
 * <p>sendfatal: the same with a function that moves bytes: 200 000 MPI_Send of one double to
 * MPI_PROC_NULL from one call site, then one to rank 0 from there with tag -7 (MPI_ERR_TAG, 4). The
 * lean path counted that call, its 8 bytes, its size bucket and its message to rank 0 before making
 * it: the watch takes all of it back, so the dump has 200 000 calls of no bytes and no message to rank 0
 * besides the ring's.
 *
 * <p>sendrecvfatal: the same with MPI_Sendrecv, whose last six arguments are on the stack: 200 000 with
 * MPI_PROC_NULL both ways, then one with rank 0 both ways and send tag -7 (MPI_ERR_TAG). The lean
 * path counted its 8 bytes out, 8 in, its size bucket and its message to rank 0: all taken back.
 *
 * <p>winfatal: the same on a window (every rank makes one; the last rank calls MPI_Win_lock on a
 * rank that does not exist): the window's handler, MPI_ERRORS_ARE_FATAL from its creation, is the
 * recorder's watch too on Open MPI; MPICH hands a window's default fatal error to MPI_COMM_WORLD's
 * handler, the communicator watch (PROFILE.md). Either way the failing rank's dump says
 * MPI_ERR_RANK, and the exit status is the one without jpmpi.
 *
 * <p>segv: the last rank writes through a null pointer. It must end as it does without jpmpi, with
 * a Java level too (whose JVM has a SIGSEGV handler of its own: layering/README.md, "Signals"): the
 * job's exit status is the one without jpmpi, the MPI library's own crash handler still reports it
 * (Open MPI's stack trace, UCX's under MPICH) when it does so without jpmpi, and nothing of the
 * JVM's (a fatal-error banner, an hs_err file) is printed. The rank's dump is written first,
 * state SIGNAL with detail 11.
 *
 * <p>allexit: every rank returns from main without MPI_Finalize, and waits in an exit handler that
 * runs after the tools' own until every rank has got there (early.c), so no launcher ends any rank
 * early: every rank must leave its dump, state EXIT, and losing any of them fails.
 */
class EarlyEndIT {
    static final int RANKS = 3;
    static final int ITERS = 3;
    static final int DOUBLES = 100;

    static Stream<Arguments> cases() {
        return ProfileRun.cases().flatMap(a -> Stream.of("abort", "exit", "allexit", "fatal", "pollfatal", "sendfatal",
                "sendrecvfatal", "winfatal", "segv")
                .map(mode -> Arguments.of(a.get()[0], a.get()[1], mode)));
    }

    /** What rank r recorded before the end; `with` says which ranks left a dump. */
    static Expected expected(int n, int iters, int doubles, boolean abort, boolean win, boolean[] with) {
        return expected(n, iters, doubles, abort, win, null, with);
    }

    /**
     * poll: the last rank's 200 000 MPI_Comm_rank calls (pollfatal), MPI_Send calls to MPI_PROC_NULL
     * (sendfatal) or MPI_Sendrecv calls with it (sendrecvfatal), or null; the failed one never returns,
     * so it is not counted.
     */
    static Expected expected(int n, int iters, int doubles, boolean abort, boolean win, String poll, boolean[] with) {
        Expected e = new Expected(n);
        long b = 8L * doubles;
        for (int r = 0; r < n; r++) {
            e.present[r] = with[r];
            if (!with[r]) {
                continue;
            }
            e.call(r, "MPI_Init").call(r, "MPI_Comm_rank").call(r, "MPI_Comm_size");
            e.io(r, "MPI_Sendrecv", b, b, iters).msg(r, (r + 1) % n, b, iters);
            e.call(r, "MPI_Barrier");
            if (win) {
                e.call(r, "MPI_Win_create");
            }
            if (abort && r == n - 1) {
                // a non-blocking send is counted when it is called, bytes and message, waited for or not
                e.send(r, "MPI_Isend", 0, 8, 1).call(r, "MPI_Abort");
            }
            if ("pollfatal".equals(poll) && r == n - 1) {
                e.call(r, "MPI_Comm_rank", 200_000);
            }
            if ("sendfatal".equals(poll) && r == n - 1) {
                e.io(r, "MPI_Send", 0, 0, 200_000);
            }
            if ("sendrecvfatal".equals(poll) && r == n - 1) {
                e.io(r, "MPI_Sendrecv", 0, 0, 200_000);
            }
        }
        return e;
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cases")
    void early(Impl impl, Level level, String mode) throws IOException {
        boolean abort = mode.equals("abort");
        boolean all = mode.equals("allexit");
        boolean win = mode.equals("winfatal");
        boolean fatal = mode.equals("fatal") || mode.equals("pollfatal") || mode.equals("sendfatal")
                || mode.equals("sendrecvfatal") || win;
        boolean segv = mode.equals("segv");
        boolean poll = mode.equals("pollfatal");
        boolean send = mode.equals("sendfatal") || mode.equals("sendrecvfatal");
        int ender = abort || fatal || segv ? RANKS - 1 : 0;
        Result r = ProfileRun.run(impl, level, RANKS, "early", mode, Integer.toString(ITERS),
                Integer.toString(DOUBLES));
        assertFalse(r.timedOut(), r::describe);
        // (its line can be lost: the launchers may kill their output forwarding before it is through;
        // its dump below says it got there)
        assertTrue(r.countOut("early " + mode + " rank " + ender) <= 1, r::describe);
        if (all) {
            assertTrue(r.out().stream().filter(l -> l.startsWith("early allexit rank ")).count() <= RANKS,
                    r::describe);
        }
        assertEquals(0, r.out().stream().filter(l -> l.startsWith("early survived")).count(), r::describe);
        if (abort) {
            assertEquals(3, r.exit(), () -> "the launcher's exit status is MPI_Abort's errorcode\n" + r.describe());
        } else if (fatal) {
            Result plain = MpiRun.on(impl).ranks(RANKS).run("early", mode, Integer.toString(ITERS),
                    Integer.toString(DOUBLES));
            assertEquals(plain.exit(), r.exit(), () -> "exit status without jpmpi " + plain.exit() + "\n" + r.describe());
            // the library's own lines race with the end of the job, with or without jpmpi: none of
            // jpmpi's or the JVM's may be among them
            assertEquals(List.of(), r.err().stream().filter(l -> l.contains("jpmpi") || l.contains("VM")
                    || l.contains("java")).toList(), r::describe);
        } else if (segv) {
            Result plain = MpiRun.on(impl).ranks(RANKS).run("early", mode, Integer.toString(ITERS),
                    Integer.toString(DOUBLES));
            assertEquals(plain.exit(), r.exit(), () -> "exit status without jpmpi " + plain.exit() + "\n" + r.describe());
            assertEquals(List.of(), Stream.concat(r.out().stream(), r.err().stream())
                    .filter(l -> l.contains("Java Runtime") || l.contains("hs_err") || l.contains("JRE")
                            || l.contains("OpenJDK") || l.contains("jpmpi (rank")).toList(), r::describe);
            if (plain.err().stream().anyMatch(l -> l.contains("Segmentation fault"))) {
                assertTrue(r.err().stream().anyMatch(l -> l.contains("Segmentation fault")),
                        () -> "the MPI library's crash report is missing\n" + r.describe());
            }
        } else if (impl == Impl.OPENMPI) {
            assertNotEquals(0, r.exit(), r::describe);
        }
        Path dir = ProfileRun.dir(r);
        assertFalse(Files.exists(dir.resolve("profile.json")), () -> "a profile.json after an early end\n"
                + r.describe());

        boolean[] with = new boolean[RANKS];
        List<String> reasons = new ArrayList<>();
        for (int rank = 0; rank < RANKS; rank++) {
            with[rank] = Files.isRegularFile(dir.resolve("ranks").resolve("rank-" + rank + ".bin"));
        }
        Expected e = expected(RANKS, ITERS, DOUBLES, abort, win, poll || send ? mode : null, with);
        Checks c = Checks.of(r);
        for (int rank = 0; rank < RANKS; rank++) {
            Snapshot.State state;
            if (rank == ender || all) {
                state = abort ? Snapshot.State.ABORT : fatal ? Snapshot.State.FATAL
                        : segv ? Snapshot.State.SIGNAL : Snapshot.State.EXIT;
                c.check(with[rank], "rank " + rank + " left no dump");
            } else {
                state = Snapshot.State.SIGNAL;
            }
            if (with[rank]) {
                Snapshot s = ProfileRun.snapshot(r, dir.resolve("ranks").resolve("rank-" + rank + ".bin"));
                c.snapshot(s, e, rank, state);
                boolean crashed = segv && rank == ender;
                c.equal(crashed ? 11 : switch (state) {
                    case ABORT -> 3;
                    case SIGNAL -> 15;
                    case FATAL -> poll ? 5 : send ? 4 : 6; // MPI_ERR_COMM, MPI_ERR_TAG, MPI_ERR_RANK
                    default -> 0;
                }, s.detail(), "rank " + rank + " detail");
                reasons.add("rank " + rank + ": " + (crashed ? "signal 11 (SIGSEGV)" : switch (state) {
                    case ABORT -> "MPI_Abort(errorcode 3)";
                    case EXIT -> "exit without MPI_Finalize";
                    case FATAL -> poll ? "fatal MPI error (MPI_ERR_COMM, error class 5)"
                            : send ? "fatal MPI error (MPI_ERR_TAG, error class 4)"
                            : "fatal MPI error (MPI_ERR_RANK, error class 6)";
                    default -> "signal 15 (SIGTERM)";
                }));
            } else {
                reasons.add("rank " + rank + ": no figures (no dump)");
            }
        }
        c.done();

        Profile p = RankDumps.merge(dir);
        c.check(p.partial(), "merged profile not partial");
        c.equal(new TreeSet<>(reasons), new TreeSet<>(p.partialReasons()), "partial_reasons (in any order)");
        c.equal(reasons.size(), p.partialReasons().size(), "partial_reasons size");
        for (int rank = 0; rank < RANKS && rank < p.rankRows().size(); rank++) {
            c.check((p.rankRows().get(rank).partial() != null), "rank_rows[" + rank + "].partial is null");
        }
        c.profile(p, e).done();
    }
}
