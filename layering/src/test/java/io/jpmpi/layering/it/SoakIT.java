package io.jpmpi.layering.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.layering.tools.GcStress;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JVM and the MPI library live together: programs/soak.c exchanges ring traffic for a minute
 * (system property jpmpi.soak.seconds) through a Java level (GcStress) that forces full GCs and
 * takes implicit null checks (SIGSEGV the JVM must handle) inside MPI calls - on Open MPI with
 * ob1, on Open MPI with UCX (which sets its SIGSEGV handler in MPI_Init, after the JVM's: the
 * dispatcher keeps it in the program's view, layering/README.md "Signals"), on Open MPI with UCX and
 * libjsig.so preloaded by hand (the dispatcher then leaves the chaining to it), and on MPICH. Every payload checks,
 * no rank dies, and stdout holds the program's line only.
 */
@Tag("soak") // long: only with -Psoak (see the root pom)
class SoakIT {
    static final int SECONDS = Integer.getInteger("jpmpi.soak.seconds", 60);
    static final Path LIBJSIG = Path.of(System.getProperty("java.home"), "lib", "libjsig.so");

    record Setup(String name, Impl impl, int seconds, UnaryOperator<MpiRun> apply) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> setups() {
        List<Setup> all = new ArrayList<>();
        MpiRun.implementations().forEach(impl -> {
            if (impl == Impl.OPENMPI) {
                all.add(new Setup("openmpi ob1", impl, SECONDS, r -> r.mca("pml", "ob1")));
                all.add(new Setup("openmpi ucx", impl, SECONDS, SoakIT::ucx));
                all.add(new Setup("openmpi ucx with libjsig preloaded by hand", impl, Math.max(5, SECONDS / 3),
                        r -> ucx(r).env("UCX_ERROR_SIGNALS", "SIGSEGV,SIGBUS,SIGFPE")
                                .env("LD_PRELOAD", LIBJSIG + ":" + impl.dispatcher())));
            } else {
                all.add(new Setup(impl.id, impl, SECONDS, r -> r));
            }
        });
        return all.stream().map(Arguments::of);
    }

    /** UCX for point-to-point even on a machine without a fast network (shared memory, TCP). */
    private static MpiRun ucx(MpiRun r) {
        return r.mca("pml", "ucx").mca("pml_ucx_tls", "any").mca("pml_ucx_devices", "any");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void aMinuteOfTrafficWithGcAndNullChecksInsideMpi(Setup s) {
        assertTrue(Files.isRegularFile(LIBJSIG), "no " + LIBJSIG);
        String jar = Jars.of("gcstress", GcStress.class);
        MpiRun run = MpiRun.on(s.impl()).ranks(2).java().levels(jar);
        Result r = s.apply().apply(run).run("soak", Integer.toString(s.seconds())).assertSuccess();
        assertEquals(1, r.out().size(), "stdout is the program's\n" + r.describe());
        Matcher m = Pattern.compile("soak: ranks=2 iterations=(\\d+) errors=0").matcher(r.out().get(0));
        assertTrue(m.matches(), r::describe);
        Pattern stress = Pattern.compile("gcstress rank \\d: calls=(\\d+) gcs=(\\d+) npes=(\\d+)");
        List<Matcher> lines = r.err().stream().map(stress::matcher).filter(Matcher::matches).toList();
        assertEquals(2, lines.size(), r::describe);
        for (Matcher l : lines) {
            assertTrue(Long.parseLong(l.group(2)) > 0 && Long.parseLong(l.group(3)) > 0, r::describe);
        }
    }
}
