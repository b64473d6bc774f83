package io.jpmpi.profilers.report;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;
import java.util.function.LongFunction;

/**
 * report.html: one self-contained page (inline CSS, SVG drawn here, one small script; nothing
 * fetched from anywhere, which its Content-Security-Policy enforces): the banner figures, the
 * functions, MPI and application time per rank (per block of ranks above 64), the communication
 * matrix as a heat map, the message-size histograms. Every string of the profile is escaped.
 *
 * <p>Every plot is an {@code <svg class="plot">} whose data elements have class {@code mark}. The
 * body's {@code data-plots-expected} is the number of plots drawn here; the script sets
 * {@code data-plots-rendered} to the number the browser actually laid out with a visible mark, so
 * that a headless browser can check the page.
 */
public final class HtmlReport {
    /** How many functions get a histogram of their own. */
    public static final int TOP_HISTOGRAMS = 6;
    /** How many reasons for a partial profile the page lists. */
    public static final int MAX_REASONS = 100;

    static final String SCRIPT = """
            (function () {
              var plots = document.querySelectorAll('svg.plot'), n = 0;
              for (var i = 0; i < plots.length; i++) {
                var box = plots[i].getBoundingClientRect(), marks = plots[i].querySelectorAll('.mark'), drawn = false;
                for (var j = 0; j < marks.length && !drawn; j++) {
                  var m = marks[j].getBoundingClientRect();
                  drawn = m.width > 0 && m.height > 0;
                }
                if (box.width > 0 && box.height > 0 && drawn) { n++; }
              }
              document.body.dataset.plotsRendered = String(n);
            })();
            """;

    static final String STYLE = """
            body { font: 14px/1.4 system-ui, sans-serif; color: #222; margin: 1.5em auto; max-width: 1180px; padding: 0 1em; }
            h1 { font-size: 1.5em; margin: 0 0 .2em; }
            h2 { font-size: 1.15em; margin: 1.6em 0 .4em; border-bottom: 1px solid #ddd; }
            .sub { color: #555; margin: 0 0 1em; overflow-wrap: anywhere; }
            .partial { background: #fff3cd; border: 1px solid #e0c36a; padding: .6em 1em; margin: 1em 0; }
            .partial ul { margin: .3em 0 0; max-height: 12em; overflow: auto; }
            dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15em 1.2em; margin: 0; }
            dl.facts dt { color: #555; }
            dl.facts dd { margin: 0; overflow-wrap: anywhere; }
            table { border-collapse: collapse; margin: .5em 0; }
            th, td { padding: .2em .6em; border-bottom: 1px solid #eee; }
            th { text-align: left; background: #f6f6f6; font-weight: 600; }
            td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
            .scroll { overflow-x: auto; }
            .note { color: #666; }
            svg.plot { display: block; margin: .5em 0; }
            svg text { font: 11px system-ui, sans-serif; fill: #333; }
            svg .axis { stroke: #888; }
            .small { display: flex; flex-wrap: wrap; gap: 0 2em; }
            .small h3 { font-size: 1em; margin: .8em 0 0; }
            """;

    private static final String POLICY = "default-src 'none'; style-src 'sha256-" + sha256(STYLE)
            + "'; script-src 'sha256-" + sha256(SCRIPT) + "'";

    private static final String MPI_COLOR = "#c0392b";
    private static final String APP_COLOR = "#a9c4e4";
    private static final String BAR_COLOR = "#2e6da4";

    private HtmlReport() {
    }

    /** The page of {@code p}. */
    public static String render(Profile p) {
        return render(p, java.util.Map.of());
    }

