package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.profilers.profile.Snapshot;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every blocking and non-blocking collective of MPI_COMM_WORLD, with and without MPI_IN_PLACE
 * (colls.c; its comment lists the counts), the program checking every result. The expected bytes
 * follow the standard's data movement as PROFILE.md states it: what the calling rank sends to and
 * receives from each other rank (never itself), root-only arguments at the root only, MPI_IN_PLACE
 * moving nothing for the in-place part (the ignored send counts are passed wrong on purpose);
 * reductions as if each rank sent its vector to every rank that needs it (Reduce: to the root,
 * Allreduce and Reduce_scatter(_block): to every other rank its block, Scan/Exscan: to every
 * higher rank). The matrix holds the same pairwise messages; I-forms count at the post and add
 * one MPI_Wait each; MPI_Barrier/MPI_Ibarrier have calls only. Run on 3 and 4 ranks (the root
 * is the last rank).
 * <p>Snapshot version 3 (the recorder alone): every rank's per-call buffer bytes of each collective
 * exactly (mpiP's message size, PROFILE.md "Buffer bytes of collectives": the count x type the rank
 * gives; a v-form all of its send counts, the in-place forms the receive side the standard reads), every
 * collective call in the communicator-size bucket of n ranks (floor(log2 n)) and no other call there,
 * time by size and by communicator size no more than the function's, the recorder's own start measured.
 */
class CollectivesIT {
    static final int C = 10;

    static Stream<Arguments> cases() {
        return ProfileRun.cases().flatMap(a -> Stream.of(3, 4).map(n -> Arguments.of(a.get()[0], a.get()[1], n)));
    }

    /** The model: one rank's sent and received bytes of one call, and its messages. */
    private static final class Model {
        final Expected e;
        final int n;

        Model(int n) {
            this.n = n;
            this.e = new Expected(n).startup().finalizeAll();
        }

        /**
         * Rank r calls fn, sending one message of sizes[j] bytes to each rank j != r with
         * sizes[j] >= 0 (none where it is -1), receiving recv bytes.
         */
        void pairs(int r, String fn, long[] sizes, long recv) {
            long sent = 0;
            for (int j = 0; j < n; j++) {
                if (j != r && sizes[j] >= 0) {
                    sent += sizes[j];
                    e.msg(r, j, sizes[j]);
                }
            }
            e.io(r, fn, sent, recv);
        }

        long[] each(long size) {
            long[] s = new long[n];
            java.util.Arrays.fill(s, size);
            return s;
        }

        long[] to(int j, long size) {
            long[] s = each(-1);
            s[j] = size;
            return s;
        }
    }

    static String name(String blocking, boolean nb) {
        if (!nb) {
            return "MPI_" + blocking;
        }
        return "MPI_I" + Character.toLowerCase(blocking.charAt(0)) + blocking.substring(1);
    }

