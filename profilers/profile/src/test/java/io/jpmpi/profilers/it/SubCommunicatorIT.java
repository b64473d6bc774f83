package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.profilers.profile.Snapshot;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Collectives on a communicator whose ranks are not the world's (subcomm.c: split by parity, order
 * reversed): the rank-to-rank matrix names world ranks, so a collective's messages land on the
 * processes that exchanged them, not on the world ranks that share their communicator ranks.
 * Snapshot version 3 (the recorder alone): both collectives are calls on a communicator of 2 processes
 * (the bucket of 2-3, not the world's 4-7), and each rank's buffer bytes are the Bcast's 40 and the
 * Alltoall's 4 (one int to each process), whatever its part in the call.
 */
class SubCommunicatorIT {
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void theMatrixNamesWorldRanks(Impl impl, Level level) {
        Result r = ProfileRun.run(impl, level, 4, "subcomm");
        assertEquals(0, r.exit(), r::describe);
        for (int rank = 0; rank < 4; rank++) {
            String line = "subcomm rank " + rank + ": ok";
            assertEquals(1, r.out().stream().filter(line::equals).count(), r::describe);
        }
        // [sender][receiver]: Bcast of 40 bytes from the sub-communicator's rank 0 (world 2 and 3),
        // then Alltoall of 4 bytes each way between the two members.
        long[][] messages = {{0, 0, 1, 0}, {0, 0, 0, 1}, {2, 0, 0, 0}, {0, 2, 0, 0}};
        long[][] bytes = {{0, 0, 4, 0}, {0, 0, 0, 4}, {44, 0, 0, 0}, {0, 44, 0, 0}};
        for (int rank = 0; rank < 4; rank++) {
            if (level == Level.C) {
                Snapshot s = snapshot(r, rank);
                List<String> names = List.of(s.names());
                int bcast = names.indexOf("MPI_Bcast");
                int alltoall = names.indexOf("MPI_Alltoall");
                long[] two = new long[Snapshot.COMM_BUCKETS];
                two[1] = 1;
                assertArrayEquals(two, s.breakdown().commCalls()[bcast], "MPI_Bcast by communicator size");
                assertArrayEquals(two, s.breakdown().commCalls()[alltoall], "MPI_Alltoall by communicator size");
                assertEquals(40, s.breakdown().bufferBytes()[bcast], "MPI_Bcast buffer bytes");
                assertEquals(4, s.breakdown().bufferBytes()[alltoall], "MPI_Alltoall buffer bytes");
                long others = IntStream.range(0, names.size()).filter(f -> f != bcast && f != alltoall)
                        .mapToLong(f -> Arrays.stream(s.breakdown().commCalls()[f]).sum()).sum();
                assertEquals(0, others, "no other function on a communicator");
            }
            assertSent(r, level, rank, messages[rank], bytes[rank]);
        }
    }

    /**
     * commreuse.c: six communicators made and freed in turn, alternately in the world's order and
     * reversed, the next one often given the handle of the one before. The recorder keeps each
     * thread's last communicator's world ranks; a freed handle must not keep them for the next
     * communicator that gets its value.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void aFreedHandleGivenAgainMapsItsNewRanks(Impl impl, Level level) {
        Result r = ProfileRun.run(impl, level, 4, "commreuse");
        assertEquals(0, r.exit(), r::describe);
        for (int rank = 0; rank < 4; rank++) {
            String line = "commreuse rank " + rank + ": ok";
            assertEquals(1, r.out().stream().filter(l -> l.startsWith(line)).count(), r::describe);
            long[] messages = new long[4];
            long[] bytes = new long[4];
            messages[(rank + 1) % 4] = 3; // rounds 0, 2, 4: 1 + 3 + 5 ints
            bytes[(rank + 1) % 4] = 36;
            messages[(rank + 3) % 4] = 3; // rounds 1, 3, 5: 2 + 4 + 6 ints
            bytes[(rank + 3) % 4] = 48;
            assertSent(r, level, rank, messages, bytes);
        }
    }

    private static Snapshot snapshot(Result r, int rank) {
        return ProfileRun.snapshot(r, ProfileRun.dir(r).resolve("ranks").resolve("rank-" + rank + ".bin"));
    }

    /** World rank `rank`'s row of the matrix (messages and bytes to each world rank): its dump's, or the merged profile's. */
    private static void assertSent(Result r, Level level, int rank, long[] messages, long[] bytes) {
        long[] sentMessages;
        long[] sentBytes;
        if (level == Level.C) {
            Snapshot s = snapshot(r, rank);
            sentMessages = s.messages();
            sentBytes = s.bytes();
        } else {
            Profile p = ProfileRun.profile(r);
            sentMessages = row(p.messages().get(rank));
            sentBytes = row(p.bytes().get(rank));
        }
        assertArrayEquals(messages, sentMessages, () -> "messages from world rank " + rank + "\n" + r.describe());
        assertArrayEquals(bytes, sentBytes, () -> "bytes from world rank " + rank + "\n" + r.describe());
    }

    private static long[] row(Profile.SparseRow r) {
        long[] all = new long[4];
        for (int peer = 0; peer < 4; peer++) {
            all[peer] = r.get(peer);
        }
        return all;
    }
}
