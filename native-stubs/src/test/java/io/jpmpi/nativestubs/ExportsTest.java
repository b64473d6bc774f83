package io.jpmpi.nativestubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.specs.MpiFunction;
import io.jpmpi.specs.MpiSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
 * queries, nothing else, and no dependency on libmpi; the stub only the jpmpi_ queries.
 */
class ExportsTest {
    static final Path NATIVE = Path.of(System.getProperty("jpmpi.native.dir", "target/classes/native"));
    static final Set<String> API = Set.of("jpmpi_active", "jpmpi_implementation", "jpmpi_level_count",
            "jpmpi_level_entry", "jpmpi_level_defines", "jpmpi_resolve");

    static Stream<String> implementations() {
        return MpiSpec.load().implementations().keySet().stream();
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void dispatcherExportsEveryFunctionOfTheSpecAndNothingElse(String impl) throws IOException {
        Path lib = NATIVE.resolve(impl).resolve("libmpiprofilesupport.so");
        assertTrue(Files.exists(lib), lib + " was not built (is " + impl + " installed?)");
        Set<String> expected = new TreeSet<>(API);
        for (MpiFunction f : MpiSpec.load().functionsOf(impl)) {
            expected.add(f.name());
            expected.add(f.pmpiName());
        }
        assertEquals(expected, exports(lib), impl);
        String dynamic = run(List.of("readelf", "-d", lib.toString()));
        List<String> needed = dynamic.lines().filter(l -> l.contains("(NEEDED)")).toList();
        assertFalse(needed.isEmpty(), dynamic);
        assertTrue(needed.stream().noneMatch(l -> l.contains("libmpi")),
                impl + ": the dispatcher must not depend on the MPI library: " + needed);
        assertTrue(dynamic.contains("Library soname: [libmpiprofilesupport.so]"), dynamic);
    }

    @Test
    void stubExportsOnlyTheQueries() throws IOException {
        Path lib = NATIVE.resolve("stub").resolve("libmpiprofilesupport.so");
        assertEquals(new TreeSet<>(API), exports(lib));
        assertTrue(run(List.of("readelf", "-d", lib.toString())).contains("Library soname: [libmpiprofilesupport.so]"));
    }

    private static Set<String> exports(Path lib) throws IOException {
        Set<String> out = new TreeSet<>();
        for (String line : run(List.of("nm", "-D", "--defined-only", lib.toString())).split("\n")) {
            String[] w = line.trim().split("\\s+");
            if (w.length == 3 && (w[1].equals("T") || w[1].equals("W") || w[1].equals("D") || w[1].equals("B"))) {
                out.add(w[2]);
            }
        }
        return out;
    }

    private static String run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (p.waitFor() != 0) {
                throw new IOException(cmd + " failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        return out;
    }
}