    /**
     * The page, with extra sections at the end: title → preformatted text (another tool's report
     * beside the profile, such as mpit's).
     */
    public static String render(Profile p, java.util.Map<String, String> extra) {
        Page page = new Page();
        StringBuilder b = page.body;
        Job job = p.job();
        b.append("<h1>jpmpi profile").append(p.partial() ? " (partial)" : "").append("</h1>\n");
        b.append("<p class=\"sub\">").append(esc(orUnknown(job.executable()))).append(" &middot; ").append(p.ranks())
                .append(p.ranks() == 1 ? " rank" : " ranks").append(" on ").append(job.hosts())
                .append(job.hosts() == 1 ? " host" : " hosts").append(" &middot; ").append(esc(orUnknown(job.mpi())))
                .append("</p>\n");
        partial(b, p);
        facts(b, p);
        perRankTable(b, p);
        b.append("<h2>MPI and application time per rank</h2>\n");
        timeBars(page, p);
        functionTable(b, p);
        b.append("<h2>Communication matrix</h2>\n");
        heatMap(page, p);
        pairTable(b, p);
        hostTable(b, p);
        b.append("<h2>Message sizes</h2>\n");
        b.append("<p class=\"note\">Calls per size of the larger of the bytes a call sends and receives"
                + " (log2 buckets).</p>\n");
        if (!histogram(page, p.histogram(), "all functions", 220)) {
            b.append("<p class=\"note\">No call was recorded.</p>\n");
        }
        List<FunctionProfile> withSizes = new ArrayList<>();
        for (FunctionProfile f : p.functions()) {
            if (withSizes.size() < TOP_HISTOGRAMS && total(f.histogram()) > 0) {
                withSizes.add(f);
            }
        }
        if (!withSizes.isEmpty()) {
            b.append("<div class=\"small\">\n");
            for (FunctionProfile f : withSizes) {
                b.append("<div><h3>").append(esc(f.name())).append("</h3>\n");
                histogram(page, f.histogram(), f.name(), 150);
                b.append("</div>\n");
            }
            b.append("</div>\n");
        }
        for (var e : extra.entrySet()) {
            b.append("<h2>").append(esc(e.getKey())).append("</h2>\n<pre>").append(esc(e.getValue())).append("</pre>\n");
        }
        return page.html(p);
    }

    /** The page being built: its body and the number of plots drawn into it. */
    private static final class Page {
        final StringBuilder body = new StringBuilder(32_768);
        int plots;

        /** Starts a plot: an svg of the given size, its label read by screen readers. */
        void startPlot(String id, int width, int height, String label) {
            plots++;
            body.append("<svg class=\"plot\" id=\"").append(id).append("\" width=\"").append(width)
                    .append("\" height=\"").append(height).append("\" viewBox=\"0 0 ").append(width).append(' ')
                    .append(height).append("\" role=\"img\" aria-label=\"").append(esc(label)).append("\">\n");
        }

        String html(Profile p) {
            StringBuilder h = new StringBuilder(body.length() + 4096);
            h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
            h.append("<meta http-equiv=\"Content-Security-Policy\" content=\"").append(POLICY).append("\">\n");
            h.append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
            h.append("<title>jpmpi profile: ").append(esc(baseName(p.job().executable()))).append(", ")
                    .append(p.ranks()).append(p.ranks() == 1 ? " rank" : " ranks").append("</title>\n");
            h.append("<style>").append(STYLE).append("</style>\n</head>\n");
            h.append("<body data-plots-expected=\"").append(plots).append("\">\n");
            h.append(body);
            h.append("<script>").append(SCRIPT).append("</script>\n</body>\n</html>\n");
            return h.toString();
        }
    }

    // --- figures ------------------------------------------------------------------------------

    private static void partial(StringBuilder b, Profile p) {
        if (!p.partial()) {
            return;
        }
        b.append("<div class=\"partial\"><strong>Partial profile:</strong> it does not cover the whole run");
        List<String> reasons = p.partialReasons();
        if (!reasons.isEmpty()) {
            b.append(".\n<ul>\n");
            for (int i = 0; i < Math.min(MAX_REASONS, reasons.size()); i++) {
                b.append("<li>").append(esc(reasons.get(i))).append("</li>\n");
            }
            if (reasons.size() > MAX_REASONS) {
                b.append("<li>... and ").append(reasons.size() - MAX_REASONS).append(" more (profile.json)</li>\n");
            }
            b.append("</ul>");
        }
        b.append("</div>\n");
    }

