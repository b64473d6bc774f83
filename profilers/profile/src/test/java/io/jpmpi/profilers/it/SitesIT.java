package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.profilers.report.CallSites;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.profilers.report.ProfileWriter;
import io.jpmpi.profilers.report.Stat;
import io.jpmpi.profilers.report.TextReport;
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
 * Call sites (PROFILE.md, "Call sites"; on unless JPMPI_PROFILE_SITES=off): sites.c calls MPI_Comm_rank 10
 * times from the line marked SITE-A, 20 from SITE-B, 30 through a helper (SITE-C), once at its
 * start, and MPI_Barrier once (SITE-D). Each rank's sites/rank-R.tsv must hold exactly those sites
 * with those calls, in the program itself, and each site's module and offset must resolve with
 * addr2line to the marked line (the line numbers read from the source, not written here): for the
 * PIE build and the non-PIE one. A stripped build has the same sites and counts, in the
 * executable, with no symbol and no line (module + offset is what is left). A C++ member function
 * resolves to its demangled name and line; calls made by a shared library are sites in the library.
 */
class SitesIT {
    static final int RANKS = 3;
    static final Path SOURCES = Path.of("../../test-support/src/main/c/profilers").toAbsolutePath().normalize();
    static final Path SOURCE = SOURCES.resolve("sites.c");

    /** The line of the source holding `marker`. */
    static int line(String marker) throws IOException {
        return line(SOURCE, marker);
    }