    static Expected expected(int n, int base) {
        Model m = new Model(n);
        Expected e = m.e;
        int root = n - 1;
        for (boolean nb : new boolean[] {false, true}) {
            for (boolean inplace : new boolean[] {false, true}) {
                long c = inplace ? 2L * base : base;
                long[] cnt = new long[n];
                for (int i = 0; i < n; i++) {
                    cnt[i] = c + i;
                }
                int collectives = 0;
                for (int r = 0; r < n; r++) {
                    boolean isRoot = r == root;
                    if (!inplace) {
                        if (isRoot) {
                            m.pairs(r, name("Bcast", nb), m.each(4 * c), 0);
                        } else {
                            e.io(r, name("Bcast", nb), 0, 4 * c);
                        }
                    }
                    // Gather, Gatherv
                    if (isRoot) {
                        e.io(r, name("Gather", nb), 0, 4 * c * (n - 1));
                        long in = 0;
                        for (int i = 0; i < n; i++) {
                            in += i == root ? 0 : 4 * cnt[i];
                        }
                        e.io(r, name("Gatherv", nb), 0, in);
                    } else {
                        m.pairs(r, name("Gather", nb), m.to(root, 4 * c), 0);
                        m.pairs(r, name("Gatherv", nb), m.to(root, 4 * cnt[r]), 0);
                    }
                    // Scatter, Scatterv
                    if (isRoot) {
                        m.pairs(r, name("Scatter", nb), m.each(4 * c), 0);
                        long[] s = new long[n];
                        for (int i = 0; i < n; i++) {
                            s[i] = 4 * cnt[i];
                        }
                        m.pairs(r, name("Scatterv", nb), s, 0);
                    } else {
                        e.io(r, name("Scatter", nb), 0, 4 * c);
                        e.io(r, name("Scatterv", nb), 0, 4 * cnt[r]);
                    }
                    // Allgather, Allgatherv, Alltoall
                    m.pairs(r, name("Allgather", nb), m.each(4 * c), 4 * c * (n - 1));
                    long others = 0;
                    for (int i = 0; i < n; i++) {
                        others += i == r ? 0 : 4 * cnt[i];
                    }
                    m.pairs(r, name("Allgatherv", nb), m.each(4 * cnt[r]), others);
                    m.pairs(r, name("Alltoall", nb), m.each(4 * c), 4 * c * (n - 1));
                    // Alltoallv, Alltoallw: i sends c+i+2j to j (in place c+i+j); w: 8-byte doubles
                    // between ranks of odd sum, except in the non-blocking in-place round
                    long[] v = new long[n];
                    long[] w = new long[n];
                    long vin = 0;
                    long win = 0;
                    for (int j = 0; j < n; j++) {
                        long out = inplace ? c + r + j : c + r + 2L * j;
                        long back = inplace ? c + j + r : c + j + 2L * r;
                        int size = (r + j) % 2 == 1 && !(nb && inplace) ? 8 : 4;
                        v[j] = 4 * out;
                        w[j] = size * out;
                        if (j != r) {
                            vin += 4 * back;
                            win += size * back;
                        }
                    }
                    m.pairs(r, name("Alltoallv", nb), v, vin);
                    m.pairs(r, name("Alltoallw", nb), w, win);
                    // Reduce, Allreduce
                    if (isRoot) {
                        e.io(r, name("Reduce", nb), 0, 4 * c * (n - 1));
                    } else {
                        m.pairs(r, name("Reduce", nb), m.to(root, 4 * c), 0);
                    }
                    m.pairs(r, name("Allreduce", nb), m.each(4 * c), 4 * c * (n - 1));
                    // Reduce_scatter (rank i gets c+i), Reduce_scatter_block
                    long[] rs = new long[n];
                    for (int j = 0; j < n; j++) {
                        rs[j] = 4 * cnt[j];
                    }
                    m.pairs(r, name("Reduce_scatter", nb), rs, 4 * cnt[r] * (n - 1));
                    m.pairs(r, name("Reduce_scatter_block", nb), m.each(4 * c), 4 * c * (n - 1));
                    // Scan, Exscan: to every higher rank
                    long[] up = m.each(-1);
                    for (int j = r + 1; j < n; j++) {
                        up[j] = 4 * c;
                    }
                    m.pairs(r, name("Scan", nb), up, 4 * c * r);
                    m.pairs(r, name("Exscan", nb), up, 4 * c * r);
                    collectives = inplace ? 15 : 17;
                    if (!inplace) {
                        e.call(r, name("Barrier", nb));
                    }
                    if (nb) {
                        e.call(r, "MPI_Wait", collectives);
                    }
                }
            }
        }
        return e;
    }