    private static void facts(StringBuilder b, Profile p) {
        Job job = p.job();
        Profile.Summary s = p.summary();
        Profile.Overhead o = p.overhead();
        b.append("<dl class=\"facts\">\n");
        fact(b, "job", job.id() == null ? "(no job id)" : job.id());
        fact(b, "executable", orUnknown(job.executable()));
        fact(b, "MPI", orUnknown(job.mpi()));
        fact(b, "ranks", p.ranks() + " on " + job.hosts() + (job.hosts() == 1 ? " host" : " hosts"));
        String hosts = TextReport.hostList(p, 50);
        if (hosts != null) {
            fact(b, "hosts", hosts);
        }
        fact(b, "start", orUnknown(job.start()));
        fact(b, "wall time", Units.seconds(job.wallSeconds()));
        fact(b, "MPI time", Units.percent(TextReport.mpiShare(p)) + "% of application time (all ranks)");
        fact(b, "calls", Units.count(s.calls().sum()));
        fact(b, "bytes", Units.bytes(s.bytesSent().sum()) + " sent, " + Units.bytes(s.bytesRecv().sum()) + " received");
        fact(b, "profiler overhead", Units.significant3(o.perCallNs()) + " ns per call x " + Units.count(o.calls())
                + " calls = " + Units.seconds(o.totalSeconds()));
        b.append("</dl>\n");
    }

    private static void fact(StringBuilder b, String name, String value) {
        b.append("<dt>").append(esc(name)).append("</dt><dd>").append(esc(value)).append("</dd>\n");
    }

    private static void perRankTable(StringBuilder b, Profile p) {
        Profile.Summary s = p.summary();
        b.append("<h2>Per rank</h2>\n<table>\n<tr><th></th><th class=\"n\">min</th><th class=\"n\">rank</th>"
                + "<th class=\"n\">avg</th><th class=\"n\">max</th><th class=\"n\">rank</th><th class=\"n\">cv</th></tr>\n");
        statRow(b, "application time", s.appSeconds(), Units::seconds);
        statRow(b, "MPI time", s.mpiSeconds(), Units::seconds);
        statRow(b, "MPI %", s.mpiPercent(), Units::percent);
        statRow(b, "calls", s.calls(), Units::count);
        statRow(b, "bytes sent", s.bytesSent(), Units::bytes);
        statRow(b, "bytes received", s.bytesRecv(), Units::bytes);
        b.append("</table>\n");
    }

    private static void statRow(StringBuilder b, String name, Stat s, DoubleFunction<String> f) {
        b.append("<tr><th>").append(name).append("</th>");
        cells(b, f.apply(s.min()), Integer.toString(s.minRank()), f.apply(s.avg()), f.apply(s.max()),
                Integer.toString(s.maxRank()), String.format(Locale.ROOT, "%.2f", s.cv()));
        b.append("</tr>\n");
    }

    private static void cells(StringBuilder b, String... values) {
        for (String v : values) {
            b.append("<td class=\"n\">").append(esc(v)).append("</td>");
        }
    }

    private static void functionTable(StringBuilder b, Profile p) {
        b.append("<h2>MPI functions by time</h2>\n");
        if (p.functions().isEmpty()) {
            b.append("<p class=\"note\">No MPI function was called while recording.</p>\n");
            return;
        }
        double mpi = p.summary().mpiSeconds().sum();
        double app = p.summary().appSeconds().sum();
        b.append("<p class=\"note\">Sums over ranks; time per rank: the lowest and highest with the rank"
                + " holding each, and the coefficient of variation.</p>\n");
        b.append("<div class=\"scroll\"><table>\n<tr><th>function</th>");
        for (String h : new String[] {"calls", "time", "% MPI", "% app", "avg/call", "min call", "max call", "sent",
                "received", "min/rank", "rank", "max/rank", "rank", "cv"}) {
            b.append("<th class=\"n\">").append(esc(h)).append("</th>");
        }
        b.append("</tr>\n");
        for (FunctionProfile f : p.functions()) {
            Stat t = f.perRank().timeSeconds();
            b.append("<tr><td>").append(esc(f.name())).append("</td>");
            cells(b, Units.count(f.calls()), Units.seconds(f.timeSeconds()),
                    Units.percent(TextReport.percentOf(f.timeSeconds(), mpi)),
                    Units.percent(TextReport.percentOf(f.timeSeconds(), app)),
                    Units.seconds(f.calls() == 0 ? 0 : f.timeSeconds() / f.calls()), Units.seconds(f.minCallSeconds()),
                    Units.seconds(f.maxCallSeconds()), Units.bytes(f.bytesSent()), Units.bytes(f.bytesRecv()),
                    Units.seconds(t.min()), Integer.toString(t.minRank()), Units.seconds(t.max()),
                    Integer.toString(t.maxRank()), String.format(Locale.ROOT, "%.2f", t.cv()));
            b.append("</tr>\n");
        }
        b.append("</table></div>\n");
        sampledTiming(b, p);
    }

