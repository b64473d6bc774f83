package io.jpmpi.layering.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.layering.tools.Nothing;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.testsupport.Pingpong;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * With a Java level listed the dispatcher starts at the first MPI call, which a Fortran program
 * makes from the MPI library's Fortran layer (MPICH's mpi_init_ calls MPI_Init, Open MPI's
 * PMPI_Init): that first call must enter at the `fort` position too, not at the top, or the level
 * above `fort` sees a Fortran MPI_Init and none of the rest.
 */
class FortranFirstCallIT {
    static final int K = 2;
    static final int RANKS = 2;

    static Stream<Arguments> fortranPrograms() {
        return MpiRun.implementations().flatMap(i -> Pingpong.FORTRAN.stream().map(p -> Arguments.of(i, p)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("fortranPrograms")
    void theFirstFortranCallEntersBelowFortToo(Impl impl, String program) {
        String jar = Jars.of("nothing", Nothing.class);
        Result r = MpiRun.on(impl).ranks(RANKS).java()
                .levels(MpiRun.entry(impl.file("libcount.so"), "fort", impl.file("libcount2.so"), jar))
                .run(program, Integer.toString(K)).assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(RANKS, K)), r::describe);
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(Pingpong.untouched(), r.counts("count", rank), r::describe);
            assertEquals(Pingpong.counts(K, rank, 1), r.counts("count2", rank), r::describe);
        }
        // gfortran's runtime sets its handlers with signal(): no JVM warning about it (layering/README.md, "Signals")
        assertEquals(List.of(), r.err().stream().filter(l -> l.contains("VM warning") || l.contains("signal()")).toList(),
                r::describe);
    }
}
