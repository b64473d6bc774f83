package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Call sites (PROFILE.md, "Call sites"; JPMPI_PROFILE_SITES=on): sites.c calls MPI_Comm_rank 10
 * times from the line marked SITE-A, 20 from SITE-B, 30 through a helper (SITE-C), once at its
 * start, and MPI_Barrier once (SITE-D). Each rank's sites/rank-R.tsv must hold exactly those sites
 * with those calls, in the program itself, and each site's module and offset must resolve with
 * addr2line to the marked line (the line numbers read from the source, not written here): for the
 * PIE build and the non-PIE one. A stripped build has the same sites and counts, in the
 * executable, with no symbol and no line (module + offset is what is left). A C++ member function
 * resolves to its demangled name and line; calls made by a shared library are sites in the library.
 */
class SitesIT {
    static final int RANKS = 2;
    static final Path SOURCES = Path.of("../../test-support/src/main/c/profilers").toAbsolutePath().normalize();
    static final Path SOURCE = SOURCES.resolve("sites.c");

    /** The line of the source holding `marker`. */
    static int line(String marker) throws IOException {
        return line(SOURCE, marker);
    }

    static int line(Path source, String marker) throws IOException {
        List<String> lines = Files.readAllLines(source);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("/* " + marker + " */")) {
                return i + 1;
            }
        }
        return fail(marker + " not in " + source);
    }

    /** addr2line's function (demangled) and file:line, innermost frame. */
    static List<String> function(String module, long offset) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("addr2line", "-f", "-C", "-e", module, "0x" + Long.toHexString(offset - 1))
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        p.waitFor();
        return out.lines().limit(2).map(l -> l.replaceAll(" \\(discriminator \\d+\\)", "")).toList();
    }

    /** One site's figures, added up over the rank's threads. */
    record Site(String function, String module, long offset, String symbol, long calls) {
    }

    static List<Site> sites(Result r, int rank) throws IOException {
        Path tsv = ProfileRun.dir(r).resolve("sites").resolve("rank-" + rank + ".tsv");
        if (!Files.isRegularFile(tsv)) {
            fail("no " + tsv + "\n" + r.describe());
        }
        Map<String, Site> bySite = new TreeMap<>();
        for (String l : Files.readAllLines(tsv)) {
            if (l.startsWith("#")) {
                continue;
            }
            String[] f = l.split("\t");
            assertEquals(8, f.length, l);
            String key = f[0] + " " + f[1] + " " + f[2];
            Site old = bySite.get(key);
            long calls = Long.parseLong(f[5]) + (old == null ? 0 : old.calls());
            bySite.put(key, new Site(f[0], f[1], Long.decode(f[2]), f[4], calls));
        }
        return new ArrayList<>(bySite.values());
    }

    /** addr2line's file:line of the call whose return address is at `offset` in `module` (innermost frame). */
    static String where(String module, long offset) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("addr2line", "-e", module, "0x" + Long.toHexString(offset - 1)).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        p.waitFor();
        return out.lines().findFirst().orElse("").replaceAll(" \\(discriminator \\d+\\)", "");
    }

    static Result run(Impl impl, String program) {
        return ProfileRun.run(impl, Level.C, RANKS, m -> m.env("JPMPI_PROFILE_SITES", "on"), impl.file(program))
                .assertSuccess();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("programs")
    void everySiteWithItsCallsAndItsLine(Impl impl, String program) throws Exception {
        Result r = run(impl, program);
        String exe = impl.file(program);
        Map<Integer, Long> expected = new TreeMap<>(Map.of(line("SITE-A"), 10L, line("SITE-B"), 20L,
                line("SITE-C"), 30L));
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(1, r.countOut("sites rank " + rank + ": ok"), r::describe);
            List<Site> sites = sites(r, rank);
            String at = "rank " + rank + " " + sites + "\n" + r.describe();
            for (Site s : sites) {
                assertEquals(Path.of(exe).toRealPath().toString(), Path.of(s.module()).toRealPath().toString(), at);
            }
            List<Site> ranks = sites.stream().filter(s -> s.function().equals("MPI_Comm_rank")).toList();
            List<Long> counts = ranks.stream().map(Site::calls).sorted().toList();
            assertEquals(List.of(1L, 10L, 20L, 30L), counts, at);
            assertEquals(List.of(1L), sites.stream().filter(s -> s.function().equals("MPI_Barrier"))
                    .map(Site::calls).toList(), at);
            if (program.equals("sites_stripped")) {
                for (Site s : sites) {
                    assertEquals("?", s.symbol(), at);
                    assertTrue(where(s.module(), s.offset()).startsWith("??"), at);
                }
                continue;
            }
            Map<Integer, Long> found = new TreeMap<>();
            for (Site s : ranks) {
                String w = where(s.module(), s.offset());
                assertTrue(w.startsWith(SOURCE.toString() + ":") || w.contains("sites.c:"), w + " " + at);
                int line = Integer.parseInt(w.substring(w.lastIndexOf(':') + 1));
                if (s.calls() > 1) {
                    found.put(line, s.calls());
                }
            }
            assertEquals(expected, found, at);
            Site barrier = sites.stream().filter(s -> s.function().equals("MPI_Barrier")).findFirst().orElseThrow();
            String w = where(barrier.module(), barrier.offset());
            assertEquals(line("SITE-D"), Integer.parseInt(w.substring(w.lastIndexOf(':') + 1)), w + " " + at);
        }
    }

    /** A C++ program: the site in a member function resolves to it, demangled, and to its line. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void cxx(Impl impl) throws Exception {
        Result r = run(impl, "sites_cxx");
        Path src = SOURCES.resolve("sitelib/sites_cxx.cpp");
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(1, r.countOut("sites_cxx rank " + rank + ": ok"), r::describe);
            List<Site> sites = sites(r, rank);
            String at = "rank " + rank + " " + sites + "\n" + r.describe();
            Site member = sites.stream().filter(s -> s.function().equals("MPI_Comm_rank") && s.calls() == 10)
                    .findFirst().orElseThrow(() -> new AssertionError(at));
            assertEquals(List.of("probe::Ranker::rank() const", src + ":" + line(src, "SITE-X")),
                    function(member.module(), member.offset()), at);
            Site barrier = sites.stream().filter(s -> s.function().equals("MPI_Barrier")).findFirst().orElseThrow();
            assertEquals(List.of("main", src + ":" + line(src, "SITE-Y")), function(barrier.module(), barrier.offset()),
                    at);
        }
    }

    /** Calls made by a shared library: the site is in the library (its path, its offset, its exported symbol). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void sharedLibraryCaller(Impl impl) throws Exception {
        Result r = run(impl, "sites_shlib");
        Path src = SOURCES.resolve("sitelib/sitelib.c");
        String lib = Path.of(impl.file("libsitelib.so")).toRealPath().toString();
        for (int rank = 0; rank < RANKS; rank++) {
            assertEquals(1, r.countOut("sites_shlib rank " + rank + ": ok"), r::describe);
            List<Site> sites = sites(r, rank);
            String at = "rank " + rank + " " + sites + "\n" + r.describe();
            Site inLib = sites.stream().filter(s -> s.function().equals("MPI_Comm_rank") && s.calls() == 7)
                    .findFirst().orElseThrow(() -> new AssertionError(at));
            assertEquals(lib, Path.of(inLib.module()).toRealPath().toString(), at);
            assertTrue(inLib.symbol().startsWith("sitelib_ranks+0x"), at);
            assertEquals(List.of("sitelib_ranks", src + ":" + line(src, "SITE-L")),
                    function(inLib.module(), inLib.offset()), at);
            assertEquals(1, sites.stream().filter(s -> s.function().equals("MPI_Comm_rank") && s.calls() == 1
                    && !s.module().equals(inLib.module())).count(), at);
        }
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> programs() {
        return MpiRun.implementations().flatMap(i -> java.util.stream.Stream.of("sites", "sites_nopie",
                "sites_stripped").map(p -> org.junit.jupiter.params.provider.Arguments.of(i, p)));
    }
}