    /* ---- sampled timing (issue 26): the functions whose time is an estimate ---- */

    private static void sampledTiming(StringBuilder b, Profile p) {
        List<FunctionProfile> sampled = p.functions().stream().filter(FunctionProfile::sampled).toList();
        if (sampled.isEmpty()) {
            return;
        }
        b.append("<h3>Sampled timing</h3>\n<p class=\"note\">Calls too short to time honestly: every call is counted"
                + " (bytes too), a random sample of them is timed; the time is an estimate with its standard error, and"
                + " min and max call are those of the timed calls.</p>\n<table>\n<tr><th>function</th>");
        for (String h : new String[] {"calls", "timed", "time", "standard error", "error %"}) {
            b.append("<th class=\"n\">").append(esc(h)).append("</th>");
        }
        b.append("</tr>\n");
        for (FunctionProfile f : sampled) {
            b.append("<tr><td>").append(esc(f.name())).append("</td>");
            cells(b, Units.count(f.calls()), Units.count(f.timedCalls()), Units.seconds(f.timeSeconds()),
                    Units.seconds(f.timeErrorSeconds()),
                    Units.percent(TextReport.percentOf(f.timeErrorSeconds(), f.timeSeconds())));
            b.append("</tr>\n");
        }
        b.append("</table>\n");
    }

    /* ---- end of sampled timing ---- */

    private static void pairTable(StringBuilder b, Profile p) {
        TextReport.Pairs all = TextReport.topPairs(p, TextReport.TOP_PAIRS);
        if (all.pairs() == 0) {
            return;
        }
        b.append("<h3>").append(all.byBlock() ? "Pairs of rank blocks" : "Rank pairs")
                .append(" with the most bytes</h3>\n<table>\n<tr>");
        for (String h : new String[] {"sender", "receiver", "bytes", "% bytes", "messages"}) {
            b.append("<th class=\"n\">").append(h).append("</th>");
        }
        b.append("</tr>\n");
        for (TextReport.Pair q : all.top()) {
            b.append("<tr>");
            cells(b, TextReport.party(p, all, q.from()), TextReport.party(p, all, q.to()), Units.bytes(q.bytes()),
                    Units.percent(TextReport.percentOf(q.bytes(), all.bytes())), Units.count(q.messages()));
            b.append("</tr>\n");
        }
        b.append("</table>\n<p class=\"note\">").append(all.pairs()).append(" pairs exchanged ")
                .append(Units.count(all.messages())).append(" messages, ").append(Units.bytes(all.bytes()))
                .append(".</p>\n");
    }

    /** Per host, when the ranks ran on more than one (TextReport's per-host section). */
    private static void hostTable(StringBuilder b, Profile p) {
        Hosts h = Hosts.of(p);
        if (h.hosts().size() < 2) {
            return;
        }
        b.append("<h3>Per host</h3>\n<table>\n<tr><th>host</th>");
        for (String x : new String[] {"ranks", "first rank", "application time", "MPI time", "MPI %",
                "sent to other hosts", "received from other hosts"}) {
            b.append("<th class=\"n\">").append(x).append("</th>");
        }
        b.append("</tr>\n");
        for (Hosts.Host x : h.hosts()) {
            b.append("<tr><td>").append(esc(x.name())).append("</td>");
            cells(b, Integer.toString(x.ranks()), Integer.toString(x.firstRank()), Units.seconds(x.appSeconds()),
                    Units.seconds(x.mpiSeconds()), Units.percent(x.mpiPercent()), Units.bytes(x.bytesOut()),
                    Units.bytes(x.bytesIn()));
            b.append("</tr>\n");
        }
        b.append("</table>\n");
        if (h.hosts().size() > TextReport.HOST_MATRIX) {
            return;
        }
        b.append("<h3>Bytes between hosts</h3>\n<p class=\"note\">Sender row, receiver column.</p>\n<table>\n<tr><th></th>");
        for (Hosts.Host x : h.hosts()) {
            b.append("<th class=\"n\">").append(esc(x.name())).append("</th>");
        }
        b.append("</tr>\n");
        for (int i = 0; i < h.hosts().size(); i++) {
            b.append("<tr><th>").append(esc(h.hosts().get(i).name())).append("</th>");
            for (int j = 0; j < h.hosts().size(); j++) {
                cells(b, i == j ? "-" : Units.bytes(h.bytes()[i][j]));
            }
            b.append("</tr>\n");
        }
        b.append("</table>\n");
    }

