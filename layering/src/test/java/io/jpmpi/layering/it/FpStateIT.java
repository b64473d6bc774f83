package io.jpmpi.layering.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jpmpi.layering.tools.FpNoise;
import io.jpmpi.layering.tools.GcStress;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The application's floating-point environment with Java levels (layering/README.md,
 * "Floating-point state"), fpstate.c on 2 ranks, exactly as without jpmpi: the whole MXCSR and the
 * x87 words after MPI_Init (the JVM's start used to raise the denormal flag, which gfortran's
 * runtime reports at STOP as "IEEE_DENORMAL is signalling"; the library's own inexact flag was
 * lost when a Java level intercepted MPI_Init); the same after 1000 MPI_Comm_rank, an
 * MPI_Allreduce and an MPI_Wtime through a Java level that raises flags of its own (FpNoise); an
 * MPI_Allreduce computed by the library under the program's rounding toward zero and under its
 * denormals-are-zero (it ran under the JVM's MXCSR), and the flags it raised. With one Java level
 * over a C level, and with two Java levels.
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
        assertEquals(8, lines(plain).size(), plain::describe);
        assertTrue(lines(plain).contains("fpstate rank 1 towardzero sum=0x1p+0 mxcsr=0x7fa0"), plain::describe);
        String noise = Jars.of("fpnoise", FpNoise.class);
        String gc = Jars.of("gcstress", GcStress.class);
        Result r = MpiRun.on(impl).ranks(2).java().levels(MpiRun.entry(noise, impl.file("libcount.so"))).run("fpstate")
                .assertSuccess();
        assertEquals(lines(plain), lines(r), r::describe);
        Result two = MpiRun.on(impl).ranks(2).java().levels(MpiRun.entry(gc, noise)).run("fpstate").assertSuccess();
        assertEquals(lines(plain), lines(two), two::describe);
    }
}