    /** Rank r's buffer bytes per collective over the four rounds of colls.c (the class comment). */
    static Map<String, Long> buffers(int n, int r, int base) {
        Map<String, Long> b = new TreeMap<>();
        for (boolean nb : new boolean[] {false, true}) {
            for (boolean inplace : new boolean[] {false, true}) {
                long c = inplace ? 2L * base : base;
                long all = 0;
                for (int i = 0; i < n; i++) {
                    all += c + i;
                }
                long v = 0;
                long w = 0;
                for (int j = 0; j < n; j++) { // every block, its own too: the buffer the rank gives
                    long out = inplace ? c + r + j : c + r + 2L * j;
                    int size = (r + j) % 2 == 1 && !(nb && inplace) ? 8 : 4;
                    v += 4 * out;
                    w += size * out;
                }
                if (!inplace) {
                    b.merge(name("Bcast", nb), 4 * c, Long::sum);
                    b.merge(name("Barrier", nb), 0L, Long::sum);
                }
                b.merge(name("Gather", nb), 4 * c, Long::sum);
                b.merge(name("Gatherv", nb), 4 * (c + r), Long::sum);
                b.merge(name("Scatter", nb), 4 * c, Long::sum);
                b.merge(name("Scatterv", nb), r == n - 1 ? 4 * all : 4 * (c + r), Long::sum);
                b.merge(name("Allgather", nb), 4 * c, Long::sum);
                b.merge(name("Allgatherv", nb), 4 * (c + r), Long::sum);
                b.merge(name("Alltoall", nb), 4 * c, Long::sum);
                b.merge(name("Alltoallv", nb), v, Long::sum);
                b.merge(name("Alltoallw", nb), w, Long::sum);
                b.merge(name("Reduce", nb), 4 * c, Long::sum);
                b.merge(name("Allreduce", nb), 4 * c, Long::sum);
                b.merge(name("Reduce_scatter", nb), 4 * all, Long::sum);
                b.merge(name("Reduce_scatter_block", nb), 4 * c, Long::sum);
                b.merge(name("Scan", nb), 4 * c, Long::sum);
                b.merge(name("Exscan", nb), 4 * c, Long::sum);
            }
        }
        return b;
    }

    static void breakdown(Snapshot[] snaps, int n, int base) {
        int bucket = 31 - Integer.numberOfLeadingZeros(n);
        for (int r = 0; r < n; r++) {
            Snapshot s = snaps[r];
            Snapshot.Breakdown d = s.breakdown();
            assertNotNull(d, "rank " + r + ": no version 3 part");
            assertTrue(d.startTicks() > 0, "rank " + r + ": the recorder's start not measured");
            Map<String, Long> want = buffers(n, r, base);
            for (int f = 0; f < s.names().length; f++) {
                String name = s.names()[f];
                long calls = s.stats()[f][Snapshot.CALLS];
                long[] byComm = d.commCalls()[f];
                long ticks = s.stats()[f][Snapshot.TICKS];
                assertTrue(LongStream.of(d.sizeTicks()[f]).sum() <= ticks, "rank " + r + " " + name + " time by size");
                assertTrue(LongStream.of(d.commTicks()[f]).sum() <= ticks, "rank " + r + " " + name + " time by comm");
                if (want.containsKey(name)) {
                    assertEquals(want.get(name), d.bufferBytes()[f], "rank " + r + " " + name + " buffer bytes");
                    long[] only = new long[Snapshot.COMM_BUCKETS];
                    only[bucket] = calls;
                    assertArrayEquals(only, byComm, "rank " + r + " " + name + " calls by communicator size");
                    assertTrue(calls > 0, "rank " + r + " " + name + " not called");
                } else {
                    assertEquals(0, d.bufferBytes()[f], "rank " + r + " " + name + " buffer bytes");
                    assertEquals(0, LongStream.of(byComm).sum(), "rank " + r + " " + name + " by communicator size");
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} {1} {2} ranks")
    @MethodSource("cases")
    void collectives(Impl impl, Level level, int ranks) {
        Result r = ProfileRun.run(impl, level, ranks, "colls", Integer.toString(C)).assertSuccess();
        for (int rank = 0; rank < ranks; rank++) {
            assertEquals(1, r.countOut("colls rank " + rank + " ok"), r::describe);
        }
        Expected e = expected(ranks, C);
        if (level == Level.C) {
            Snapshot[] snaps = ProfileRun.snapshots(r, ranks);
            Checks.of(r).snapshots(snaps, e, Snapshot.State.FINALIZE).done();
            breakdown(snaps, ranks, C);
        } else {
            Checks.of(r).profile(ProfileRun.profile(r), e).complete(ProfileRun.profile(r)).done();
        }
    }
}
