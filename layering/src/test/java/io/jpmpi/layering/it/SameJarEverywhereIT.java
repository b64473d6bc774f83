package io.jpmpi.layering.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.layering.tools.CountLevel;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.testsupport.Pingpong;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One compiled jar (CountLevel) on Open MPI and MPICH, under C, C++ and Fortran (mpif.h and
 * use mpi) programs, and under MPI_THREAD_MULTIPLE with 4 threads: exact counts on every rank,
 * program output unchanged, nothing of the JVM on stdout.
 */
class SameJarEverywhereIT {
    static final int K = 4;

    static Stream<Arguments> programs() {
        List<Arguments> all = new ArrayList<>();
        MpiRun.implementations().forEach(impl -> Pingpong.PROGRAMS.forEach(p -> all.add(Arguments.of(impl, p))));
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("programs")
    void exactCountsInEveryLanguage(Impl impl, String program) {
        String jar = Jars.of("jcount", CountLevel.class);
        Result r = MpiRun.on(impl).ranks(3).java().levels(jar).run(program, Integer.toString(K)).assertSuccess();
        assertEquals(Stream.of("pingpong: start", "pingpong: start", "pingpong: start", Pingpong.resultLine(3, K))
                .sorted().toList(), r.out().stream().sorted().toList(), "stdout is the program's only\n" + r.describe());
        for (int rank = 0; rank < 3; rank++) {
            assertEquals(Pingpong.counts(K, rank, 1), r.counts("jcount", rank), r::describe);
            assertTrue(r.err().contains("pcontrol jcount 2 rank " + rank), r::describe);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void fourThreadsThroughAJavaLevelAndACLevel(Impl impl) {
        long calls = 4 * 100_000;
        Result r = MpiRun.on(impl).ranks(2).java()
                .levels(MpiRun.entry(Jars.of("jcount", CountLevel.class), impl.file("libcount.so"))).run("threads")
                .assertSuccess();
        for (int rank = 0; rank < 2; rank++) {
            assertEquals(1, r.countOut("threads rank " + rank + ": 4x100000 calls, rank answers ok=" + calls),
                    r::describe);
            assertEquals(Pingpong.counts(1, calls, 0, 0, 0, calls + 1, 1), r.counts("jcount", rank), r::describe);
            // The C level below sees exactly the program's calls: the Java level's own rank query
            // (level().worldRank() after MPI_Init) goes to the library.
            assertEquals(Pingpong.counts(1, calls, 0, 0, 0, calls + 1, 1), r.counts("count", rank), r::describe);
        }
    }
}
