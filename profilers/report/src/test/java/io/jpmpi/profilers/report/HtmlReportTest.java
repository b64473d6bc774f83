package io.jpmpi.profilers.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** report.html as text: self-contained, escaped, its plots counted (ChromiumTest renders it). */
class HtmlReportTest {
    static final String HOSTILE_EXE = "/tmp/<script>document.body.dataset.pwned='1'</script>"
            + "<img src=x onerror=\"document.body.dataset.pwned='2'\">&amp;'\u0000\u0007\uD800";
    static final String HOSTILE_HOST = "</title><script>alert(1)</script>";

    /** The 4-rank fixture with hostile strings wherever the profile has strings. */
    static Profile hostile() {
        Profile p = Fixtures.ring(4, true);
        p = Fixtures.withJob(p, new Job("<b>job</b>", HOSTILE_EXE, "mpi <i>\"x\"</i>", 1, "<start>", 12));
        List<Profile.RankRow> rows = new ArrayList<>();
        for (Profile.RankRow r : p.rankRows()) {
            rows.add(new Profile.RankRow(r.rank(), HOSTILE_HOST, r.pid(), r.appSeconds(), r.mpiSeconds(), r.calls(),
                    r.partial()));
        }
        p = Fixtures.withRows(p, rows);
        List<FunctionProfile> fns = new ArrayList<>(p.functions());
        FunctionProfile f = fns.get(0);
        fns.set(0, new FunctionProfile("MPI_<svg onload=alert(1)>", f.calls(), f.timeSeconds(), f.bytesSent(),
                f.bytesRecv(), f.minCallSeconds(), f.maxCallSeconds(), f.perRank(), f.histogram()));
        p = Fixtures.withFunctions(p, fns);
        return Fixtures.withReasons(p, List.of("rank 3: <script>alert(3)</script>"));
    }

    static int count(String s, String what) {
        int n = 0;
        for (int at = s.indexOf(what); at >= 0; at = s.indexOf(what, at + 1)) {
            n++;
        }
        return n;
    }

    @Test
    void selfContained() {
        for (Profile p : List.of(Fixtures.fourRanks(), Fixtures.ring(300, true), hostile())) {
            String html = HtmlReport.render(p);
            assertFalse(html.contains("http://") || html.contains("https://"), "a URL in the page");
            assertFalse(html.contains("//"), "a protocol-relative reference in the page");
            assertFalse(Pattern.compile("<[^>]*\\b(src|href|xlink:href)\\s*=", Pattern.CASE_INSENSITIVE).matcher(html)
                    .find(), "a reference in the page");
            assertFalse(html.contains("url("), "a CSS url()");
            assertFalse(html.contains("@import"));
            assertTrue(html.startsWith("<!DOCTYPE html>\n"));
            assertTrue(html.endsWith("</html>\n"));
        }
    }

    @Test
    void everyStringIsEscaped() {
        String html = HtmlReport.render(hostile());
        assertEquals(1, count(html, "<script"), "only the report's own script");
        assertFalse(html.contains("<img"));
        assertFalse(html.contains("<b>job"));
        assertFalse(html.contains("<i>"));
        assertFalse(html.contains("<svg onload"));
        assertFalse(html.contains("<start>"));
        assertFalse(html.contains("</title><script>"));
        assertTrue(html.contains("/tmp/&lt;script&gt;document.body.dataset.pwned=&#39;1&#39;&lt;/script&gt;"), html);
        assertTrue(html.contains("&amp;amp;&#39;\ufffd\ufffd\ufffd"), "controls and a lone surrogate replaced");
        assertTrue(html.contains("MPI_&lt;svg onload=alert(1)&gt;"));
        assertTrue(html.contains("&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt; x4"), "hosts");
        assertTrue(html.contains("rank 3: &lt;script&gt;alert(3)&lt;/script&gt;"));
        for (char c : html.toCharArray()) {
            assertTrue(c >= 0x20 || c == '\n', () -> "control character " + (int) c);
            assertFalse(Character.isSurrogate(c), "a lone surrogate");
        }
    }

