package io.jpmpi.nativestubs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.Pingpong;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves the link-time route: programs/stubapp.c is linked with -lmpiprofilesupport against the
 * do-nothing stub, before libmpi. With the stub (found through its rpath) it runs as a plain MPI
 * program — jpmpi_active() is 0 and an entry list is ignored. The same binary, with a real
 * dispatcher's directory first on LD_LIBRARY_PATH, runs the levels (jpmpi_active() is 1 and the
 * jpmpi_ queries describe them) or, without a list, none. (What the stub exports is ExportsTest's.)
 */
class StubLinkIT {
    static final String INACTIVE = "stubapp: jpmpi_active=0 implementation='' levels=0 level0=- "
            + "level0_defines_MPI_Send=0 resolve_differs=0";
    static final String RESULT = "stubapp result: sum=30";
    /** Built by this module against its own stub (src/test/c/tests.mk), not by test-support. */
    static final Function<Impl, String> STUBAPP = impl -> Path.of(System.getProperty("jpmpi.stubapp.dir",
            "target/test-native")).toAbsolutePath().resolve(impl.id).resolve("stubapp").toString();
    /** Rank 0's line and rank 1's, sorted (two processes: they may arrive in either order). */
    static final List<String> PLAIN_OUTPUT = Stream.of(INACTIVE, RESULT).sorted().toList();

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void withTheStubItRunsUnchanged(Impl impl) {
        Result r = MpiRun.on(impl).ranks(2).run(STUBAPP.apply(impl)).assertSuccess();
        assertEquals(PLAIN_OUTPUT, r.out().stream().sorted().toList(), r::describe);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void theStubIgnoresAnEntryList(Impl impl) {
        Result r = MpiRun.on(impl).ranks(2).env("JPMPI_TOOLS_ENTRY", impl.file("libcount.so"))
                .run(STUBAPP.apply(impl))
                .assertSuccess();
        assertEquals(PLAIN_OUTPUT, r.out().stream().sorted().toList(), r::describe);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void realDispatcherFirstOnTheLibraryPathRunsTheLevels(Impl impl) {
        Result r = MpiRun.on(impl).ranks(2)
                .env("LD_LIBRARY_PATH", impl.dispatcherDir() + ":" + impl.testDir())
                .env("JPMPI_TOOLS_ENTRY", "libcount.so").run(STUBAPP.apply(impl)).assertSuccess();
        assertEquals(1, r.out().stream().filter(l -> l.matches(Pattern.quote("stubapp: jpmpi_active=1 implementation='"
                + impl.id + " ") + "\\S+" + Pattern.quote("' levels=1 level0=libcount.so level0_defines_MPI_Send=1 "
                + "resolve_differs=1"))).count(), r::describe);
        assertEquals(1, r.countOut(RESULT), r::describe);
        assertEquals(Pingpong.counts(1, 2, 0, 0, 0, 1, 1), r.counts("count", 0), r::describe);
        assertEquals(Pingpong.counts(1, 0, 2, 0, 0, 1, 1), r.counts("count", 1), r::describe);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void realDispatcherWithoutAListRunsNoLevels(Impl impl) {
        Result r = MpiRun.on(impl).ranks(2).env("LD_LIBRARY_PATH", impl.dispatcherDir().toString())
                .run(STUBAPP.apply(impl))
                .assertSuccess();
        assertEquals(1, r.out().stream().filter(l -> l.startsWith("stubapp: jpmpi_active=1 implementation='" + impl.id
                + " ") && l.endsWith("' levels=0 level0=- level0_defines_MPI_Send=0 resolve_differs=0")).count(),
                r::describe);
        assertEquals(1, r.countOut(RESULT), r::describe);
    }
}
