package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.profilers.profile.Snapshot;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Point-to-point traffic of every kind between every pair of 4 ranks (p2p.c, its comment has the
 * sizes): MPI_Send, MPI_Isend + MPI_Wait, MPI_Ssend, MPI_Sendrecv, persistent sends started twice,
 * a rendezvous-size MPI_Isend, exact-size MPI_Irecv completed by MPI_Waitall; a send to
 * MPI_PROC_NULL (a call, no bytes, no message), an MPI_Isend to itself (bytes, no message), and a
 * ring in an MPI_Comm_split communicator (the matrix in world ranks).
 *
 * <p>{@link #matrixAgreesWithOpenMpiMonitoring}: the same program under Open MPI's pml monitoring
 * component (--mca pml_monitoring_enable 2, _enable_output 3, _filename prof: a file prof.R.prof
 * per rank whose "E src dst N bytes M msgs sent" lines are the external point-to-point messages
 * the PML saw; the Java level's own traffic at MPI_Finalize is collective, "C"/"I" lines, but for
 * the four messages in which every rank but 0 sends rank 0 its rows of profile.json) with
 * either level; our matrix (dumps or profile.json) must equal monitoring's exactly, but for two known
 * differences: (1) Open MPI 4.1's pml monitoring does not see persistent sends (MPI_Start calls the
 * PML request's req_start directly, not the monitoring PML's start), so our matrix has 2 more
 * messages of 30 + j bytes from every rank to every rank j; (2) it counts a process's messages to
 * itself (the diagonal: the 8-byte MPI_Isend), which the matrix leaves out. The tools' own
 * messages to rank 0 at MPI_Finalize are subtracted: the recorder's snapshot of each rank (C level
 * alone), or the Java level's four rows of profile.json.
 */
class P2pIT {
    static final int RANKS = 4;
    static final int BIG = 200000;

    /**
     * The size of a rank's snapshot as it goes to rank 0 (rec_snapshot.c, jp_compact): the header,
     * each called function's index, 6 stats and size buckets, an end mark, (version 3) the 32-byte head
     * and each called function's detail record sparse (index, count, a 16-byte bitmap, the words that are
     * not zero), each rank sent to.
     */
    static long wireBytes(Snapshot s) {
        long called = Arrays.stream(s.stats()).filter(st -> st[0] > 0).count();
        long sentTo = Arrays.stream(s.messages()).filter(m -> m > 0).count();
        long buckets = s.histograms()[0].length;
        Snapshot.Breakdown d = s.breakdown();
        long detail = 0;
        for (int f = 0; f < s.names().length; f++) {
            if (s.stats()[f][0] > 0) {
                long words = (d.bufferBytes()[f] != 0 ? 1 : 0) + Arrays.stream(d.sizeTicks()[f]).filter(x -> x != 0).count()
                        + Arrays.stream(d.commCalls()[f]).filter(x -> x != 0).count()
                        + Arrays.stream(d.commTicks()[f]).filter(x -> x != 0).count();
                detail += 24 + 8 * words;
            }
        }
        return Snapshot.HEADER + called * (4 + 6 * 8 + 8 * buckets) + 4 + Snapshot.DETAIL_HEAD + detail + sentTo * 20;
    }

    static int k(int i, int j) {
        return 1 + (i + 2 * j) % 3;
    }

    static long size(int i, int j, int t) {
        return 100L * (1 + i) + 10L * j + t;
    }

    static Expected expected(int n, int big) {
        Expected e = new Expected(n).startup().finalizeAll();
        String[] sends = {"MPI_Send", "MPI_Isend", "MPI_Ssend"};
        for (int r = 0; r < n; r++) {
            for (int d = 1; d < n; d++) {
                int to = (r + d) % n;
                int from = (r - d + n) % n;
                for (int t = 0; t < k(from, r); t++) {
                    e.io(r, "MPI_Irecv", 0, size(from, r, t));
                }
                e.io(r, "MPI_Irecv", 0, 30 + r, 2);
                if (d == 1) {
                    e.io(r, "MPI_Irecv", 0, big);
                }
                for (int t = 0; t < k(r, to); t++) {
                    e.send(r, sends[t], to, size(r, to, t), 1);
                    if (t == 1) {
                        e.call(r, "MPI_Wait");
                    }
                }
                e.io(r, "MPI_Sendrecv", 50 + r, 50 + from).msg(r, to, 50 + r);
                e.call(r, "MPI_Send_init");
                e.io(r, "MPI_Start", 30 + to, 0, 2).msg(r, to, 30 + to, 2);
                e.call(r, "MPI_Wait", 2);
                e.call(r, "MPI_Request_free");
                if (d == 1) {
                    e.send(r, "MPI_Isend", to, big, 1).call(r, "MPI_Wait");
                }
                e.call(r, "MPI_Waitall");
            }
            e.io(r, "MPI_Send", 0, 0);                  // to MPI_PROC_NULL: nothing
            e.io(r, "MPI_Isend", 8, 0).io(r, "MPI_Recv", 0, 8).call(r, "MPI_Wait");  // to itself
            e.call(r, "MPI_Comm_split").call(r, "MPI_Comm_rank").call(r, "MPI_Comm_size");
            int parity = r % 2;
            int hn = (n - parity + 1) / 2;
            if (hn > 1) {
                int hr = r / 2;
                e.io(r, "MPI_Sendrecv", 64, 64).msg(r, parity + 2 * ((hr + 1) % hn), 64);
            }
            e.call(r, "MPI_Comm_free");
        }
        return e;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void pointToPoint(Impl impl, Level level) {
        Result r = ProfileRun.run(impl, level, RANKS, "p2p", Integer.toString(BIG)).assertSuccess();
        okLines(r);
        Expected e = expected(RANKS, BIG);
        if (level == Level.C) {
            Checks.of(r).snapshots(ProfileRun.snapshots(r, RANKS), e, Snapshot.State.FINALIZE).done();
        } else {
            Checks.of(r).profile(ProfileRun.profile(r), e).complete(ProfileRun.profile(r)).done();
        }
    }

    static void okLines(Result r) {
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(1, r.countOut("p2p rank " + rank + " ok"), r::describe);
        }
    }

