package io.jpmpi.profilers.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The call sites in report.txt and report.html (PROFILE.md, "Call sites"; issue 21). */
class SitesReportTest {
    private static Profile withSites() {
        return Fixtures.withSites(Fixtures.withDetails(Fixtures.fourRanks()));
    }

    private static List<String> words(String line) {
        return List.of(line.trim().split(" +"));
    }

    private static String lineStarting(String report, String prefix) {
        return report.lines().filter(l -> l.startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no line " + prefix + " in\n" + report));
    }

    private static int count(String s, String what) {
        return HtmlReportTest.count(s, what);
    }

    @Test
    void aProfileWithoutSitesSaysNothingOfThem() {
        Profile p = Fixtures.withDetails(Fixtures.fourRanks());
        assertFalse(TextReport.render(p).contains("Call sites"));
        assertFalse(HtmlReport.render(p).contains("id=\"sites\""));
    }

    /** MPI_Init's and MPI_Finalize's sites are counted, not timed: no row of 0 s in either report. */
    @Test
    void theUntimedLifecycleSitesGetNoRow() {
        Profile p = withSites();
        List<CallSites.Site> sites = new ArrayList<>(p.sites().sites());
        Stat ones = Stat.of(new double[] {1, 1, 1, 1});
        Stat zeros = Stat.of(new double[] {0, 0, 0, 0});
        sites.add(new CallSites.Site("MPI_Init", "/home/me/halo", 0x1100, CallSites.Resolved.LINE, "/home/me/halo.c",
                12, "main", null, ones, zeros, zeros));
        sites.add(new CallSites.Site("MPI_Finalize", "/home/me/halo", 0x1900, CallSites.Resolved.LINE,
                "/home/me/halo.c", 80, "main", null, ones, zeros, zeros));
        Profile q = p.withSites(new CallSites(p.sites().note(), sites));
        String text = TextReport.render(q);
        String html = HtmlReport.render(q);
        assertFalse(text.contains("halo.c:12 main"), text);
        assertFalse(text.contains("halo.c:80 main"), text);
        assertFalse(html.contains("halo.c:12 main"), html);
        assertEquals(TextReport.render(p), text);
        assertEquals(HtmlReport.render(p), html);
    }

    /** The top sites: site, function, calls, time, % of MPI time, the time per rank's extremes with their ranks. */
    @Test
    void theTextReportListsTheTopSitesByTime() {
        Profile p = withSites();
        String r = TextReport.render(p);
        assertTrue(r.contains("\nCall sites by time (sums over 4 ranks; time per rank: lowest, highest, their ranks)\n"
                + "site                          function              calls     time  %MPI      min rank      max rank\n"),
                r);
        double mpi = p.summary().mpiSeconds().sum();
        List<CallSites.Site> sites = p.sites().sites();
        int previous = -1;
        for (CallSites.Site s : sites) {
            String line = lineStarting(r, s.where() + " ");
            int at = r.indexOf(line + "\n");
            assertTrue(at > previous, "most time first: " + s.where());
            previous = at;
            Stat t = s.timeSeconds();
            List<String> expected = new ArrayList<>(words(s.where()));
            expected.addAll(List.of(s.function(), Units.count(s.calls().sum()), Units.seconds(t.sum()),
                    Units.percent(TextReport.percentOf(t.sum(), mpi)), Units.seconds(t.min()),
                    Integer.toString(t.minRank()), Units.seconds(t.max()), Integer.toString(t.maxRank())));
            assertEquals(String.join(" ", expected), String.join(" ", words(line)), line);
        }
        assertEquals("halo.c:42 exchange", sites.get(0).where());
        assertTrue(r.contains("\nCall sites: no debug information for some sites in stripped (addr2line answered ??)\n"),
                r);
        for (String l : r.lines().toList()) {
            assertTrue(l.length() <= TextReport.WIDTH, l);
            assertEquals(l.stripTrailing(), l);
        }
        assertEquals(r, TextReport.render(p));
    }

    /** Each function's sites, with their share of its time. */
    @Test
    void theTextReportListsEachFunctionsSites() {
        Profile p = withSites();
        String r = TextReport.render(p);
        int at = r.indexOf("\nCall sites per function (the functions above; each one's sites by time)\n");
        assertTrue(at > 0, r);
        List<String> lines = r.substring(at + 1).lines().skip(2).limit(5).toList();
        FunctionProfile waitall = p.functions().stream().filter(f -> f.name().equals("MPI_Waitall")).findFirst()
                .orElseThrow();
        CallSites.Site a = p.sites().of("MPI_Waitall").get(0);
        CallSites.Site b = p.sites().of("MPI_Waitall").get(1);
        assertEquals(List.of("MPI_Waitall", "halo.c:42", "exchange", Units.count(a.calls().sum()),
                Units.seconds(a.timeSeconds().sum()).split(" ")[0], Units.seconds(a.timeSeconds().sum()).split(" ")[1],
                "75.0"), words(lines.get(0)));
        assertEquals(List.of("halo.c:57", "main", Units.count(b.calls().sum()),
                Units.seconds(b.timeSeconds().sum()).split(" ")[0], Units.seconds(b.timeSeconds().sum()).split(" ")[1],
                "25.0"), words(lines.get(1)));
        assertTrue(lines.get(0).startsWith("MPI_Waitall             halo.c:42 exchange"), lines.get(0));
        assertEquals(a.timeSeconds().sum() + b.timeSeconds().sum(), waitall.timeSeconds(), 1e-9);
        assertTrue(lines.get(4).startsWith("MPI_Bcast               stripped+0x9bc "), lines.get(4));
    }

    /** Many sites: the top {@value TextReport#TOP_SITES}, the rest counted; the HTML has them all. */
    @Test
    void manySites() {
        Profile p = withSites();
        List<CallSites.Site> many = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            CallSites.Site s = p.sites().sites().get(i % p.sites().sites().size());
            many.add(new CallSites.Site(s.function(), "/x/app", 0x1000 + i, CallSites.Resolved.MODULE, null, 0, null,
                    null, s.calls(), s.timeSeconds(), s.bytes()));
        }
        Profile q = p.withSites(new CallSites(null, many));
        String r = TextReport.render(q);
        assertTrue(r.contains("\nTop 15 of 40 call sites by time (sums over 4 ranks;"), r);
        assertTrue(r.contains("\n... 25 more in report.html and profile.json\n"), r);
        assertFalse(r.contains("\nCall sites: "), "no note");
        assertTrue(r.contains("\n                        ... 3 more sites\n"), r); // 8 of Waitall's, 5 shown
        String html = HtmlReport.render(q);
        String table = html.substring(html.indexOf("id=\"sites\""), html.indexOf("</table>", html.indexOf("id=\"sites\"")));
        assertEquals(40, count(table, "<tr><td>"));
    }

