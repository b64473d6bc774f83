package io.jpmpi.nativestubs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.Pingpong;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves the `fort` item places the MPI library's Fortran layer in the chain. By default (or with
 * `fort` first) the Fortran programs' calls enter at the top and a counting level sees them. With
 * `libcount.so,fort,libcount2.so` they enter below libcount.so: it sees none of them (its line,
 * printed at exit since its MPI_Finalize is never reached, has only zeros) while libcount2.so
 * sees each exactly once; the C program's calls still enter at the top and both levels count
 * them. MPI_Pcontrol from Fortran is a Fortran call too: it must reach only the levels below
 * `fort`.
 */
class FortranPositionIT {
    static final int K = 2;
    static final int RANKS = 2;

    static Stream<Arguments> fortranPrograms() {
        return MpiRun.implementations().flatMap(i -> Pingpong.FORTRAN.stream().map(p -> Arguments.of(i, p)));
    }

    private static Result run(Impl impl, String program, String... items) {
        Result r = MpiRun.on(impl).ranks(RANKS).levels(MpiRun.entry(items)).run(program, Integer.toString(K))
                .assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(RANKS, K)), r::describe);
        return r;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("fortranPrograms")
    void fortranCallsEnterAtTheTopByDefault(Impl impl, String program) {
        for (List<String> items : List.of(List.of(impl.file("libcount.so")), List.of("fort", impl.file("libcount.so")))) {
            Result r = run(impl, program, items.toArray(String[]::new));
            for (int rank = 0; rank < RANKS; rank++) {
                assertEquals(Pingpong.counts(K, rank, 1), r.counts("count", rank), items + "\n" + r.describe());
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("fortranPrograms")
    void fortranCallsSkipTheLevelsAboveFort(Impl impl, String program) {
        Result r = run(impl, program, impl.file("libcount.so"), "fort", impl.file("libcount2.so"));
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(Pingpong.untouched(), r.counts("count", rank), r::describe);
            // 1: libcount.so never saw MPI_Init, so it never asked for its rank
            assertEquals(Pingpong.counts(K, rank, 1), r.counts("count2", rank), r::describe);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("fortranPrograms")
    void fortBelowEveryLevelHidesFortranCallsFromAll(Impl impl, String program) {
        Result r = run(impl, program, impl.file("libcount.so"), "fortran");
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(Pingpong.untouched(), r.counts("count", rank), r::describe);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void cCallsStillEnterAtTheTop(Impl impl) {
        Result r = run(impl, "pingpong", impl.file("libcount.so"), "fort", impl.file("libcount2.so"));
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(Pingpong.counts(K, rank, 1), r.counts("count", rank), r::describe);
            assertEquals(Pingpong.counts(K, rank, 1), r.counts("count2", rank), r::describe);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("fortranPrograms")
    void fortranPcontrolSkipsTheLevelsAboveFort(Impl impl, String program) {
        Result r = run(impl, program, impl.file("libcount.so"), "fort", impl.file("libcount2.so"));
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(1, r.countOut("pcontrol count2 2 rank " + rank), r::describe);
            assertEquals(0, r.countOut("pcontrol count 2 rank " + rank),
                    "libcount.so is above `fort` but received the Fortran program's MPI_PCONTROL\n" + r.describe());
        }
    }
}
