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
 * Proves the levels do not change what a program computes: each pingpong program (C, C++, both
 * Fortran forms) prints the same result line — the known value for its K and rank count — with no
 * jpmpi at all, with the dispatcher preloaded and no levels, and under several stacks of levels.
 */
class ResultsUnchangedIT {
    static final int K = 5;
    static final int RANKS = 3;

    static Stream<Arguments> programs() {
        return MpiRun.implementations().flatMap(i -> Pingpong.PROGRAMS.stream().map(p -> Arguments.of(i, p)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("programs")
    void sameResultWithAndWithoutLevels(Impl impl, String program) {
        String expected = Pingpong.resultLine(RANKS, K);
        Result plain = MpiRun.on(impl).ranks(RANKS).run(program, "" + K).assertSuccess();
        List<String> baseline = plain.out().stream().filter(l -> l.startsWith("pingpong result:")).toList();
        assertEquals(List.of(expected), baseline, plain::describe);

        List<String> entries = List.of(
                "",
                impl.file("libcount.so"),
                MpiRun.entry(impl.file("libloga.so"), impl.file("libcount.so"), "fort", impl.file("libself.so"),
                        impl.file("libcount2.so"), impl.file("liblogb.so")));
        for (String entry : entries) {
            Result r = MpiRun.on(impl).ranks(RANKS).levels(entry).run(program, "" + K).assertSuccess();
            assertEquals(baseline, r.out().stream().filter(l -> l.startsWith("pingpong result:")).toList(),
                    () -> "levels '" + entry + "'\n" + r.describe());
        }
    }
}