    static final Pattern EXTERNAL = Pattern.compile("E\\s+(\\d+)\\s+(\\d+)\\s+(\\d+) bytes\\s+(\\d+) msgs sent.*");

    /** Open MPI with each level: the matrix of the dumps (C) or of profile.json (FULL). */
    static java.util.stream.Stream<Level> levels() {
        return java.util.stream.Stream.of(Level.values());
    }

    @ParameterizedTest(name = "openmpi {0}")
    @MethodSource("levels")
    void matrixAgreesWithOpenMpiMonitoring(Level level) throws IOException {
        assumeTrue(Impl.OPENMPI.installed(), "Open MPI is not installed");
        Result r = ProfileRun.run(Impl.OPENMPI, level, RANKS, run -> run.mca("pml_monitoring_enable", "2")
                .mca("pml_monitoring_enable_output", "3").mca("pml_monitoring_filename", "prof"), "p2p",
                Integer.toString(BIG)).assertSuccess();
        okLines(r);
        long[][] monMessages = new long[RANKS][RANKS];
        long[][] monBytes = new long[RANKS][RANKS];
        for (int rank = 0; rank < RANKS; rank++) {
            Path f = r.runDir().resolve("prof." + rank + ".prof");
            if (!Files.isRegularFile(f)) {
                fail("pml monitoring wrote no " + f + "\n" + r.describe());
            }
            for (String line : Files.readAllLines(f)) {
                Matcher m = EXTERNAL.matcher(line);
                if (m.matches()) {
                    int src = Integer.parseInt(m.group(1));
                    int dst = Integer.parseInt(m.group(2));
                    assertEquals(rank, src, () -> f + ": " + line);
                    monBytes[src][dst] += Long.parseLong(m.group(3));
                    monMessages[src][dst] += Long.parseLong(m.group(4));
                }
            }
        }
        Checks c = Checks.of(r);
        Expected e = expected(RANKS, BIG);
        long[][] ourMessages = new long[RANKS][];
        long[][] ourBytes = new long[RANKS][];
        long[] toolMessages = new long[RANKS];
        long[] toolBytes = new long[RANKS];
        if (level == Level.C) {
            Snapshot[] s = ProfileRun.snapshots(r, RANKS);
            for (int i = 0; i < RANKS; i++) {
                ourMessages[i] = s[i].messages();
                ourBytes[i] = s[i].bytes();
                // the recorder's own: every rank but 0 sends rank 0 its snapshot, which rank 0 writes
                toolMessages[i] = i == 0 ? 0 : 1;
                toolBytes[i] = i == 0 ? 0 : wireBytes(s[i]);
            }
            c.snapshots(s, e, Snapshot.State.FINALIZE);
        } else {
            Profile p = ProfileRun.profile(r);
            for (int i = 0; i < RANKS; i++) {
                ourMessages[i] = dense(p.messages().get(i));
                ourBytes[i] = dense(p.bytes().get(i));
                // the Java level's own: every rank but 0 sends rank 0 its rows of profile.json
                boolean last = i == RANKS - 1;
                toolMessages[i] = i == 0 ? 0 : 4;
                toolBytes[i] = i == 0 ? 0 : (ProfileJson.rankRow(p.rankRows().get(i), last)
                        + ProfileJson.sparseRow(p.messages().get(i), last)
                        + ProfileJson.sparseRow(p.bytes().get(i), last)
                        + ProfileJson.rankFunctionsRow(p.details().rankFunctions().get(i), last))
                        .getBytes(StandardCharsets.UTF_8).length;
            }
            c.profile(p, e).complete(p);
        }
        for (int i = 0; i < RANKS; i++) {
            for (int j = 0; j < RANKS; j++) {
                // monitoring + the persistent sends it misses, without the messages to oneself
                long messages = i == j ? 0 : monMessages[i][j] + 2 - (j == 0 ? toolMessages[i] : 0);
                long bytes = i == j ? 0 : monBytes[i][j] + 2 * (30 + j) - (j == 0 ? toolBytes[i] : 0);
                c.equal(messages, ourMessages[i][j], "messages " + i + " -> " + j + " (monitoring: "
                        + monMessages[i][j] + ")");
                c.equal(bytes, ourBytes[i][j], "bytes " + i + " -> " + j + " (monitoring: " + monBytes[i][j] + ")");
            }
            c.equal(1, monMessages[i][i], "monitoring's messages " + i + " -> itself (the MPI_Isend to itself)");
            c.equal(8, monBytes[i][i], "monitoring's bytes " + i + " -> itself");
        }
        c.check(Arrays.stream(monMessages).flatMapToLong(Arrays::stream).sum() > 0, "monitoring saw no message");
        c.done();
    }

    private static long[] dense(Profile.SparseRow row) {
        long[] d = new long[RANKS];
        for (int i = 0; i < row.peers().length; i++) {
            d[row.peers()[i]] += row.values()[i];
        }
        return d;
    }
}