    @Test
    void thePolicyAllowsOnlyTheReportsOwnScriptAndStyle() throws Exception {
        String html = HtmlReport.render(Fixtures.fourRanks());
        Matcher policy = Pattern.compile("<meta http-equiv=\"Content-Security-Policy\" content=\"([^\"]*)\">")
                .matcher(html);
        assertTrue(policy.find(), html);
        Matcher script = Pattern.compile("<script>(.*?)</script>", Pattern.DOTALL).matcher(html);
        Matcher style = Pattern.compile("<style>(.*?)</style>", Pattern.DOTALL).matcher(html);
        assertTrue(script.find() && style.find());
        assertEquals("default-src 'none'; style-src 'sha256-" + sha256(style.group(1)) + "'; script-src 'sha256-"
                + sha256(script.group(1)) + "'", policy.group(1));
    }

    /** The heat map's colours: the gradient's channels as two lower-case hex digits each (%02x). */
    @Test
    void heatColoursAreTheGradientsChannelsInHex() {
        assertEquals("#fee0b6", HtmlReport.heat(0, 1, 1000));
        assertEquals("#fee0b6", HtmlReport.heat(1, 1, 1000));
        assertEquals("#7f2704", HtmlReport.heat(1000, 1, 1000));
        int[] from = {254, 224, 182};
        int[] to = {127, 39, 4};
        for (int v = 1; v <= 1000; v++) {
            double f = Math.log(v) / Math.log(1000);
            StringBuilder want = new StringBuilder("#");
            for (int i = 0; i < 3; i++) {
                want.append(String.format("%02x", Math.round(from[i] + f * (to[i] - from[i]))));
            }
            assertEquals(want.toString(), HtmlReport.heat(v, 1, 1000), "value " + v);
        }
    }

    /** The policy's hashes are constants: they are the style's and the script's (else: the value to write). */
    @Test
    void theHashesInThePolicyAreTheStylesAndTheScripts() throws Exception {
        assertEquals(sha256(HtmlReport.STYLE), HtmlReport.STYLE_SHA256, "HtmlReport.STYLE changed: STYLE_SHA256 is now");
        assertEquals(sha256(HtmlReport.SCRIPT), HtmlReport.SCRIPT_SHA256,
                "HtmlReport.SCRIPT changed: SCRIPT_SHA256 is now");
    }