    // --- plots --------------------------------------------------------------------------------

    /** "rank 3" or "ranks 4-7": the ranks of block {@code k}. */
    private static String blockName(Profile p, int k) {
        Profile.Blocks blocks = p.blocks();
        int first = blocks.firstRank()[k];
        int size = blocks.size(k, p.ranks());
        return size <= 1 ? "rank " + first : "ranks " + first + "-" + (first + size - 1);
    }

    /** Application time per rank as a light bar, the part of it in MPI dark from the bottom. */
    private static void timeBars(Page page, Profile p) {
        Profile.Blocks blocks = p.blocks();
        int n = blocks.count();
        double[] app = new double[n];
        double[] mpi = new double[n];
        double top = 0;
        boolean grouped = false;
        for (int k = 0; k < n; k++) {
            int size = Math.max(1, blocks.size(k, p.ranks()));
            grouped |= size > 1;
            app[k] = blocks.appSeconds()[k] / size;
            mpi[k] = blocks.mpiSeconds()[k] / size;
            top = Math.max(top, Math.max(app[k], mpi[k]));
        }
        StringBuilder b = page.body;
        if (n == 0 || top <= 0) {
            b.append("<p class=\"note\">No application time was recorded.</p>\n");
            return;
        }
        if (grouped) {
            b.append("<p class=\"note\">Ranks in ").append(n).append(" blocks of consecutive ranks; each bar is the"
                    + " average of its block's ranks.</p>\n");
        }
        int left = 64;
        int plotW = Math.max(240, Math.min(840, n * 64));
        int plotH = 200;
        int width = left + plotW + 16;
        int height = plotH + 96;
        int y0 = 24 + plotH;
        page.startPlot("time-per-rank", width, height, "MPI and application time per rank");
        axisY(b, left, 24, plotH, top, Units::seconds);
        double slot = (double) plotW / n;
        double bar = Math.max(1, slot * 0.8);
        int every = (int) Math.ceil(n / 32.0);
        for (int k = 0; k < n; k++) {
            double x = left + k * slot + (slot - bar) / 2;
            double ha = height(app[k], top, plotH);
            double hm = height(mpi[k], top, plotH);
            b.append("<g><title>").append(esc(blockName(p, k) + ": application " + Units.seconds(app[k]) + ", MPI "
                    + Units.seconds(mpi[k]) + " (" + Units.percent(TextReport.percentOf(mpi[k], app[k])) + "%)"))
                    .append("</title>");
            rect(b, "mark app", x, y0 - ha, bar, ha, APP_COLOR);
            rect(b, "mark mpi", x, y0 - hm, bar, hm, MPI_COLOR);
            b.append("</g>\n");
            if (k % every == 0) {
                text(b, x + bar / 2, y0 + 14, "middle", Integer.toString(blocks.firstRank()[k]));
            }
        }
        text(b, left + plotW / 2.0, y0 + 32, "middle", grouped ? "first rank of the block" : "rank");
        legend(b, left, height - 18, new String[] {MPI_COLOR, APP_COLOR},
                new String[] {"MPI", "application (whole bar)"});
        b.append("</svg>\n");
    }

