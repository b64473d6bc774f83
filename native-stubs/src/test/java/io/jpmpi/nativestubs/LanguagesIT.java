package io.jpmpi.nativestubs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.Pingpong;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves every way a program enters MPI passes through the levels exactly once: the same program
 * in C, in C++ (the C API), in Fortran with mpif.h and in Fortran with `use mpi` makes the same
 * calls, and a counting level (tools/counttool.c) reports the same exact numbers for each —
 * MPI_Init and MPI_Finalize included, nothing counted twice (the Fortran layer's calls into the C
 * library are not seen a second time) and nothing missed — and sees its MPI_Pcontrol once.
 */
class LanguagesIT {
    static final int K = 4;
    static final int RANKS = 3;

    static Stream<Arguments> programs() {
        return MpiRun.implementations().flatMap(i -> Pingpong.PROGRAMS.stream().map(p -> Arguments.of(i, p)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("programs")
    void everyCallCountedOnce(Impl impl, String program) {
        Result r = MpiRun.on(impl).ranks(RANKS).levels(impl.file("libcount.so")).run(program, Integer.toString(K))
                .assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(RANKS, K)), r::describe);
        assertEquals(1, r.counts().size(), r::describe);
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(Pingpong.counts(K, rank, 1), r.counts("count", rank), "rank " + rank + "\n" + r.describe());
            assertEquals(1, r.countOut("pcontrol count 2 rank " + rank), r::describe);
        }
    }
}
