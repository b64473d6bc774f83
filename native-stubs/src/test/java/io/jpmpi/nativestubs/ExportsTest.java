package io.jpmpi.nativestubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.platform.Toolchain;
import io.jpmpi.specs.MpiFunction;
import io.jpmpi.specs.MpiSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the built libraries export: each dispatcher exactly MPI_X and PMPI_X for every function of
 * the spec for its implementation (large-count, MPI_T and MPI_Wtime included) plus the jpmpi_
 * queries and the C library's ways to set a signal handler (core/signals.c: the program's view of
 * the crash signals once a JVM runs), nothing else, and no dependency on libmpi; the stub only the
 * jpmpi_ queries.
 */
class ExportsTest {
    static final Path NATIVE = Path.of(System.getProperty("jpmpi.native.dir", "target/classes/native"));
    static final Set<String> API = Set.of("jpmpi_active", "jpmpi_implementation", "jpmpi_level_count",
            "jpmpi_level_entry", "jpmpi_level_defines", "jpmpi_resolve", "jpmpi_function_count",
            "jpmpi_function_name", "jpmpi_caller_word", "jpmpi_level_of", "jpmpi_level_leave");
    static final Set<String> SIGNALS = Set.of("sigaction", "signal", "bsd_signal", "sysv_signal", "__sysv_signal");

    static Stream<String> implementations() {
        return MpiSpec.load().implementations().keySet().stream();
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void dispatcherExportsEveryFunctionOfTheSpecAndNothingElse(String impl) throws IOException {
        Path lib = NATIVE.resolve(impl).resolve("libmpiprofilesupport.so");
        assertTrue(Files.exists(lib), lib + " was not built (is " + impl + " installed?)");
        Set<String> expected = new TreeSet<>(API);
        expected.addAll(SIGNALS);
        for (MpiFunction f : MpiSpec.load().functionsOf(impl)) {
            expected.add(f.name());
            expected.add(f.pmpiName());
        }
        assertEquals(expected, Toolchain.exportedSymbols(lib), impl);
        String dynamic = Toolchain.run(List.of("readelf", "-d", lib.toString()));
        List<String> needed = dynamic.lines().filter(l -> l.contains("(NEEDED)")).toList();
        assertFalse(needed.isEmpty(), dynamic);
        assertTrue(needed.stream().noneMatch(l -> l.contains("libmpi")),
                impl + ": the dispatcher must not depend on the MPI library: " + needed);
        assertTrue(dynamic.contains("Library soname: [libmpiprofilesupport.so]"), dynamic);
    }

    @Test
    void stubExportsOnlyTheQueries() throws IOException {
        Path lib = NATIVE.resolve("stub").resolve("libmpiprofilesupport.so");
        assertEquals(new TreeSet<>(API), Toolchain.exportedSymbols(lib));
        assertTrue(Toolchain.run(List.of("readelf", "-d", lib.toString()))
                .contains("Library soname: [libmpiprofilesupport.so]"));
    }
}