    /** report.html: both tables sortable, a number's cell sorting by its value, the fallback named. */
    @Test
    void theHtmlTablesSort() {
        Profile p = withSites();
        String html = HtmlReport.render(p);
        assertTrue(html.contains("<h2>Call sites by time</h2>"), html);
        for (String id : List.of("sites", "function-sites")) {
            assertEquals(1, count(html, "<table class=\"sortable\" id=\"" + id + "\">\n<thead><tr>"), id);
        }
        assertTrue(html.contains("<thead><tr><th>site</th><th>function</th><th class=\"n\">calls</th>"
                + "<th class=\"n\">time</th><th class=\"n\">% MPI</th><th class=\"n\">bytes</th>"
                + "<th class=\"n\">min/rank</th><th class=\"n\">rank</th><th class=\"n\">max/rank</th>"
                + "<th class=\"n\">rank</th><th class=\"n\">cv</th><th>named by</th><th>module</th></tr>"), html);
        CallSites.Site top = p.sites().sites().get(0);
        assertTrue(html.contains("<tr><td>halo.c:42 exchange</td><td>MPI_Waitall</td><td class=\"n\" data-v=\""
                + top.calls().sum() + "\">" + Units.count(top.calls().sum()) + "</td><td class=\"n\" data-v=\""
                + top.timeSeconds().sum() + "\">"), html);
        assertTrue(html.contains("<td>module</td><td>/home/me/stripped+0x9bc</td></tr>"), html);
        assertTrue(html.contains("<td>symbol</td><td>/home/me/tool+0x7a0</td></tr>"), html);
        String perFunction = html.substring(html.indexOf("id=\"function-sites\""));
        assertTrue(perFunction.contains("<tr><td>MPI_Waitall</td><td>halo.c:42 exchange</td>"), perFunction);
        assertTrue(html.contains("no debug information for some sites in stripped (addr2line answered ??)"));
        assertEquals(count(html, "<table"), count(html, "<table class=\"sortable\""), "every table sorts");
    }

    @Test
    void hostileNamesAreEscaped() {
        Profile p = withSites();
        CallSites.Site s = p.sites().sites().get(0);
        CallSites.Site bad = new CallSites.Site("MPI_Send", "/x/<script>alert(1)</script>", 16,
                CallSites.Resolved.LINE, "<img src=x>.c", 3, "f\u001b[31m", null, s.calls(), s.timeSeconds(), s.bytes());
        Profile q = p.withSites(new CallSites("<b>note</b>", List.of(bad)));
        String html = HtmlReport.render(q);
        assertEquals(1, count(html, "<script"));
        assertFalse(html.contains("<img") || html.contains("<b>note"));
        String text = TextReport.render(q);
        assertFalse(text.contains("\u001b"), text);
    }
}