    /** The block matrix of bytes (of messages when no bytes moved) as colours, from sender (row) to receiver. */
    private static void heatMap(Page page, Profile p) {
        Profile.Blocks blocks = p.blocks();
        int n = blocks.count();
        long[][] bytes = blocks.bytes();
        long[][] messages = blocks.messages();
        long maxBytes = 0;
        long maxMessages = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                maxBytes = Math.max(maxBytes, bytes[i][j]);
                maxMessages = Math.max(maxMessages, messages[i][j]);
            }
        }
        StringBuilder b = page.body;
        if (maxBytes == 0 && maxMessages == 0) {
            b.append("<p class=\"note\">No message between ranks was recorded.</p>\n");
            return;
        }
        boolean byBytes = maxBytes > 0;
        long[][] value = byBytes ? bytes : messages;
        long max = byBytes ? maxBytes : maxMessages;
        long min = max;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (value[i][j] > 0) {
                    min = Math.min(min, value[i][j]);
                }
            }
        }
        b.append("<p class=\"note\">").append(byBytes ? "Bytes" : "Messages (no bytes moved)")
                .append(" sent from the row's ranks to the column's, colour on a log scale; hover for the figures.</p>\n");
        double cell = Math.max(6, Math.min(40, 640.0 / n));
        int left = 72;
        int topMargin = 40;
        int side = (int) Math.ceil(cell * n);
        int width = left + side + 180;
        int height = topMargin + side + 24;
        page.startPlot("matrix", width, height, "communication matrix");
        int every = (int) Math.ceil(n / 16.0);
        for (int i = 0; i < n; i++) {
            if (i % every == 0) {
                text(b, left - 6, topMargin + (i + 0.5) * cell + 4, "end", Integer.toString(blocks.firstRank()[i]));
                text(b, left + (i + 0.5) * cell, topMargin - 6, "middle", Integer.toString(blocks.firstRank()[i]));
            }
            for (int j = 0; j < n; j++) {
                long v = value[i][j];
                b.append("<g><title>").append(esc(blockName(p, i) + " to " + blockName(p, j) + ": "
                        + Units.bytes(bytes[i][j]) + " bytes in " + Units.count(messages[i][j]) + " messages"))
                        .append("</title>");
                rect(b, v > 0 ? "mark" : "zero", left + j * cell, topMargin + i * cell, cell, cell,
                        v > 0 ? heat(v, min, max) : "#f4f4f4");
                b.append("</g>\n");
            }
        }
        text(b, left + side / 2.0, 14, "middle", "receiver");
        b.append("<text x=\"14\" y=\"").append(num(topMargin + side / 2.0)).append("\" text-anchor=\"middle\"")
                .append(" transform=\"rotate(-90 14 ").append(num(topMargin + side / 2.0)).append(")\">sender</text>\n");
        int lx = left + side + 24;
        int steps = 8;
        for (int s = 0; s < steps; s++) {
            double f = (double) s / (steps - 1);
            long v = Math.round(Math.exp(Math.log(min) + f * (Math.log(max) - Math.log(min))));
            rect(b, "key", lx, topMargin + s * 16, 16, 16, heat(v, min, max));
        }
        LongFunction<String> label = byBytes ? v -> Units.bytes(v) : v -> Units.count(v);
        text(b, lx + 22, topMargin + 12, "start", label.apply(min));
        text(b, lx + 22, topMargin + (steps - 1) * 16 + 12, "start", label.apply(max));
        b.append("</svg>\n");
    }

    /**
     * A histogram's bars from its first to its last non-empty bucket; false (and nothing drawn) when
     * it is empty.
     */
    private static boolean histogram(Page page, long[] h, String what, int plotH) {
        int first = -1;
        int last = -1;
        long most = 0;
        long total = 0;
        for (int k = 0; k < h.length; k++) {
            if (h[k] > 0) {
                first = first < 0 ? k : first;
                last = k;
                most = Math.max(most, h[k]);
                total += h[k];
            }
        }
        if (total == 0) {
            return false;
        }
        int n = last - first + 1;
        double slot = Math.min(40, 760.0 / Math.max(n, 4));
        int left = 56;
        int width = (int) Math.ceil(left + slot * n + 40);
        int height = 24 + plotH + 64;
        int y0 = 24 + plotH;
        StringBuilder b = page.body;
        page.startPlot("sizes-" + (page.plots + 1), width, height, "message sizes, " + what);
        axisY(b, left, 24, plotH, most, Units::count);
        for (int k = first; k <= last; k++) {
            double x = left + (k - first) * slot + slot * 0.1;
            double hk = height(h[k], most, plotH);
            b.append("<g><title>").append(esc(what + ", " + Histogram.label(k) + " bytes: " + Units.count(h[k])
                    + " calls (" + Units.percent(TextReport.percentOf(h[k], total)) + "%)")).append("</title>");
            rect(b, "mark", x, y0 - hk, slot * 0.8, hk, BAR_COLOR);
            b.append("</g>\n");
            double cx = x + slot * 0.4;
            b.append("<text x=\"").append(num(cx)).append("\" y=\"").append(y0 + 12)
                    .append("\" text-anchor=\"end\" transform=\"rotate(-45 ").append(num(cx)).append(' ')
                    .append(y0 + 12).append(")\">").append(esc(Histogram.label(k))).append("</text>\n");
        }
        b.append("</svg>\n");
        return true;
    }

    /** A vertical axis from 0 to {@code top} with three labels. */
    private static void axisY(StringBuilder b, int x, int y, int h, double top,
                              DoubleFunction<String> label) {
        b.append("<line class=\"axis\" x1=\"").append(x - 4).append("\" y1=\"").append(y + h).append("\" x2=\"")
                .append(x - 4).append("\" y2=\"").append(y).append("\"/>\n");
        for (int i = 0; i <= 2; i++) {
            double v = top * i / 2;
            double ty = y + h - h * i / 2.0;
            text(b, x - 8, ty + 4, "end", label.apply(v));
        }
    }

    private static double height(double v, double top, int plotH) {
        if (v <= 0 || top <= 0) {
            return 0;
        }
        return Math.max(1, plotH * v / top);
    }

    private static void rect(StringBuilder b, String cls, double x, double y, double w, double h, String fill) {
        b.append("<rect class=\"").append(cls).append("\" x=\"").append(num(x)).append("\" y=\"").append(num(y))
                .append("\" width=\"").append(num(w)).append("\" height=\"").append(num(h)).append("\" fill=\"")
                .append(fill).append("\"/>");
    }

    private static void text(StringBuilder b, double x, double y, String anchor, String s) {
        b.append("<text x=\"").append(num(x)).append("\" y=\"").append(num(y)).append("\" text-anchor=\"")
                .append(anchor).append("\">").append(esc(s)).append("</text>\n");
    }

    private static void legend(StringBuilder b, int x, int y, String[] colors, String[] names) {
        int at = x;
        for (int i = 0; i < colors.length; i++) {
            rect(b, "key", at, y - 10, 12, 12, colors[i]);
            text(b, at + 16, y, "start", names[i]);
            at += 24 + names[i].length() * 7;
        }
    }

    /** The colour of {@code v} between {@code min} and {@code max} on a log scale, light to dark orange. */
    static String heat(long v, long min, long max) {
        double f = max <= min ? 1 : (Math.log(v) - Math.log(min)) / (Math.log(max) - Math.log(min));
        f = Math.max(0, Math.min(1, f));
        int[] from = {254, 224, 182};
        int[] to = {127, 39, 4};
        StringBuilder c = new StringBuilder("#");
        for (int i = 0; i < 3; i++) {
            c.append(String.format(Locale.ROOT, "%02x", Math.round(from[i] + f * (to[i] - from[i]))));
        }
        return c.toString();
    }

    private static String num(double v) {
        String s = String.format(Locale.ROOT, "%.1f", v);
        return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
    }

    private static long total(long[] h) {
        long t = 0;
        for (long v : h) {
            t += v;
        }
        return t;
    }

    // --- text ---------------------------------------------------------------------------------

    private static String orUnknown(String s) {
        return s == null ? "(unknown)" : s;
    }

    private static String baseName(String path) {
        if (path == null) {
            return "(unknown)";
        }
        int slash = path.lastIndexOf('/');
        return slash >= 0 && slash < path.length() - 1 ? path.substring(slash + 1) : path;
    }

    /**
     * {@code s} as HTML text or attribute value: markup characters as entities, characters HTML does
     * not allow (controls, lone surrogates, noncharacters) as U+FFFD.
     */
    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> {
                    if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                        b.append(c).append(s.charAt(++i));
                    } else if ((c < 0x20 && c != '\t' && c != '\n') || (c >= 0x7f && c < 0xa0)
                            || Character.isSurrogate(c) || c == 0xfffe || c == 0xffff) {
                        b.append('\ufffd');
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }

    private static String sha256(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(d);
        } catch (NoSuchAlgorithmException e) {
            // Every Java platform has SHA-256.
            throw new IllegalStateException(e);
        }
    }
}
