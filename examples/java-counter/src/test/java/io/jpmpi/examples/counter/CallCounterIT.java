package io.jpmpi.examples.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs the native-stubs test program pingpong (C) and pingpong_mpif (Fortran, mpif.h) under real
 * mpirun (Open MPI) and mpiexec.hydra (MPICH) with the example jar as the only level, and checks
 * what CallCounter printed against what the program does (pingpong.c): per rank, K MPI_Send and K
 * MPI_Recv of one int on ranks 0 and 1 (none elsewhere), one MPI_Barrier, one MPI_Allreduce of one
 * int. Also checks that the level's line went to stderr, that stdout is exactly what the program
 * prints without jpmpi, and that the level was never switched off.
 */
class CallCounterIT {
    static final int K = 5;
    static final int INT_SIZE = 4;
    static final List<String> PROGRAMS = List.of("pingpong", "pingpong_mpif");
    static final List<Integer> RANKS = List.of(2, 4);

    static Path jar;

    @BeforeAll
    static void theJarIsBuilt() throws IOException {
        String path = System.getProperty("jpmpi.example.jar");
        assertNotNull(path, "the system property jpmpi.example.jar is not set (run the tests with Maven)");
        jar = Path.of(path).toAbsolutePath();
        assertTrue(Files.isRegularFile(jar), () -> "missing " + jar + ": the jar plugin builds it in process-classes");
        try (JarFile j = new JarFile(jar.toFile())) {
            var services = j.getJarEntry("META-INF/services/io.jpmpi.layering.Interceptor");
            assertNotNull(services, jar + " has no services file");
            String listed = new String(j.getInputStream(services).readAllBytes(), StandardCharsets.UTF_8).strip();
            assertEquals(CallCounter.class.getName(), listed);
            assertNotNull(j.getJarEntry(CallCounter.class.getName().replace('.', '/') + ".class"));
        }
    }

    static Stream<Arguments> runs() {
        return MpiRun.implementations().flatMap(impl -> PROGRAMS.stream()
                .flatMap(program -> RANKS.stream().map(n -> Arguments.of(impl, program, n))));
    }

    @ParameterizedTest(name = "{0} {1} -np {2}")
    @MethodSource("runs")
    void countsExactly(Impl impl, String program, int ranks) {
        String k = Integer.toString(K);
        Result plain = MpiRun.on(impl).ranks(ranks).run(program, k).assertSuccess();
        Result r = MpiRun.on(impl).ranks(ranks).java().levels(jar.toString()).run(program, k).assertSuccess();

        // The program's output is untouched: the same result line, and no other line added to stdout.
        List<String> result = resultLines(r);
        assertEquals(1, result.size(), r::describe);
        assertEquals(resultLines(plain), result, () -> "without jpmpi:\n" + plain.describe() + "\nwith:\n" + r.describe());
        assertEquals(plain.out().stream().sorted().toList(), r.out().stream().sorted().toList(),
                () -> "stdout differs from a run without jpmpi:\n" + plain.describe() + "\nwith:\n" + r.describe());
        assertTrue(r.out().stream().noneMatch(l -> l.startsWith("count ")), r::describe);

        // Nothing failed inside the level.
        assertTrue(r.err().stream().noneMatch(l -> l.contains("switched off")), r::describe);

        // One line per rank, from this tool only, on stderr (a Java level's System.out).
        assertEquals(Set.of(CallCounter.TOOL), r.counts().keySet(), r::describe);
        assertEquals(ranks, r.counts().get(CallCounter.TOOL).size(), r::describe);
        for (int rank = 0; rank < ranks; rank++) {
            String prefix = "count " + CallCounter.TOOL + " rank " + rank + ": ";
            assertEquals(1, r.err().stream().filter(l -> l.startsWith(prefix)).count(), r::describe);
            assertEquals(expected(rank), r.counts(CallCounter.TOOL, rank), "rank " + rank + "\n" + r.describe());
        }
    }

    /** What pingpong K does on `rank`, as CallCounter counts it. */
    static Map<String, Long> expected(int rank) {
        long pingpong = rank < 2 ? K : 0;
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("MPI_Send", pingpong);
        m.put("MPI_Recv", pingpong);
        m.put("MPI_Barrier", 1L);
        m.put("MPI_Allreduce", 1L);
        m.put("bytes_sent", pingpong * INT_SIZE);
        m.put("bytes_recv", pingpong * INT_SIZE);
        m.put("MPI_Isend", 0L);
        m.put("MPI_Irecv", 0L);
        m.put("MPI_Bcast", 0L);
        m.put("MPI_Reduce", 0L);
        m.put("bytes_coll", (long) INT_SIZE);
        return m;
    }

    static List<String> resultLines(Result r) {
        return r.out().stream().filter(l -> l.startsWith("pingpong result:")).toList();
    }
}
