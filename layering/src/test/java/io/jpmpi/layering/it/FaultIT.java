package io.jpmpi.layering.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.layering.tools.Faulty;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.testsupport.Pingpong;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fault injection: an interceptor whose MPI_Send throws before or after passing the call on,
 * overflows its stack, runs out of memory, or calls System.exit / Runtime.exit / Runtime.halt.
 * Every time: the rank survives, the program's result is unchanged, a C counting level below sees
 * every MPI_Send exactly once (never twice, never lost), exactly one line per faulting rank names
 * the rank, the level, the interceptor, the function and the fault, and the level is off for the
 * rest of the run (its MPI_Finalize override never runs).
 */
class FaultIT {
    static final int K = 5;

    record Fault(String mode, String thrown) {
        @Override
        public String toString() {
            return mode;
        }
    }

    static final List<Fault> FAULTS = List.of(
            new Fault("before", "java.lang.IllegalStateException: injected before the call"),
            new Fault("after", "java.lang.IllegalArgumentException: injected after the call"),
            new Fault("soe", "java.lang.StackOverflowError"),
            new Fault("oom", "java.lang.OutOfMemoryError: .*"),
            new Fault("exit", ".*ExitAttempt: System.exit\\(3\\) was called; a Java level cannot end the MPI process"),
            new Fault("runtime-exit", ".*ExitAttempt: Runtime.exit\\(5\\) was called.*"),
            new Fault("halt", ".*ExitAttempt: Runtime.halt\\(4\\) was called.*"),
            new Fault("recursion", "io.jpmpi.layering.runtime.RunawayRecursion: mpi\\(\\).MPI_Send came back into"
                    + " this level 64 times on one thread without returning: endless recursion .*"),
            new Fault("reflect-exit", ".*ExitAttempt: System.exit\\(6\\) was called.*"),
            new Fault("handle-exit", ".*ExitAttempt: Runtime.exit\\(7\\) was called.*"));

    static Stream<Arguments> faults() {
        List<Arguments> all = new ArrayList<>();
        MpiRun.implementations().forEach(impl -> FAULTS.forEach(f -> all.add(Arguments.of(impl, f))));
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("faults")
    void theRankSurvivesAndTheCallHappensOnce(Impl impl, Fault fault) {
        String jar = Jars.of("faulty", Faulty.class);
        Result r = MpiRun.on(impl).ranks(2).java().env("JPMPI_TEST_FAULT", fault.mode())
                .levels(MpiRun.entry(jar, impl.file("libcount.so"))).run("pingpong", Integer.toString(K))
                .assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(2, K)), r::describe);
        Pattern line = Pattern.compile("jpmpi \\(rank (\\d)\\): level 0 '" + Pattern.quote(jar) + "': "
                + Pattern.quote(Faulty.class.getName()) + " failed in MPI_Send: " + fault.thrown()
                + "; the call went on to the next level, and this level is switched off for the rest of the run");
        List<String> reports = r.err().stream().filter(l -> l.contains("failed in")).toList();
        assertEquals(2, reports.size(), r::describe);
        for (String report : reports) {
            assertTrue(line.matcher(report).matches(), "unexpected report: " + report + "\n" + r.describe());
        }
        for (int rank = 0; rank < 2; rank++) {
            // Faulty asks MPI nothing of its own: the C level sees only the program's MPI_Comm_rank.
            assertEquals(Pingpong.counts(K, rank, 1), r.counts("count", rank), r::describe);
        }
        assertFalse(r.stderr().contains("faulty sends="), "the level is off: its MPI_Finalize never ran\n"
                + r.describe());
    }
}
