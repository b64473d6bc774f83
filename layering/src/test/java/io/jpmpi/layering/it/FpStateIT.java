package io.jpmpi.layering.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jpmpi.layering.tools.GcStress;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The application's floating-point environment with a Java level (layering/README.md,
 * "Floating-point state"), fpstate.c on 2 ranks: after MPI_Init, MXCSR's control bits, its
 * denormal flag (the JVM's start used to raise it, which gfortran's runtime reports at STOP as
 * "IEEE_DENORMAL is signalling") and the x87 control word are those of the run without jpmpi; after
 * 1000 MPI_Comm_rank and an MPI_Allreduce through the Java level, the whole MXCSR and the x87
 * status word are too.
 */
class FpStateIT {
    static Stream<Impl> impls() {
        return MpiRun.implementations();
    }

    static List<String> lines(Result r) {
        return r.out().stream().filter(l -> l.startsWith("fpstate ")).sorted().toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void asWithoutJpmpi(Impl impl) {
        Result plain = MpiRun.on(impl).ranks(2).run("fpstate").assertSuccess();
        assumeTrue(plain.countOut("fpstate: not x86-64") == 0, "x86-64 only");
        String jar = Jars.of("gcstress", GcStress.class);
        Result r = MpiRun.on(impl).ranks(2).java().levels(MpiRun.entry(jar, impl.file("libcount.so"))).run("fpstate")
                .assertSuccess();
        assertEquals(4, lines(plain).size(), plain::describe);
        assertEquals(lines(plain), lines(r), r::describe);
    }
}
