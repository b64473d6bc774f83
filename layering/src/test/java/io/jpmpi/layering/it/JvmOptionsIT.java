package io.jpmpi.layering.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.layering.tools.JvmFlagReporter;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.testsupport.Pingpong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rank's JVM runs with the kernel's process-wide memory barrier (java.c, system_barrier: the
 * thread-state changes of every call through a Java level then need no fence, ~11 ns a call on
 * this project's test machine, benchmarks/README.md), and JPMPI_JAVA_OPTIONS turns it off. The
 * kernels this project runs on (Linux ≥ 4.14) all have membarrier's private expedited command.
 */
class JvmOptionsIT {
    static final int K = 3;

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void systemMemoryBarrierOnByDefault(Impl impl) {
        Result r = run(impl, null);
        for (int rank = 0; rank < 2; rank++) {
            String line = "jvm rank " + rank + ": UseSystemMemoryBarrier=true";
            assertEquals(1, r.err().stream().filter(line::equals).count(), r::describe);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void offWithTheUsersOption(Impl impl) {
        Result r = run(impl, "-XX:-UseSystemMemoryBarrier");
        for (int rank = 0; rank < 2; rank++) {
            String line = "jvm rank " + rank + ": UseSystemMemoryBarrier=false";
            assertEquals(1, r.err().stream().filter(line::equals).count(), r::describe);
        }
    }

    private static Result run(Impl impl, String options) {
        String jar = Jars.of("jvmflags", JvmFlagReporter.class);
        MpiRun run = MpiRun.on(impl).ranks(2).java().levels(jar);
        if (options != null) {
            run = run.env("JPMPI_JAVA_OPTIONS", options);
        }
        Result r = run.run("pingpong", Integer.toString(K)).assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(2, K)), r::describe);
        return r;
    }
}
