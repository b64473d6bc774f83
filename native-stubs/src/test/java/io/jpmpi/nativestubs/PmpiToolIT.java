package io.jpmpi.nativestubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.Pingpong;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves an ordinary PMPI tool works unchanged as a level, with its MPI_Init, MPI_Init_thread and
 * MPI_Finalize wrappers: tools/counttool.c alone counts every call of the program exactly once
 * and reports from inside MPI_Finalize; two copies stacked both count exactly the program's calls:
 * the upper one's own PMPI_Comm_rank (after PMPI_Init, inside its MPI_Init) goes to the library,
 * unseen by the lower one (the isolation rule). On Open MPI, the tool Open MPI itself ships
 * (libompitrace.so) works as a level above or below counttool: it traces each call exactly once,
 * and its own PMPI_Comm_rank calls (one per traced call) never reach counttool.
 */
class PmpiToolIT {
    static final int K = 3;
    static final Path OMPITRACE = Path.of("/usr/lib/x86_64-linux-gnu/openmpi/lib/libompitrace.so");
    /** A libompitrace line naming the rank: "MPI_SEND[0]: ...", "MPI_FINALIZE[1]". */
    static final Pattern TRACE = Pattern.compile("^(MPI_[A-Z_]+)\\[(\\d+)\\]");

    static Stream<Impl> openMpi() {
        return MpiRun.implementations().filter(i -> i == Impl.OPENMPI);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void countingToolCountsEveryCallOnce(Impl impl) {
        Result r = MpiRun.on(impl).ranks(3).levels(impl.file("libcount.so")).run("pingpong", Integer.toString(K))
                .assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(3, K)), r::describe);
        assertEquals(1, r.counts().size(), r::describe);
        for (int rank = 0; rank < 3; rank++) {
            // MPI_Finalize=1: the line came from its MPI_Finalize wrapper, not from the exit fallback
            assertEquals(Pingpong.counts(K, rank, 1), r.counts("count", rank), r::describe);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void twoCopiesStack(Impl impl) {
        Result r = MpiRun.on(impl).ranks(3)
                .levels(MpiRun.entry(impl.file("libcount.so"), impl.file("libcount2.so")))
                .run("pingpong", Integer.toString(K)).assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(3, K)), r::describe);
        for (int rank = 0; rank < 3; rank++) {
            assertEquals(Pingpong.counts(K, rank, 1), r.counts("count", rank), r::describe);
            assertEquals(Pingpong.counts(K, rank, 1), r.counts("count2", rank), r::describe);
        }
    }

    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("openMpi")
    void openMpisTraceToolAboveCountingTool(Impl impl) {
        assertTrue(Files.isRegularFile(OMPITRACE), "Open MPI is installed but " + OMPITRACE + " is missing");
        Result r = MpiRun.on(impl).ranks(3).levels(MpiRun.entry(OMPITRACE.toString(), impl.file("libcount.so")))
                .run("pingpong", Integer.toString(K)).assertSuccess();
        Map<String, Long> traced = checkTrace(r, 3);
        for (int rank = 0; rank < 3; rank++) {
            // libompitrace asks PMPI_Comm_rank once per call it traces with a rank: those go to the
            // library, and counttool counts the program's calls only
            assertTrue(tracedCalls(traced, rank) > 0, r::describe);
            assertEquals(Pingpong.counts(K, rank, 1), r.counts("count", rank), r::describe);
        }
    }

    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("openMpi")
    void openMpisTraceToolBelowCountingTool(Impl impl) {
        assertTrue(Files.isRegularFile(OMPITRACE), "Open MPI is installed but " + OMPITRACE + " is missing");
        Result r = MpiRun.on(impl).ranks(3).levels(MpiRun.entry(impl.file("libcount.so"), OMPITRACE.toString()))
                .run("pingpong", Integer.toString(K)).assertSuccess();
        checkTrace(r, 3);
        for (int rank = 0; rank < 3; rank++) {
            assertEquals(Pingpong.counts(K, rank, 1), r.counts("count", rank), r::describe);
        }
    }

    private static long tracedCalls(Map<String, Long> traced, int rank) {
        String suffix = "[" + rank + "]";
        return traced.entrySet().stream().filter(e -> e.getKey().endsWith(suffix)).mapToLong(Map.Entry::getValue)
                .sum();
    }

    /** Each call of pingpong traced exactly once, on its rank; returns "MPI_X[rank]" → lines. */
    private static Map<String, Long> checkTrace(Result r, int ranks) {
        assertEquals(1, r.countOut(Pingpong.resultLine(ranks, K)), r::describe);
        Map<String, Long> traced = new TreeMap<>();
        long inits = 0;
        for (String line : r.err()) {
            Matcher m = TRACE.matcher(line);
            if (m.find()) {
                traced.merge(m.group(1) + "[" + m.group(2) + "]", 1L, Long::sum);
            } else if (line.startsWith("MPI_INIT:")) {
                inits++;
            }
        }
        Map<String, Long> expected = new TreeMap<>();
        for (int rank = 0; rank < ranks; rank++) {
            if (rank < 2) {
                expected.put("MPI_SEND[" + rank + "]", (long) K);
                expected.put("MPI_RECV[" + rank + "]", (long) K);
            }
            expected.put("MPI_BARRIER[" + rank + "]", 1L);
            expected.put("MPI_ALLREDUCE[" + rank + "]", 1L);
            expected.put("MPI_FINALIZE[" + rank + "]", 1L);
        }
        assertEquals(expected, traced, r::describe);
        assertEquals(ranks, inits, r::describe);
        return traced;
    }
}
