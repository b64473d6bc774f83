package io.jpmpi.layering.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.layering.tools.GcStress;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The crash signals of a rank with a JVM (layering/README.md, "Signals"). sigown.c sets its own
 * SIGSEGV handler after MPI_Init and recovers from three faults of its own, with MPI_Allreduce
 * calls between them, while a Java level (GcStress) allocates, forces full GCs and takes implicit
 * null checks inside those calls: the JVM keeps its own faults, the program gets its own. What
 * the program sees of its handlers (whether one was set before its own, what sigaction() and
 * signal() return) and its results are line for line those of the run without jpmpi, and no line
 * of the JVM's is printed. (A crash that ends the rank: EarlyEndIT's segv mode.)
 */
class SignalsIT {
    static Stream<Impl> impls() {
        return MpiRun.implementations();
    }

    static List<String> lines(Result r) {
        return r.out().stream().filter(l -> l.startsWith("sigown ")).sorted().toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void theProgramKeepsItsOwnHandler(Impl impl) {
        Result plain = MpiRun.on(impl).ranks(2).run("sigown", "3").assertSuccess();
        for (int rank = 0; rank < 2; rank++) {
            assertEquals(1, plain.countOut("sigown rank " + rank + " recovered 3"), plain::describe);
        }
        String jar = Jars.of("gcstress", GcStress.class);
        Result r = MpiRun.on(impl).ranks(2).java().levels(MpiRun.entry(jar, impl.file("libcount.so")))
                .run("sigown", "3").assertSuccess();
        assertEquals(lines(plain), lines(r), r::describe);
        assertEquals(10, lines(r).size(), r::describe);
        assertEquals(2, r.err().stream().filter(l -> l.startsWith("gcstress rank ")).count(), r::describe);
        assertEquals(List.of(), Stream.concat(r.out().stream(), r.err().stream())
                .filter(l -> l.contains("VM warning") || l.contains("Java Runtime") || l.contains("hs_err")).toList(),
                r::describe);
        // stdout: the program's lines and the C counting level's, nothing else
        assertTrue(r.out().stream().allMatch(l -> l.startsWith("sigown ") || l.startsWith("count count rank ")),
                r::describe);
        // the JVM's own faults went on being the JVM's: GcStress's null checks became exceptions
        assertTrue(r.err().stream().filter(l -> l.startsWith("gcstress rank ")).allMatch(l -> !l.endsWith("npes=0")),
                r::describe);
    }
}
