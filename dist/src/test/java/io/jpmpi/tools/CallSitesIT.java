package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.profilers.report.CallSites;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Call sites through the launcher (issue 21; PROFILE.md, "Call sites"): {@code jpmpi run --tools
 * profile} of sites (3 ranks) leaves a profile.json whose sites the launcher named with addr2line
 * after the job, and reports that show them; {@code jpmpi report} adds them to a profile.json that
 * has none (one the profile's Java level wrote in the ranks) and says nothing more.
 */
class CallSitesIT {
    private static final Path SOURCE = Path.of(System.getProperty("jpmpi.source.root", "..")).toAbsolutePath().normalize()
            .resolve("test-support/src/main/c/profilers/sites.c");

    private static int line(String marker) throws Exception {
        List<String> lines = Files.readAllLines(SOURCE);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("/* " + marker + " */")) {
                return i + 1;
            }
        }
        throw new AssertionError(marker + " not in " + SOURCE);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void jpmpiRunNamesTheSitesAndReportAddsThemWhereMissing(Impl impl) throws Exception {
        Jpmpi.Result r = Jpmpi.run(LauncherIT.run(List.of("--tools", "profile", "--output", "prof"), impl, 3, "sites"));
        assertEquals(0, r.exit(), r::describe);
        Path prof = r.dir().resolve("prof");
        Profile p = ProfileJson.read(prof.resolve("profile.json"));
        String at = p.sites() + "\n" + r.describe();
        assertEquals(8, p.sites().sites().size(), at);
        assertNull(p.sites().note(), at);
        for (String marker : List.of("SITE-A", "SITE-B", "SITE-D")) {
            int want = line(marker);
            assertEquals(1, p.sites().sites().stream().filter(s -> s.resolved() == CallSites.Resolved.LINE
                    && s.file().endsWith("/sites.c") && s.name().equals("main") && s.line() == want).count(),
                    marker + " " + at);
        }
        CallSites.Site c = p.sites().sites().stream().filter(s -> "helper".equals(s.name())).findFirst()
                .orElseThrow(() -> new AssertionError(at));
        assertEquals(List.of("sites.c:" + line("SITE-C") + " helper", 90.0, 30.0, 30.0),
                List.of(c.where(), c.calls().sum(), c.calls().min(), c.calls().max()), at);
        String text = Files.readString(prof.resolve("report.txt"));
        assertTrue(text.contains("\nCall sites by time (sums over 3 ranks;"), text);
        assertTrue(text.contains("\nsites.c:" + line("SITE-C") + " helper"), text);
        assertTrue(Files.readString(prof.resolve("report.html")).contains("id=\"sites\""));
        assertTrue(Files.isRegularFile(prof.resolve("sites/rank-2.tsv")), "the ranks' tables are kept");

        // a profile.json without sites (as the ranks write it): jpmpi report adds them, rewriting it
        ProfileJson.write(p.withSites(null), prof.resolve("profile.json"));
        Jpmpi.Result report = Jpmpi.run(List.of("report", "--quiet", prof.toString()));
        assertEquals(0, report.exit(), report::describe);
        assertEquals("", report.err(), report::describe);
        Profile again = ProfileJson.read(prof.resolve("profile.json"));
        assertEquals(p.sites(), again.sites());
        assertTrue(Files.readString(prof.resolve("report.txt")).contains("\nCall sites by time (sums over 3 ranks;"));
    }
}
