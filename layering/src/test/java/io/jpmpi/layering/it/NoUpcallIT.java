package io.jpmpi.layering.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.layering.tools.AllocProbe;
import io.jpmpi.layering.tools.BarrierOnly;
import io.jpmpi.layering.tools.Nothing;
import io.jpmpi.layering.tools.UntypedBarrier;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.testsupport.Pingpong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Java level costs an upcall only for what it overrides. The dispatcher's own count of the
 * definitions a Java level installed (its "vv" table) is 0 for a level that overrides nothing -
 * no upcall stub exists, so no call can reach the JVM - and exactly 1 for a level overriding
 * MPI_Barrier; a C counting level below sees every call exactly once either way. And a
 * pass-through override allocates nothing per call (AllocProbe, 200 000 calls after warm-up, its
 * datatype and communicator made into records by the upcall and handed on). A method with the handles
 * as {@code long} (a tool built before typed handles) is named in one line and overrides nothing.
 */
class NoUpcallIT {
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void aLevelOverridingNothingHasNoUpcall(Impl impl) {
        withoutUpcalls(impl, Jars.of("nothing", Nothing.class));
    }

    /** Runs pingpong with {@code jar} over a C counting level: no upcall, every call counted once below. */
    private static Result withoutUpcalls(Impl impl, String jar) {
        Result r = MpiRun.on(impl).ranks(2).java().levels(MpiRun.entry("vv", jar, impl.file("libcount.so")))
                .run("pingpong", "3").assertSuccess();
        assertTrue(r.err().contains("jpmpi:   0  " + jar + "  (Java) defines 0 functions"), r::describe);
        for (int rank = 0; rank < 2; rank++) {
            assertEquals(Pingpong.counts(3, rank, 1), r.counts("count", rank), r::describe);
        }
        return r;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void aLevelOverridingOneFunctionHasOneUpcall(Impl impl) {
        String jar = Jars.of("barrier", BarrierOnly.class);
        Result r = MpiRun.on(impl).ranks(2).java().levels(MpiRun.entry("vv", jar)).run("pingpong", "3").assertSuccess();
        assertTrue(r.err().contains("jpmpi:   0  " + jar + "  (Java) defines 1 function"), r::describe);
        assertTrue(r.err().contains("jpmpi:        MPI_Barrier"), r::describe);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void nothingIsAllocatedPerCall(Impl impl) {
        String jar = Jars.of("alloc", AllocProbe.class);
        Result r = MpiRun.on(impl).ranks(1).java().levels(jar).run("sendloop", "1300000").assertSuccess();
        Matcher m = Pattern.compile("alloc rank 0: calls=(\\d+) bytes=(-?\\d+)").matcher(r.stderr());
        assertTrue(m.find(), r::describe);
        long calls = Long.parseLong(m.group(1));
        long bytes = Long.parseLong(m.group(2));
        assertTrue(bytes >= 0 && bytes < calls / 100, "allocated " + bytes + " bytes in " + calls + " calls\n"
                + r.describe());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void aMethodWithLongHandlesIsNamedAndOverridesNothing(Impl impl) {
        String jar = Jars.of("untyped", UntypedBarrier.class);
        Result r = withoutUpcalls(impl, jar);
        String line = "'" + jar + "': " + UntypedBarrier.class.getName() + ".MPI_Barrier takes its handles as long, as"
                + " jpmpi's API did before typed handles: it overrides nothing and is not called; rebuild the tool against"
                + " this jpmpi ((MPI_Comm))";
        assertEquals(2, r.err().stream().filter(l -> l.endsWith(line)).count(), r::describe);
        assertTrue(!r.err().contains("untyped MPI_Barrier called"), r::describe);
    }
}
