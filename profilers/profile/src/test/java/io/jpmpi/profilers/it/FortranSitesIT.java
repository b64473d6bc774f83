package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Call sites of a Fortran program (PROFILE.md, "Call sites"; native-stubs/README.md, "A Fortran
 * program's call site"): fsites.F90 calls mpi_comm_rank 10 times from the line marked SITE-A, 20
 * from SITE-B, 30 from a subroutine (SITE-C) and mpi_barrier once (SITE-D). Built as fsites it
 * goes through `use mpi`, so every call passes the MPI library's Fortran layer; as fsites_f08
 * through `use mpi_f08` (Open MPI: two of the library's frames, its mpi_f08 binding, then its
 * mpif.h layer). Each site must be the program's own line (the layer's frames stepped over), in the
 * executable, as for a C program: exactly those sites with those calls on every rank, resolving
 * with addr2line to the marked lines (read from the source).
 */
class FortranSitesIT {
    static final Path SOURCE = SitesIT.SOURCES.resolve("fsites.F90");

    /** The line of the source ending in the comment `! marker`. */
    static int line(String marker) throws Exception {
        List<String> lines = Files.readAllLines(SOURCE);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).endsWith("! " + marker)) {
                return i + 1;
            }
        }
        return fail(marker + " not in " + SOURCE);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("programs")
    void theProgramsOwnLines(Impl impl, String program) throws Exception {
        Result r = SitesIT.run(impl, program);
        String exe = Path.of(impl.file(program)).toRealPath().toString();
        Map<Integer, Long> expected = new TreeMap<>(Map.of(line("SITE-A"), 10L, line("SITE-B"), 20L,
                line("SITE-C"), 30L));
        for (int rank = 0; rank < SitesIT.RANKS; rank++) {
            assertEquals(1, r.countOut(program + " rank " + rank + ": ok"), r::describe);
            List<SitesIT.Site> sites = SitesIT.sites(r, rank);
            String at = "rank " + rank + " " + sites + "\n" + r.describe();
            Map<Integer, Long> found = new TreeMap<>();
            for (SitesIT.Site s : sites) {
                if (!s.function().equals("MPI_Comm_rank") && !s.function().equals("MPI_Barrier")) {
                    continue;
                }
                assertEquals(exe, Path.of(s.module()).toRealPath().toString(), s + " " + at);
                String w = SitesIT.where(s.module(), s.offset());
                assertTrue(w.contains("fsites.F90:"), w + " " + at);
                int line = Integer.parseInt(w.substring(w.lastIndexOf(':') + 1));
                if (s.function().equals("MPI_Barrier")) {
                    assertEquals(line("SITE-D"), line, w + " " + at);
                    assertEquals(1, s.calls(), at);
                } else if (s.calls() > 1) {
                    found.put(line, s.calls());
                }
            }
            assertEquals(expected, found, at);
            assertEquals(List.of(1L, 10L, 20L, 30L), sites.stream().filter(s -> s.function().equals("MPI_Comm_rank"))
                    .map(SitesIT.Site::calls).sorted().toList(), at);
        }
    }

    static Stream<Arguments> programs() {
        return MpiRun.implementations().flatMap(i -> Stream.of("fsites", "fsites_f08").map(p -> Arguments.of(i, p)));
    }
}
