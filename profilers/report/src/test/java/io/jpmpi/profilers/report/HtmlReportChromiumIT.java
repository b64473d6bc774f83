package io.jpmpi.profilers.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * report.html in a real browser (headless Chromium): every plot laid out with visible marks, no
 * string of the profile turned into script, and a screenshot that shows the plots. Chromium is a
 * prerequisite (scripts/lib.sh installs it): without it this test fails.
 */
class HtmlReportChromiumIT {
    private static final long LIMIT_SECONDS = 30;

    /** Chromium on PATH. */
    static Path chromium() {
        for (String name : List.of("chromium", "chromium-browser")) {
            for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
                Path p = Path.of(dir.isEmpty() ? "." : dir).resolve(name);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    return p;
                }
            }
        }
        return fail("chromium is not on PATH: the HTML report's browser test needs it (Debian package chromium,"
                + " listed in scripts/lib.sh JPMPI_DEB_PACKAGES: apt-get install --no-install-recommends chromium)");
    }

    /** Runs headless Chromium on {@code page} with {@code args}; returns its stdout. */
    private static String chromium(Path work, Path page, String... args) throws IOException, InterruptedException {
        return chromium(work, page.toUri().toString(), args);
    }

    /** The same for a URL (a page with a fragment). */
    private static String chromium(Path work, String url, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(chromium().toString(), "--headless", "--no-sandbox",
                "--disable-gpu", "--user-data-dir=" + work.resolve("profile"), "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-dev-shm-usage", "--hide-scrollbars",
                "--mute-audio"));
        cmd.addAll(List.of(args));
        cmd.add(url);
        Path out = work.resolve("stdout");
        Path err = work.resolve("stderr");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("HOME", work.toString());
        pb.environment().put("XDG_CONFIG_HOME", work.resolve("config").toString());
        pb.environment().put("XDG_CACHE_HOME", work.resolve("cache").toString());
        Process p = pb.start();
        if (!p.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor();
            fail("chromium did not finish within " + LIMIT_SECONDS + " s: " + String.join(" ", cmd) + "\n"
                    + tail(err));
        }
        assertEquals(0, p.exitValue(), () -> String.join(" ", cmd) + "\n" + tail(err));
        return Files.readString(out);
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no stderr: " + e + ")";
        }
    }

    private static String attribute(String tag, String name) {
        Matcher m = Pattern.compile("\\b" + name + "=\"([^\"]*)\"").matcher(tag);
        return m.find() ? m.group(1) : null;
    }

    @Test
    void everyPlotIsRenderedAndNoProfileStringRuns(@TempDir Path work) throws Exception {
        Profile p = HtmlReportTest.hostile();
        Path page = work.resolve("report.html");
        Reports.writeReports(p, work);
        String dom = chromium(work, page, "--dump-dom");
        Matcher body = Pattern.compile("<body[^>]*>").matcher(dom);
        assertTrue(body.find(), dom);
        String tag = body.group();
        String expected = attribute(tag, "data-plots-expected");
        String rendered = attribute(tag, "data-plots-rendered");
        assertNotNull(expected, tag);
        assertEquals(Integer.toString(HtmlReportTest.expected(Files.readString(page))), expected, tag);
        assertTrue(Integer.parseInt(expected) >= 3, tag);
        assertEquals(expected, rendered, () -> "the page's script: " + tag);
        assertFalse(tag.contains("pwned"), "a string of the profile ran as script: " + tag);
        assertFalse(dom.contains("<img"), "a string of the profile became markup");
    }

    @Test
    void theScreenshotShowsThePlots(@TempDir Path work) throws Exception {
        Path page = work.resolve("report.html");
        Reports.writeReports(Fixtures.fourRanks(), work);
        Path png = work.resolve("shot.png");
        chromium(work, page, "--screenshot=" + png, "--window-size=1280,4400");
        Files.copy(png, Path.of("target", "report-screenshot.png"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, "not a PNG: " + png);
        long ink = 0;
        long mpi = 0;
        long bars = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y);
                int r = (rgb >> 16) & 0xff;
                int g = (rgb >> 8) & 0xff;
                int b = rgb & 0xff;
                if (r < 240 || g < 240 || b < 240) {
                    ink++;
                }
                if (near(r, g, b, 0xc0, 0x39, 0x2b)) {
                    mpi++;
                }
                if (near(r, g, b, 0x2e, 0x6d, 0xa4)) {
                    bars++;
                }
            }
        }
        long pixels = (long) image.getWidth() * image.getHeight();
        assertTrue(ink > pixels / 50, "almost blank: " + ink + " of " + pixels + " pixels not white");
        assertTrue(mpi > 1000, "the MPI time bars are not visible: " + mpi + " pixels");
        assertTrue(bars > 5000, "the histogram bars are not visible: " + bars + " pixels");
    }

    /**
     * The page's own script sorts a table by any column (here through the fragment
     * {@code #sort=TABLE:COLUMN:asc|desc}, which runs the same code as a click on the heading), and
     * draws the rank x function heat map with every cell.
     */
    @Test
    void tablesSortInTheBrowserAndTheHeatMapIsDrawn(@TempDir Path work) throws Exception {
        Profile p = Fixtures.fourRanks();
        Reports.writeReports(p, work);
        String page = work.resolve("report.html").toUri() + "#sort=functions:1:asc";
        String dom = chromium(work, page, "--dump-dom");
        // calls ascending: the function rows in that order, the heading marked
        List<String> expected = p.functions().stream().filter(f -> !Readable.untimed(f))
                .sorted(java.util.Comparator.comparingLong(FunctionProfile::calls)).map(FunctionProfile::name).toList();
        String table = dom.substring(dom.indexOf("id=\"functions\""), dom.indexOf("</table>", dom.indexOf("id=\"functions\"")));
        List<String> shown = new ArrayList<>();
        Matcher row = Pattern.compile("<tr><td>([^<]+)</td>").matcher(table);
        while (row.find()) {
            shown.add(row.group(1));
        }
        List<Long> calls = shown.stream().map(n -> p.functions().stream().filter(f -> f.name().equals(n)).findFirst()
                .orElseThrow().calls()).toList();
        assertEquals(expected.size(), shown.size(), table);
        assertEquals(calls.stream().sorted().toList(), calls, "sorted by calls: " + shown);
        assertTrue(table.contains("aria-sort=\"ascending\">calls</th>"), table);
        // and descending by time, which is the page's own order reversed
        String byTime = chromium(work, work.resolve("report.html").toUri() + "#sort=functions:2:desc", "--dump-dom");
        String t2 = byTime.substring(byTime.indexOf("id=\"functions\""));
        Matcher first = Pattern.compile("<tr><td>([^<]+)</td>").matcher(t2);
        assertTrue(first.find());
        assertEquals(p.functions().get(0).name(), first.group(1));
        // the heat map is there, laid out with its marks (every plot rendered)
        assertTrue(dom.contains("id=\"rank-functions\""), "no rank x function heat map");
        Matcher body = Pattern.compile("<body[^>]*>").matcher(dom);
        assertTrue(body.find());
        assertEquals(attribute(body.group(), "data-plots-expected"), attribute(body.group(), "data-plots-rendered"),
                body.group());
    }

    /**
     * The call-site tables (issue 21) in the browser: the sites table is there with every site,
     * sorted by calls ascending through the fragment, then by time descending (the page's own order),
     * and its screenshot is left in target/report-sites-screenshot.png.
     */
    @Test
    void theSitesTableRendersAndSorts(@TempDir Path work) throws Exception {
        Profile p = Fixtures.withSites(Fixtures.withDetails(Fixtures.fourRanks()));
        Reports.writeReports(p, work);
        String dom = chromium(work, work.resolve("report.html").toUri() + "#sort=sites:2:asc", "--dump-dom");
        List<String> shown = siteRows(dom);
        List<String> byCalls = p.sites().sites().stream()
                .sorted(java.util.Comparator.comparingDouble((CallSites.Site s) -> s.calls().sum()))
                .map(CallSites.Site::where).toList();
        assertEquals(p.sites().sites().size(), shown.size(), shown.toString());
        List<Double> calls = shown.stream().map(w -> p.sites().sites().stream().filter(s -> s.where().equals(w))
                .findFirst().orElseThrow().calls().sum()).toList();
        assertEquals(calls.stream().sorted().toList(), calls, "sorted by calls: " + shown + ", expected like " + byCalls);
        String table = dom.substring(dom.indexOf("id=\"sites\""), dom.indexOf("</table>", dom.indexOf("id=\"sites\"")));
        assertTrue(table.contains("aria-sort=\"ascending\">calls</th>"), table);
        String byTime = chromium(work, work.resolve("report.html").toUri() + "#sort=sites:3:desc", "--dump-dom");
        assertEquals(p.sites().sites().stream().map(CallSites.Site::where).toList(), siteRows(byTime));
        Path png = work.resolve("sites.png");
        chromium(work, work.resolve("report.html").toUri() + "#sort=sites:3:desc", "--screenshot=" + png,
                "--window-size=1280,3000");
        assertNotNull(ImageIO.read(png.toFile()), "not a PNG: " + png);
        Files.copy(png, Path.of("target", "report-sites-screenshot.png"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    /** The first cells of the sites table's rows, in the order shown. */
    private static List<String> siteRows(String dom) {
        int at = dom.indexOf("id=\"sites\"");
        assertTrue(at > 0, "no sites table");
        String table = dom.substring(at, dom.indexOf("</table>", at));
        List<String> rows = new ArrayList<>();
        Matcher row = Pattern.compile("<tr><td>([^<]+)</td>").matcher(table);
        while (row.find()) {
            rows.add(row.group(1));
        }
        return rows;
    }

    /**
     * Schema 3's parts in the browser: the collectives' buffer bytes table sorts by buffer bytes
     * (ascending: the Bcast's 4 KiB before the Allreduce's 6.3 KiB, against the page's order by time),
     * the communicator-size table is there, and the function x message-size heat map is laid out with
     * the other plots.
     */
    @Test
    void theBreakdownTablesSortAndTheSizeMapIsDrawn(@TempDir Path work) throws Exception {
        Profile p = Fixtures.withBreakdown(Fixtures.fourRanks());
        Reports.writeReports(p, work);
        String dom = chromium(work, work.resolve("report.html").toUri() + "#sort=collectives:2:asc", "--dump-dom");
        String table = dom.substring(dom.indexOf("id=\"collectives\""), dom.indexOf("</table>",
                dom.indexOf("id=\"collectives\"")));
        List<String> shown = new ArrayList<>();
        Matcher row = Pattern.compile("<tr><td>([^<]+)</td>").matcher(table);
        while (row.find()) {
            shown.add(row.group(1));
        }
        assertEquals(List.of("MPI_Bcast", "MPI_Allreduce"), shown, table);
        assertTrue(table.contains("aria-sort=\"ascending\">buffer bytes</th>"), table);
        assertTrue(dom.contains("id=\"comm-sizes\""), "no communicator-size table");
        assertTrue(dom.contains("id=\"size-time\""), "no function x message size heat map");
        Matcher body = Pattern.compile("<body[^>]*>").matcher(dom);
        assertTrue(body.find());
        assertEquals(attribute(body.group(), "data-plots-expected"), attribute(body.group(), "data-plots-rendered"),
                body.group());
    }

    private static boolean near(int r, int g, int b, int r0, int g0, int b0) {
        return Math.abs(r - r0) < 12 && Math.abs(g - g0) < 12 && Math.abs(b - b0) < 12;
    }
}