    /** The one line of `source` that holds `text` (a call without a marker). */
    static int lineWith(Path source, String text) throws IOException {
        List<String> lines = Files.readAllLines(source);
        int found = 0;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                assertEquals(0, found, text + " on more than one line of " + source);
                found = i + 1;
            }
        }
        assertTrue(found > 0, text + " not in " + source);
        return found;
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
        return ProfileRun.run(impl, Level.C, RANKS, impl.file(program)).assertSuccess(); // sites on by default
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

    // --- profile.json and the reports: the merge that jpmpi run and jpmpi report do ----------------

    /**
     * What {@code jpmpi report DIR} does with the run's directory (ProfileWriter: the ranks' dumps
     * merged, the sites named with addr2line), profile.json read back; report.txt must list sites.
     */
    static Profile merged(Result r) throws IOException {
        Path dir = ProfileRun.dir(r);
        ProfileWriter.writeAll(ProfileWriter.mergeDumps(dir), dir);
        Profile p = ProfileJson.read(dir.resolve("profile.json"));
        assertEquals(Profile.SCHEMA, p.schema());
        assertTrue(Files.readString(dir.resolve("report.txt")).contains("\nCall sites by time (sums over " + RANKS
                + " ranks;"), r::describe);
        assertTrue(Files.readString(dir.resolve("report.html")).contains("<table class=\"sortable\" id=\"sites\">"));
        return p;
    }

    /** A site as the test expects it: function, file:line and function name (null: no line), calls per rank. */
    record Want(String function, String where, long perRank) {
    }

    /** The sites of sites.c: every MPI call of the program, the lines read from the source. */
    static List<Want> sitesOfSitesC() throws IOException {
        String c = "sites.c:";
        return List.of(new Want("MPI_Init", c + lineWith(SOURCE, "MPI_Init(&argc") + " main", 1),
                new Want("MPI_Comm_rank", c + lineWith(SOURCE, "MPI_Comm_rank(MPI_COMM_WORLD, &rank)") + " main", 1),
                new Want("MPI_Comm_size", c + lineWith(SOURCE, "MPI_Comm_size(") + " main", 1),
                new Want("MPI_Comm_rank", c + line("SITE-A") + " main", 10),
                new Want("MPI_Comm_rank", c + line("SITE-B") + " main", 20),
                new Want("MPI_Comm_rank", c + line("SITE-C") + " helper", 30),
                new Want("MPI_Barrier", c + line("SITE-D") + " main", 1),
                new Want("MPI_Finalize", c + lineWith(SOURCE, "MPI_Finalize()") + " main", 1));
    }

    /** Each site's calls: the same on every rank, summed over the ranks. */
    static void sameOnEveryRank(CallSites.Site s, long perRank, String at) {
        assertEquals(new Stat(perRank * RANKS, perRank, 0, perRank, 0, perRank, 0), s.calls(), s + at);
    }

    /**
     * profile.json's sites of sites.c (PIE and -no-pie): exactly the program's eight, each named by
     * its file, line and function from the debug information, in the executable, with its calls on
     * every rank; the report's top sites show them. Stripped: the same sites and calls, named by
     * module+offset, and the report says once why.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("programs")
    void profileJsonHasEverySiteNamed(Impl impl, String program) throws Exception {
        Result r = run(impl, program);
        Profile p = merged(r);
        String at = "\n" + p.sites() + "\n" + r.describe();
        String exe = Path.of(impl.file(program)).toRealPath().toString();
        List<CallSites.Site> sites = p.sites().sites();
        for (CallSites.Site s : sites) {
            assertEquals(exe, Path.of(s.module()).toRealPath().toString(), at);
        }
        List<Want> wanted = sitesOfSitesC();
        assertEquals(wanted.size(), sites.size(), at);
        String report = Files.readString(ProfileRun.dir(r).resolve("report.txt"));
        if (program.equals("sites_stripped")) {
            assertEquals(wanted.stream().map(w -> w.function() + " " + w.perRank()).sorted().toList(),
                    sites.stream().map(s -> s.function() + " " + (long) s.calls().max()).sorted().toList(), at);
            for (CallSites.Site s : sites) {
                assertEquals(CallSites.Resolved.MODULE, s.resolved(), at);
                assertEquals(null, s.file(), at);
                assertEquals(null, s.symbol(), at);
                assertEquals("sites_stripped+0x" + Long.toHexString(s.offset()), s.where(), at);
                sameOnEveryRank(s, (long) s.calls().max(), at);
            }
            assertTrue(p.sites().note().contains("no debug information for some sites in sites_stripped"), at);
            assertEquals(1, report.split("no debug information", -1).length - 1, report);
            return;
        }
        for (Want w : wanted) {
            List<CallSites.Site> found = sites.stream().filter(s -> s.function().equals(w.function())
                    && s.where().equals(w.where())).toList();
            assertEquals(1, found.size(), w + at);
            CallSites.Site s = found.get(0);
            assertEquals(CallSites.Resolved.LINE, s.resolved(), at);
            assertTrue(s.file().endsWith("/sites.c"), s.file());
            sameOnEveryRank(s, w.perRank(), at);
        }
        assertEquals(null, p.sites().note(), at);
        String siteC = "sites.c:" + line("SITE-C");
        String helper = report.lines().filter(l -> l.startsWith(siteC + " helper ")).findFirst()
                .orElseThrow(() -> new AssertionError(report));
        assertEquals(List.of("sites.c:" + line("SITE-C"), "helper", "MPI_Comm_rank", Long.toString(30L * RANKS)),
                List.of(helper.trim().split(" +")).subList(0, 4), helper);
        assertTrue(report.contains("\nMPI_Comm_rank           sites.c:"), report); // the function's own sites
    }

    /** C++: the member function's site named demangled with its line; a shared library's site in the library. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void profileJsonOfCxxAndSharedLibraryCallers(Impl impl) throws Exception {
        Path cxx = SOURCES.resolve("sitelib/sites_cxx.cpp");
        Profile p = merged(run(impl, "sites_cxx"));
        String at = "\n" + p.sites();
        CallSites.Site member = p.sites().sites().stream().filter(s -> s.calls().sum() == 10 * RANKS).findFirst()
                .orElseThrow(() -> new AssertionError(at));
        assertEquals("sites_cxx.cpp:" + line(cxx, "SITE-X") + " probe::Ranker::rank() const", member.where(), at);
        assertEquals("MPI_Comm_rank", member.function());
        sameOnEveryRank(member, 10, at);
        String siteY = "sites_cxx.cpp:" + line(cxx, "SITE-Y") + " main";
        assertEquals(1, p.sites().sites().stream().filter(s -> s.where().equals(siteY)
                && s.function().equals("MPI_Barrier")).count(), at);

        Path lib = SOURCES.resolve("sitelib/sitelib.c");
        Profile q = merged(run(impl, "sites_shlib"));
        String at2 = "\n" + q.sites();
        CallSites.Site inLib = q.sites().sites().stream().filter(s -> s.calls().sum() == 7 * RANKS).findFirst()
                .orElseThrow(() -> new AssertionError(at2));
        assertEquals(Path.of(impl.file("libsitelib.so")).toRealPath().toString(),
                Path.of(inLib.module()).toRealPath().toString(), at2);
        assertEquals("sitelib.c:" + line(lib, "SITE-L") + " sitelib_ranks", inLib.where(), at2);
        assertTrue(inLib.symbol().startsWith("sitelib_ranks+0x"), at2);
        sameOnEveryRank(inLib, 7, at2);
    }

    /**
     * With the profile's Java level (a by-hand entry list) the ranks write profile.json at
     * MPI_Finalize, without sites; every rank's table is written too, and what the launcher does
     * after the job (ProfileWriter.addSites) adds the same eight named sites to it.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void theJavaLevelsProfileGetsItsSitesAfterTheJob(Impl impl) throws Exception {
        Result r = ProfileRun.run(impl, Level.FULL, RANKS, impl.file("sites")).assertSuccess();
        Profile written = ProfileRun.profile(r);
        assertEquals(null, written.sites(), r::describe);
        Profile p = ProfileWriter.addSites(written, ProfileRun.dir(r));
        String at = "\n" + p.sites() + "\n" + r.describe();
        assertEquals(sitesOfSitesC().stream().map(w -> w.function() + " " + w.where() + " " + w.perRank() * RANKS)
                .sorted().toList(), p.sites().sites().stream().map(s -> s.function() + " " + s.where() + " "
                + (long) s.calls().sum()).sorted().toList(), at);
        assertEquals(p, ProfileJson.read(ProfileRun.dir(r).resolve("profile.json")));
    }

    /** JPMPI_PROFILE_SITES=off: no table, no sites in profile.json; another value: said once per rank, then on. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void offAndBadValues(Impl impl) throws Exception {
        Result off = ProfileRun.run(impl, Level.C, RANKS, m -> m.env("JPMPI_PROFILE_SITES", "off"), impl.file("sites"))
                .assertSuccess();
        Path dir = ProfileRun.dir(off);
        assertTrue(!Files.exists(dir.resolve("sites")), off::describe);
        Profile p = ProfileWriter.mergeDumps(dir);
        assertEquals(null, p.sites());
        assertTrue(!TextReport.render(p).contains("Call sites"));
        Result bad = ProfileRun.run(impl, Level.C, RANKS, m -> m.env("JPMPI_PROFILE_SITES", "yes"), impl.file("sites"))
                .assertSuccess();
        assertEquals(RANKS, bad.err().stream().filter(l -> l.equals(
                "jpmpi profile: JPMPI_PROFILE_SITES=yes is neither on nor off; using on")).count(), bad::describe);
        assertEquals(8, merged(bad).sites().sites().size(), bad::describe);
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> programs() {
        return MpiRun.implementations().flatMap(i -> java.util.stream.Stream.of("sites", "sites_nopie",
                "sites_stripped").map(p -> org.junit.jupiter.params.provider.Arguments.of(i, p)));
    }
}