    private static String sha256(String s) throws Exception {
        return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
                .digest(s.getBytes(StandardCharsets.UTF_8)));
    }

    /** The body's data-plots-expected. */
    static int expected(String html) {
        Matcher m = Pattern.compile("<body data-plots-expected=\"(\\d+)\">").matcher(html);
        assertTrue(m.find(), "no data-plots-expected");
        return Integer.parseInt(m.group(1));
    }

    @Test
    void thePlotsAreCountedAndHaveMarks() {
        String html = HtmlReport.render(Fixtures.fourRanks());
        int plots = count(html, "<svg class=\"plot\"");
        // Time per rank, time per rank and function, the matrix, sizes of all functions and of the 6 top
        // functions with sizes.
        assertEquals(10, plots);
        assertEquals(plots, expected(html));
        for (String part : html.split("<svg class=\"plot\"")) {
            if (part.contains("</svg>")) {
                String svg = part.substring(0, part.indexOf("</svg>"));
                assertTrue(svg.contains("class=\"mark"), svg);
                assertTrue(svg.contains("<title>"), svg);
            }
        }
        // Four ranks: four pairs of bars, 16 matrix cells: rank 0 sends to all (Bcast), the others to their
        // two neighbours.
        assertEquals(4, count(html, "class=\"mark app\""));
        assertEquals(4, count(html, "class=\"mark mpi\""));
        String matrix = html.substring(html.indexOf("id=\"matrix\""), html.indexOf("</svg>", html.indexOf("id=\"matrix\"")));
        assertEquals(9, count(matrix, "class=\"mark\""));
        // the 7 empty cells and the key's "none"
        assertEquals(8, count(matrix, "class=\"zero\""));
        assertTrue(matrix.contains("<title>rank 0 to rank 1: 12.5MiB bytes in 201 messages</title>"), matrix);
        assertTrue(html.contains("<title>all functions, 64KiB-128KiB bytes: 3200 calls (66.4%)</title>"), html);
    }

    @Test
    void emptyPlotsAreLeftOutAndNotCounted() {
        Profile p = Fixtures.fourRanks();
        Profile empty = new Profile(p.schema(), false, List.of(), p.job(), 1,
                new Profile.Summary(Stat.ZERO, Stat.ZERO, Stat.ZERO, Stat.ZERO, Stat.ZERO, Stat.ZERO),
                new Profile.Overhead(0, 0, 0), List.of(), new long[0],
                new Profile.Blocks(new int[] {0}, new double[] {1.5}, new double[1], new long[1][1], new long[1][1]),
                List.of(new Profile.RankRow(0, "h", 1, 1.5, 0, 0, null)), List.of(Profile.SparseRow.EMPTY),
                List.of(Profile.SparseRow.EMPTY));
        String html = HtmlReport.render(empty);
        assertEquals(1, expected(html));
        assertEquals(1, count(html, "<svg class=\"plot\""));
        assertTrue(html.contains("No message between ranks was recorded."));
        assertTrue(html.contains("No call was recorded."));
        assertTrue(html.contains("No MPI function was called while recording."));
    }

    @Test
    void manyRanksAreShownByBlock() {
        String html = HtmlReport.render(Fixtures.ring(300, false));
        assertEquals(64, count(html, "class=\"mark app\""));
        assertTrue(html.contains("<title>ranks 0-3: application "), html);
        assertTrue(html.contains("each bar is the average of its block&#39;s ranks")
                || html.contains("each bar is the average of its block's ranks"), html);
        assertEquals(HtmlReport.render(Fixtures.ring(300, false)), html, "deterministic");
    }

    /**
     * Every rank's figures per function as a rank x function heat map: a cell per rank and function
     * with its title, axes titled; a cell of a function a rank never called is white ("none").
     */
    @Test
    void theRankByFunctionHeatMap() {
        Profile p = Fixtures.fourRanks();
        String html = HtmlReport.render(p);
        String map = html.substring(html.indexOf("id=\"rank-functions\""), html.indexOf("</svg>",
                html.indexOf("id=\"rank-functions\"")));
        int functions = p.functions().size();
        assertEquals(4 * functions, count(map, "class=\"mark\""), map);
        assertEquals(1, count(map, "class=\"zero\""), "only the key's empty cell: " + map);
        ProfileDetails.Entry e = p.details().rankFunctions().get(2).get("MPI_Waitall");
        assertTrue(map.contains("<title>rank 2, MPI_Waitall: 200 calls, " + Units.seconds(e.timeSeconds())
                + ", 0 sent, 0 received</title>"), map);
        assertTrue(map.contains(">function</text>") && map.contains(">rank</text>"), map);
        // a rank that did not call a function: a white cell, titled so
        List<ProfileDetails.RankFunctions> rows = new java.util.ArrayList<>(p.details().rankFunctions());
        rows.set(3, new ProfileDetails.RankFunctions(rows.get(3).functions().stream()
                .filter(x -> !x.name().equals("MPI_Bcast")).toList()));
        String without = HtmlReport.render(p.withDetails(new ProfileDetails(null, 0, rows)));
        String map2 = without.substring(without.indexOf("id=\"rank-functions\""));
        assertTrue(map2.contains("<title>rank 3, MPI_Bcast: not called</title><rect class=\"zero\""), map2);
        // without per-rank figures (a schema 1 file, the Java level's profile): no heat map
        assertFalse(HtmlReport.render(p.withDetails(ProfileDetails.NONE)).contains("id=\"rank-functions\""));
    }

    /**
     * Schema 3: the collectives' buffer bytes and communicator sizes as sortable tables, time per
     * message size in the sizes table and as a function x size heat map, jpmpi's own start and finalize
     * in the overhead fact.
     */
    @Test
    void theBreakdownOfSchemaThree() {
        Profile p = Fixtures.withBreakdown(Fixtures.fourRanks());
        String html = HtmlReport.render(p);
        FunctionProfile allreduce = Fixtures.function(p, "MPI_Allreduce");
        String colls = html.substring(html.indexOf("<table class=\"sortable\" id=\"collectives\">"));
        colls = colls.substring(0, colls.indexOf("</table>"));
        assertTrue(colls.contains("<tr><td>MPI_Allreduce</td><td class=\"n\" data-v=\"" + (double) allreduce.calls()
                + "\">" + allreduce.calls() + "</td><td class=\"n\" data-v=\"" + 8.0 * allreduce.calls() + "\">"
                + Units.bytes(8 * allreduce.calls()) + "</td><td class=\"n\" data-v=\"8.0\">8</td>"), colls);
        assertEquals(2, count(colls, "<tr><td>"), "only the collectives with a breakdown: " + colls);
        String comm = html.substring(html.indexOf("<table class=\"sortable\" id=\"comm-sizes\">"));
        comm = comm.substring(0, comm.indexOf("</table>"));
        assertTrue(comm.contains("<tr><td>MPI_Allreduce</td><td class=\"n\" data-v=\"4.0\">4</td><td>4-7</td>"), comm);
        String sizes = html.substring(html.indexOf("<table class=\"sortable\" id=\"sizes\">"));
        assertTrue(sizes.startsWith("<table class=\"sortable\" id=\"sizes\">\n<thead><tr><th>function</th>"
                + "<th class=\"n\">size from (bytes)</th><th>size</th><th class=\"n\">calls</th><th class=\"n\">% of its"
                + " calls</th><th class=\"n\">time</th><th class=\"n\">% of its time</th></tr>"), sizes);
        String map = html.substring(html.indexOf("id=\"size-time\""), html.indexOf("</svg>", html.indexOf("id=\"size-time\"")));
        FunctionProfile isend = Fixtures.function(p, "MPI_Isend");
        assertTrue(map.contains("<title>MPI_Isend, 64KiB-128KiB: 1600 calls, " + Units.seconds(isend.timeSeconds() / 2)
                + "</title>"), map);
        assertTrue(map.contains(">message size (bytes; KiB = 1024 bytes)</text>") && map.contains(">function</text>"), map);
        assertTrue(html.contains("jpmpi&#39;s own start in MPI_Init") || html.contains("jpmpi's own start in MPI_Init"),
                "the overhead fact");
        assertEquals(count(html, "<svg class=\"plot\""), expected(html));
        // without a breakdown none of it
        String old = HtmlReport.render(Fixtures.fourRanks());
        assertFalse(old.contains("id=\"collectives\"") || old.contains("id=\"comm-sizes\"")
                || old.contains("id=\"size-time\""), "schema 2 profile");
    }

    /** Several hosts: the matrix folded to host x host too, with the bytes within and between hosts. */
    @Test
    void severalHostsFoldTheMatrix() {
        Profile p = Fixtures.ring(8, false);
        String html = HtmlReport.render(p);
        assertTrue(html.contains("id=\"host-matrix\""), html);
        String map = html.substring(html.indexOf("id=\"host-matrix\""), html.indexOf("</svg>",
                html.indexOf("id=\"host-matrix\"")));
        Hosts h = Hosts.of(p);
        assertEquals(2, h.hosts().size());
        assertTrue(map.contains("<title>node1 to node2: " + Units.bytes(h.bytes()[0][1]) + " in "
                + Units.count(h.messages()[0][1]) + " messages</title>"), map);
        assertTrue(map.contains(">sender host</text>") && map.contains(">receiver host</text>"), map);
        assertFalse(HtmlReport.render(Fixtures.fourRanks()).contains("id=\"host-matrix\""), "one host: no fold");
    }

    /** Every table sorts: a head and a body, a number's cell carries the value it sorts by. */
    @Test
    void tablesAreSortableAndAxesTitled() {
        Profile p = Fixtures.fourRanks();
        String html = HtmlReport.render(p);
        for (String id : List.of("per-rank", "ranks", "functions", "sizes", "pairs")) {
            assertTrue(html.contains("<table class=\"sortable\" id=\"" + id + "\">\n<thead><tr>"), id);
        }
        assertEquals(count(html, "<table"), count(html, "<table class=\"sortable\""), "every table sorts");
        FunctionProfile top = p.functions().get(0);
        assertTrue(html.contains("<tr><td>" + top.name() + "</td><td class=\"n\" data-v=\"" + (double) top.calls()
                + "\">" + top.calls() + "</td>"), html);
        assertTrue(html.contains(">time per rank</text>"), "the time bars' y axis");
        assertTrue(html.contains(">message size in bytes (log2 buckets)</text>") && html.contains(">calls</text>"));
        assertTrue(html.contains("KiB = 1024 bytes"), "units defined");
    }
}
