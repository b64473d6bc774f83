package io.jpmpi.profilers.report;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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
              /* Tables sort by any column: a click (or Enter) on its heading; numbers by their data-v. */
              function sortTable(table, col, asc) {
                var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
                var numeric = rows.every(function (r) { return r.cells[col] && r.cells[col].hasAttribute('data-v'); });
                rows.sort(function (a, b) {
                  var x = a.cells[col], y = b.cells[col];
                  var d = numeric ? parseFloat(x.getAttribute('data-v')) - parseFloat(y.getAttribute('data-v'))
                      : x.textContent.localeCompare(y.textContent);
                  return asc ? d : -d;
                });
                rows.forEach(function (r) { body.appendChild(r); });
                var heads = table.tHead.rows[0].cells;
                for (var k = 0; k < heads.length; k++) {
                  heads[k].setAttribute('aria-sort', k === col ? (asc ? 'ascending' : 'descending') : 'none');
                }
              }
              var tables = document.querySelectorAll('table.sortable');
              Array.prototype.forEach.call(tables, function (t) {
                Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th, k) {
                  th.tabIndex = 0;
                  th.addEventListener('click', function () {
                    sortTable(t, k, th.getAttribute('aria-sort') !== 'ascending');
                  });
                  th.addEventListener('keydown', function (e) {
                    if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); th.click(); }
                  });
                });
              });
              /* report.html#sort=TABLE:COLUMN:asc|desc opens the page sorted so (a link to a view). */
              var want = /^#sort=([a-z-]+):([0-9]+):(asc|desc)$/.exec(location.hash);
              var target = want && document.getElementById(want[1]);
              if (target && target.classList.contains('sortable') && +want[2] < target.tHead.rows[0].cells.length) {
                sortTable(target, +want[2], want[3] === 'asc');
              }
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
            table.sortable th { cursor: pointer; user-select: none; }
            table.sortable th[aria-sort=ascending]::after { content: " \\25b2"; }
            table.sortable th[aria-sort=descending]::after { content: " \\25bc"; }
            svg .zero { stroke: #c8c8c8; stroke-width: .5; }
            """;

    /**
     * The page's only style and script, by their SHA-256 (base64), as its Content-Security-Policy names
     * them. Constants, checked against STYLE and SCRIPT by HtmlReportTest (which says the new value when
     * either changes): MessageDigest's first use starts the JDK's security providers, ~10 ms of the
     * launcher's after-job time in a fresh JVM (benchmarks/README.md, "launcher/").
     */
    static final String STYLE_SHA256 = "5eVRy9zQzFuBJ+TJe/UKBDp6r9eqWxcbY1g4u+G3cOI=";
    static final String SCRIPT_SHA256 = "ch0Cq1g22RlsKpgyrp3aShxpA9oMb4lmHDHqqxn5ME0=";

    private static final String POLICY = "default-src 'none'; style-src 'sha256-" + STYLE_SHA256
            + "'; script-src 'sha256-" + SCRIPT_SHA256 + "'";

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
        rankTable(b, p);
        functionTable(b, p);
        sitesTables(b, p);
        rankFunctionMap(page, p);
        b.append("<h2>Communication matrix</h2>\n");
        hostMap(page, p);
        heatMap(page, p);
        pairTable(b, p);
        hostTable(b, p);
        b.append("<h2>Message sizes</h2>\n");
        b.append("<p class=\"note\">Calls per size of the larger of the bytes a call sends and receives"
                + " (log2 buckets; " + esc(Units.LEGEND) + ").</p>\n");
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
        sizesTable(b, p);
        sizeTimeMap(page, p, withSizes);
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
        b.append("<dl class=\"facts\">\n");
        fact(b, "job", job.id() == null ? "(no job id)" : job.id());
        if (job.step() != null) {
            fact(b, "step", job.step());
        }
        fact(b, "executable", orUnknown(job.executable()));
        fact(b, "MPI", orUnknown(job.mpi()));
        fact(b, "ranks", p.ranks() + " on " + job.hosts() + (job.hosts() == 1 ? " host" : " hosts"));
        String hosts = TextReport.hostList(p, 50);
        if (hosts != null) {
            fact(b, "hosts", hosts);
        }
        fact(b, "start", orUnknown(job.start()));
        fact(b, "longest application time", Readable.longestApp(p) + ", from the end of MPI_Init to the start of"
                + " MPI_Finalize");
        fact(b, "job wall time", Readable.jobWall(p));
        fact(b, "command", Readable.commandLine(p));
        String settings = Readable.settings(p);
        if (settings != null) {
            fact(b, "jpmpi settings", settings);
        }
        String sampled = Readable.sampledError(p);
        fact(b, "MPI time", Units.percent(TextReport.mpiShare(p)) + "% of application time (all ranks)"
                + (sampled == null ? "" : " " + sampled));
        fact(b, "calls", Units.count(s.calls().sum()));
        fact(b, "bytes", Units.bytes(s.bytesSent().sum()) + " sent, " + Units.bytes(s.bytesRecv().sum()) + " received");
        fact(b, "profiler overhead", Readable.overhead(p));
        fact(b, "units", Units.LEGEND);
        b.append("</dl>\n");
    }

    private static void fact(StringBuilder b, String name, String value) {
        b.append("<dt>").append(esc(name)).append("</dt><dd>").append(esc(value)).append("</dd>\n");
    }

    private static void perRankTable(StringBuilder b, Profile p) {
        Profile.Summary s = p.summary();
        b.append("<h2>Per rank</h2>\n");
        startTable(b, "per-rank", "", "#min", "#rank", "#avg", "#max", "#rank", "#cv");
        statRow(b, "application time", s.appSeconds(), Units::seconds);
        statRow(b, "MPI time", s.mpiSeconds(), Units::seconds);
        statRow(b, "MPI %", s.mpiPercent(), Units::percent);
        statRow(b, "calls", s.calls(), Units::count);
        statRow(b, "bytes sent", s.bytesSent(), Units::bytes);
        statRow(b, "bytes received", s.bytesRecv(), Units::bytes);
        endTable(b);
    }

    private static void statRow(StringBuilder b, String name, Stat s, DoubleFunction<String> f) {
        b.append("<tr><td>").append(name).append("</td>");
        spread(b, s, f, true);
        b.append("</tr>\n");
    }

    /** A spread's cells: min, its rank, (avg,) max, its rank, cv. */
    private static void spread(StringBuilder b, Stat s, DoubleFunction<String> f, boolean avg) {
        cell(b, f.apply(s.min()), s.min());
        cell(b, Integer.toString(s.minRank()), s.minRank());
        if (avg) {
            cell(b, f.apply(s.avg()), s.avg());
        }
        cell(b, f.apply(s.max()), s.max());
        cell(b, Integer.toString(s.maxRank()), s.maxRank());
        cell(b, Units.fixed(s.cv(), 2), s.cv());
    }

    /** Starts a table sortable by any column: its id, and its headings ("#name": a column of numbers). */
    private static void startTable(StringBuilder b, String id, String... headings) {
        b.append("<div class=\"scroll\"><table class=\"sortable\" id=\"").append(id).append("\">\n<thead><tr>");
        for (String h : headings) {
            boolean n = h.startsWith("#");
            b.append(n ? "<th class=\"n\">" : "<th>").append(esc(n ? h.substring(1) : h)).append("</th>");
        }
        b.append("</tr></thead>\n<tbody>\n");
    }

    private static void endTable(StringBuilder b) {
        b.append("</tbody></table></div>\n");
    }

    /** A number's cell: {@code text} shown, {@code value} what it sorts by. */
    private static void cell(StringBuilder b, String text, double value) {
        b.append("<td class=\"n\" data-v=\"").append(Double.isFinite(value) ? Double.toString(value) : "0")
                .append("\">").append(esc(text)).append("</td>");
    }

    /** A text cell. */
    private static void cell(StringBuilder b, String text) {
        b.append("<td>").append(esc(text)).append("</td>");
    }

    /** The notes under a table, each a paragraph; nulls left out. */
    private static void notes(StringBuilder b, String... notes) {
        for (String n : notes) {
            if (n != null) {
                b.append("<p class=\"note\">").append(esc(n)).append("</p>\n");
            }
        }
    }

    private static void functionTable(StringBuilder b, Profile p) {
        b.append("<h2>MPI functions by time</h2>\n");
        List<FunctionProfile> timed = Readable.timed(p);
        if (timed.isEmpty()) {
            b.append("<p class=\"note\">No MPI function was called while recording.</p>\n");
            notes(b, Readable.untimedNote(p));
            return;
        }
        double mpi = p.summary().mpiSeconds().sum();
        double app = p.summary().appSeconds().sum();
        b.append("<p class=\"note\">Sums over ranks; time per rank: the lowest and highest with the rank"
                + " holding each, and the coefficient of variation. Click a heading to sort.</p>\n");
        startTable(b, "functions", "function", "#calls", "#time", "#% MPI", "#% app", "#avg/call", "#min call",
                "#max call", "#sent", "#received", "#min/rank", "#rank", "#max/rank", "#rank", "#cv");
        boolean collectives = false;
        for (FunctionProfile f : timed) {
            Stat t = f.perRank().timeSeconds();
            collectives |= Readable.collective(f.name()) && (f.bytesSent() != 0 || f.bytesRecv() != 0);
            double avg = f.calls() == 0 ? 0 : f.timeSeconds() / f.calls();
            b.append("<tr>");
            cell(b, f.name());
            cell(b, Units.count(f.calls()), f.calls());
            cell(b, Units.seconds(f.timeSeconds()), f.timeSeconds());
            cell(b, Units.percent(TextReport.percentOf(f.timeSeconds(), mpi)), TextReport.percentOf(f.timeSeconds(), mpi));
            cell(b, Units.percent(TextReport.percentOf(f.timeSeconds(), app)), TextReport.percentOf(f.timeSeconds(), app));
            cell(b, Units.seconds(avg), avg);
            cell(b, Readable.minCall(p, f.minCallSeconds()), f.minCallSeconds());
            cell(b, Units.seconds(f.maxCallSeconds()), f.maxCallSeconds());
            cell(b, Readable.bytes(f, f.bytesSent()), f.bytesSent());
            cell(b, Readable.bytes(f, f.bytesRecv()), f.bytesRecv());
            spread(b, t, Units::seconds, false);
            b.append("</tr>\n");
        }
        endTable(b);
        notes(b, collectives ? Readable.collectiveNote(p) : null, Readable.resolutionNote(p), Readable.untimedNote(p));
        sampledTiming(b, p);
        collectivesTable(b, p);
    }

    /* ---- schema 3: collectives' buffer bytes and communicator sizes, time by message size ---- */

    /** The collectives with their buffer bytes (mpiP's message size) beside the pairwise bytes, and by communicator size. */
    private static void collectivesTable(StringBuilder b, Profile p) {
        ProfileBreakdown detail = p.details().breakdown();
        if (detail == null || detail.functions().stream().noneMatch(ProfileBreakdown.FunctionDetail::collective)) {
            return;
        }
        b.append("<h3>Collectives: buffer bytes</h3>\n");
        notes(b, "Buffer bytes: the count x type each rank gives a call (mpiP's message size; an MPI_Allreduce of 1 KiB"
                + " is 1 KiB a call on every rank), summed over calls and ranks; pairwise: the messages the call"
                + " implies, as in the table above.");
        startTable(b, "collectives", "function", "#calls", "#buffer bytes", "#avg buffer/call", "#pairwise sent",
                "#pairwise received");
        for (ProfileBreakdown.FunctionDetail d : detail.functions()) {
            FunctionProfile f = function(p, d.name());
            if (!d.collective() || f == null) {
                continue;
            }
            long counted = 0;
            for (long c : d.callsByComm()) {
                counted += c;
            }
            double avg = counted == 0 ? 0 : (double) d.bufferBytes() / counted;
            b.append("<tr>");
            cell(b, d.name());
            cell(b, Units.count(f.calls()), f.calls());
            cell(b, Units.bytes(d.bufferBytes()), d.bufferBytes());
            cell(b, Units.bytes(Math.round(avg)), avg);
            cell(b, Readable.bytes(f, f.bytesSent()), f.bytesSent());
            cell(b, Readable.bytes(f, f.bytesRecv()), f.bytesRecv());
            b.append("</tr>\n");
        }
        endTable(b);
        b.append("<h3>Collectives by communicator size</h3>\n");
        notes(b, "Processes in the communicator of each call (the remote group's for an inter-communicator), in"
                + " log2 buckets; time as the function's (sampled calls weighted).");
        startTable(b, "comm-sizes", "function", "#processes from", "processes", "#calls", "#% of its calls", "#time",
                "#% of its time");
        for (ProfileBreakdown.FunctionDetail d : detail.functions()) {
            FunctionProfile f = function(p, d.name());
            if (!d.collective() || f == null) {
                continue;
            }
            long all = total(d.callsByComm());
            for (int k = 0; k < d.callsByComm().length; k++) {
                long c = d.callsByComm()[k];
                if (c == 0) {
                    continue;
                }
                double t = k < d.timeByComm().length ? d.timeByComm()[k] : 0;
                b.append("<tr>");
                cell(b, d.name());
                cell(b, Long.toString(1L << k), 1L << k);
                cell(b, Readable.commLabel(k));
                cell(b, Units.count(c), c);
                cell(b, Units.percent(TextReport.percentOf(c, all)), TextReport.percentOf(c, all));
                cell(b, Units.seconds(t), t);
                cell(b, Units.percent(TextReport.percentOf(t, f.timeSeconds())), TextReport.percentOf(t, f.timeSeconds()));
                b.append("</tr>\n");
            }
        }
        endTable(b);
    }

    /** The function {@code name} of {@code p}, or null. */
    private static FunctionProfile function(Profile p, String name) {
        for (FunctionProfile f : p.functions()) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        return null;
    }

    /**
     * Time per function and message size (schema 3), a heat map of the functions of the size table
     * with the most time: which sizes the time goes to.
     */
    private static void sizeTimeMap(Page page, Profile p, List<FunctionProfile> moving) {
        ProfileBreakdown detail = p.details().breakdown();
        if (detail == null || moving.isEmpty()) {
            return;
        }
        List<FunctionProfile> fns = new ArrayList<>(moving);
        fns.sort((x, y) -> Double.compare(y.timeSeconds(), x.timeSeconds()));
        fns = fns.subList(0, Math.min(MAP_FUNCTIONS, fns.size()));
        int lo = Histogram.BUCKETS;
        int hi = -1;
        for (FunctionProfile f : fns) {
            for (int k = 0; k < f.histogram().length; k++) {
                if (f.histogram()[k] > 0) {
                    lo = Math.min(lo, k);
                    hi = Math.max(hi, k);
                }
            }
        }
        if (hi < 0) {
            return;
        }
        String[] rows = new String[fns.size()];
        String[] cols = new String[hi - lo + 1];
        double[][] v = new double[rows.length][cols.length];
        String[][] tips = new String[rows.length][cols.length];
        for (int j = 0; j < cols.length; j++) {
            cols[j] = Histogram.label(lo + j);
        }
        for (int i = 0; i < rows.length; i++) {
            FunctionProfile f = fns.get(i);
            ProfileBreakdown.FunctionDetail d = detail.get(f.name());
            rows[i] = f.name();
            for (int j = 0; j < cols.length; j++) {
                int k = lo + j;
                long calls = k < f.histogram().length ? f.histogram()[k] : 0;
                double t = d != null && k < d.timeBySize().length ? d.timeBySize()[k] : 0;
                v[i][j] = calls == 0 ? -1 : t;
                tips[i][j] = f.name() + ", " + Histogram.label(k) + ": " + (calls == 0 ? "no call"
                        : Units.count(calls) + " calls, " + Units.seconds(t));
            }
        }
        page.body.append("<h3>Time per function and message size</h3>\n<p class=\"note\">Colour on a log scale;"
                + " white: no call of that size; hover for calls and time.</p>\n");
        grid(page, "size-time", "time per function and message size", rows, cols, v, tips, "function",
                "message size (bytes; KiB = 1024 bytes)", Units::seconds);
    }

    /* ---- end of schema 3 ---- */

    /** Every rank (up to {@value #MAX_RANK_ROWS}): host, times, calls. */
    static final int MAX_RANK_ROWS = 1024;

    private static void rankTable(StringBuilder b, Profile p) {
        List<Profile.RankRow> rows = p.rankRows();
        if (rows.size() < 2) {
            return;
        }
        b.append("<h3>Ranks</h3>\n");
        startTable(b, "ranks", "#rank", "host", "#application time", "#MPI time", "#MPI %", "#calls");
        for (Profile.RankRow r : rows.subList(0, Math.min(MAX_RANK_ROWS, rows.size()))) {
            double pct = TextReport.percentOf(r.mpiSeconds(), r.appSeconds());
            b.append("<tr>");
            cell(b, Integer.toString(r.rank()), r.rank());
            cell(b, r.host() == null || r.host().isEmpty() ? "(unknown)" : r.host());
            cell(b, Units.seconds(r.appSeconds()), r.appSeconds());
            cell(b, Units.seconds(r.mpiSeconds()), r.mpiSeconds());
            cell(b, Units.percent(pct), pct);
            cell(b, Units.count(r.calls()), r.calls());
            b.append("</tr>\n");
        }
        endTable(b);
        if (rows.size() > MAX_RANK_ROWS) {
            notes(b, "The first " + MAX_RANK_ROWS + " of " + rows.size() + " ranks; profile.json has them all.");
        }
    }

    /** Calls per message size for every function that moves bytes (mpiP's -y, by calls). */
    private static void sizesTable(StringBuilder b, Profile p) {
        List<FunctionProfile> moving = new ArrayList<>();
        for (FunctionProfile f : p.functions()) {
            if (total(f.histogram()) > (f.histogram().length > 0 ? f.histogram()[0] : 0)) {
                moving.add(f);
            }
        }
        if (moving.isEmpty()) {
            return;
        }
        ProfileBreakdown detail = p.details().breakdown();
        b.append(detail == null ? "<h3>Calls per message size, per function</h3>\n"
                : "<h3>Calls and time per message size, per function</h3>\n");
        if (detail == null) {
            startTable(b, "sizes", "function", "#size from (bytes)", "size", "#calls", "#% of its calls");
        } else {
            startTable(b, "sizes", "function", "#size from (bytes)", "size", "#calls", "#% of its calls", "#time",
                    "#% of its time");
        }
        for (FunctionProfile f : moving) {
            long all = total(f.histogram());
            ProfileBreakdown.FunctionDetail d = detail == null ? null : detail.get(f.name());
            for (int k = 0; k < f.histogram().length; k++) {
                long c = f.histogram()[k];
                if (c > 0) {
                    b.append("<tr>");
                    cell(b, f.name());
                    cell(b, Units.bytes(Histogram.lowerBound(k)), Histogram.lowerBound(k));
                    cell(b, Histogram.label(k));
                    cell(b, Units.count(c), c);
                    cell(b, Units.percent(TextReport.percentOf(c, all)), TextReport.percentOf(c, all));
                    if (detail != null) {
                        double t = d != null && k < d.timeBySize().length ? d.timeBySize()[k] : 0;
                        cell(b, Units.seconds(t), t);
                        cell(b, Units.percent(TextReport.percentOf(t, f.timeSeconds())),
                                TextReport.percentOf(t, f.timeSeconds()));
                    }
                    b.append("</tr>\n");
                }
            }
        }
        endTable(b);
    }

    /* ---- sampled timing (issue 26): the functions whose time is an estimate ---- */

    private static void sampledTiming(StringBuilder b, Profile p) {
        List<FunctionProfile> sampled = p.functions().stream().filter(FunctionProfile::sampled).toList();
        if (sampled.isEmpty()) {
            return;
        }
        b.append("<h3>Sampled timing</h3>\n");
        notes(b, "Calls too short to time honestly: every call is counted (bytes too), a random sample of them is"
                + " timed; the time is an estimate with its standard error, and min and max call are those of the timed"
                + " calls.");
        startTable(b, "sampled", "function", "#calls", "#timed", "#time", "#standard error", "#error %");
        for (FunctionProfile f : sampled) {
            double pct = TextReport.percentOf(f.timeErrorSeconds(), f.timeSeconds());
            b.append("<tr>");
            cell(b, f.name());
            cell(b, Units.count(f.calls()), f.calls());
            cell(b, Units.count(f.timedCalls()), f.timedCalls());
            cell(b, Units.seconds(f.timeSeconds()), f.timeSeconds());
            cell(b, Units.seconds(f.timeErrorSeconds()), f.timeErrorSeconds());
            cell(b, Units.percent(pct), pct);
            b.append("</tr>\n");
        }
        endTable(b);
    }

    /* ---- end of sampled timing ---- */

    /* ---- call sites (issue 21): every site by time, and each function's sites ---- */

    /** The most sites the table lists (profile.json has them all). */
    static final int MAX_SITE_ROWS = 1000;

    /** Every site (up to {@value #MAX_SITE_ROWS}) and every function's sites, both sortable. */
    private static void sitesTables(StringBuilder b, Profile p) {
        CallSites cs = p.sites();
        if (cs == null) {
            return;
        }
        b.append("<h2>Call sites by time</h2>\n");
        List<CallSites.Site> all = Readable.timedSites(cs);
        if (all.isEmpty()) {
            notes(b, "No call site was recorded.", cs.note());
            return;
        }
        double mpi = p.summary().mpiSeconds().sum();
        notes(b, "Where the program called each MPI function: file:line and function from the module's debug"
                + " information, else the function or dynamic symbol and offset, else module+offset (column"
                + " \"named by\"). Sums over ranks; time per rank: the lowest and highest with the rank holding each"
                + " (a rank that never called from the site counts 0).");
        startTable(b, "sites", "site", "function", "#calls", "#time", "#% MPI", "#bytes", "#min/rank", "#rank",
                "#max/rank", "#rank", "#cv", "named by", "module");
        List<CallSites.Site> shown = all.subList(0, Math.min(MAX_SITE_ROWS, all.size()));
        for (CallSites.Site s : shown) {
            Stat t = s.timeSeconds();
            b.append("<tr>");
            cell(b, s.where());
            cell(b, s.function());
            cell(b, Units.count(s.calls().sum()), s.calls().sum());
            cell(b, Units.seconds(t.sum()), t.sum());
            cell(b, Units.percent(TextReport.percentOf(t.sum(), mpi)), TextReport.percentOf(t.sum(), mpi));
            cell(b, Units.bytes(s.bytes().sum()), s.bytes().sum());
            spread(b, t, Units::seconds, false);
            cell(b, s.resolved().json);
            cell(b, s.module() + "+0x" + Long.toHexString(s.offset()));
            b.append("</tr>\n");
        }
        endTable(b);
        notes(b, shown.size() < all.size() ? "The first " + MAX_SITE_ROWS + " of " + all.size()
                + " sites; profile.json has them all." : null, cs.note());
        b.append("<h3>Call sites per function</h3>\n");
        startTable(b, "function-sites", "function", "site", "#calls", "#time", "#% of the function's time");
        int rows = 0;
        for (FunctionProfile f : Readable.timed(p)) {
            for (CallSites.Site s : cs.of(f.name())) {
                if (rows++ == MAX_SITE_ROWS) {
                    break;
                }
                double pct = TextReport.percentOf(s.timeSeconds().sum(), f.timeSeconds());
                b.append("<tr>");
                cell(b, f.name());
                cell(b, s.where());
                cell(b, Units.count(s.calls().sum()), s.calls().sum());
                cell(b, Units.seconds(s.timeSeconds().sum()), s.timeSeconds().sum());
                cell(b, Units.percent(pct), pct);
                b.append("</tr>\n");
            }
        }
        endTable(b);
    }

    /* ---- end of call sites ---- */

    private static void pairTable(StringBuilder b, Profile p) {
        TextReport.Pairs all = TextReport.topPairs(p, TextReport.TOP_PAIRS);
        if (all.pairs() == 0) {
            return;
        }
        b.append("<h3>").append(all.byBlock() ? "Pairs of rank blocks" : "Rank pairs")
                .append(" with the most bytes</h3>\n");
        startTable(b, "pairs", "#sender", "#receiver", "#bytes", "#% bytes", "#messages");
        for (TextReport.Pair q : all.top()) {
            b.append("<tr>");
            cell(b, TextReport.party(p, all, q.from()), q.from());
            cell(b, TextReport.party(p, all, q.to()), q.to());
            cell(b, Units.bytes(q.bytes()), q.bytes());
            cell(b, Units.percent(TextReport.percentOf(q.bytes(), all.bytes())), TextReport.percentOf(q.bytes(), all.bytes()));
            cell(b, Units.count(q.messages()), q.messages());
            b.append("</tr>\n");
        }
        endTable(b);
        b.append("<p class=\"note\">").append(all.pairs()).append(" pairs exchanged ")
                .append(Units.count(all.messages())).append(" messages, ").append(Units.bytes(all.bytes()))
                .append(".</p>\n");
    }

    /** Per host, when the ranks ran on more than one (TextReport's per-host section). */
    private static void hostTable(StringBuilder b, Profile p) {
        Hosts h = Hosts.of(p);
        if (h.hosts().size() < 2) {
            return;
        }
        b.append("<h3>Per host</h3>\n");
        startTable(b, "hosts", "host", "#ranks", "#first rank", "#application time", "#MPI time", "#MPI %",
                "#sent to other hosts", "#received from other hosts");
        for (Hosts.Host x : h.hosts()) {
            b.append("<tr>");
            cell(b, x.name());
            cell(b, Integer.toString(x.ranks()), x.ranks());
            cell(b, Integer.toString(x.firstRank()), x.firstRank());
            cell(b, Units.seconds(x.appSeconds()), x.appSeconds());
            cell(b, Units.seconds(x.mpiSeconds()), x.mpiSeconds());
            cell(b, Units.percent(x.mpiPercent()), x.mpiPercent());
            cell(b, Units.bytes(x.bytesOut()), x.bytesOut());
            cell(b, Units.bytes(x.bytesIn()), x.bytesIn());
            b.append("</tr>\n");
        }
        endTable(b);
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
        yTitle(b, 24 + plotH / 2.0, "time per rank");
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
                        v > 0 ? heat(v, min, max) : NONE_COLOR);
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
        rect(b, "zero", lx, topMargin + steps * 16 + 8, 16, 16, NONE_COLOR);
        text(b, lx + 22, topMargin + steps * 16 + 20, "start", "none");
        b.append("</svg>\n");
    }

    /** An empty cell of a heat map: white with a grey edge, unlike the lightest colour of a small value. */
    private static final String NONE_COLOR = "#ffffff";

    /**
     * A heat map of {@code v} (rows x columns; a negative value is no value: a white cell), colours on
     * a log scale from the smallest positive value to the largest, every cell with its title, both
     * axes titled, a key with the extremes and the empty cell.
     */
    private static void grid(Page page, String id, String label, String[] rows, String[] cols, double[][] v,
                             String[][] tips, String rowAxis, String colAxis, DoubleFunction<String> unit) {
        double min = Double.MAX_VALUE;
        double max = 0;
        for (double[] row : v) {
            for (double x : row) {
                if (x > 0) {
                    min = Math.min(min, x);
                    max = Math.max(max, x);
                }
            }
        }
        if (max <= 0) {
            min = max = 1;
        }
        int longest = 0;
        for (String c : cols) {
            longest = Math.max(longest, c.length());
        }
        int rowLabel = 0;
        for (String r : rows) {
            rowLabel = Math.max(rowLabel, r.length());
        }
        double cell = Math.max(8, Math.min(36, 640.0 / Math.max(rows.length, cols.length)));
        int left = 40 + Math.min(160, rowLabel * 7);
        int top = 30 + (int) Math.ceil(Math.min(200, longest * 6.5) * 0.75);
        int width = (int) Math.ceil(left + cell * cols.length + 200);
        int height = (int) Math.ceil(top + cell * rows.length + 24);
        StringBuilder b = page.body;
        page.startPlot(id, width, height, label);
        int everyRow = (int) Math.ceil(rows.length / 32.0);
        for (int i = 0; i < rows.length; i++) {
            if (i % everyRow == 0) {
                text(b, left - 6, top + (i + 0.5) * cell + 4, "end", rows[i]);
            }
            for (int j = 0; j < cols.length; j++) {
                b.append("<g><title>").append(esc(tips[i][j])).append("</title>");
                rect(b, v[i][j] >= 0 ? "mark" : "zero", left + j * cell, top + i * cell, cell, cell,
                        v[i][j] >= 0 ? heat(Math.max(v[i][j], min), min, max) : NONE_COLOR);
                b.append("</g>\n");
            }
        }
        for (int j = 0; j < cols.length; j++) {
            double x = left + (j + 0.5) * cell;
            b.append("<text x=\"").append(num(x)).append("\" y=\"").append(top - 6)
                    .append("\" text-anchor=\"start\" transform=\"rotate(-45 ").append(num(x)).append(' ')
                    .append(top - 6).append(")\">").append(esc(cols[j])).append("</text>\n");
        }
        text(b, left + cell * cols.length / 2.0, 14, "middle", colAxis);
        double mid = top + cell * rows.length / 2.0;
        b.append("<text x=\"14\" y=\"").append(num(mid)).append("\" text-anchor=\"middle\" transform=\"rotate(-90 14 ")
                .append(num(mid)).append(")\">").append(esc(rowAxis)).append("</text>\n");
        int lx = (int) Math.ceil(left + cell * cols.length + 24);
        for (int s = 0; s < 8; s++) {
            double x = Math.exp(Math.log(min) + s / 7.0 * (Math.log(max) - Math.log(min)));
            rect(b, "key", lx, top + s * 16, 16, 16, heat(x, min, max));
        }
        text(b, lx + 22, top + 12, "start", unit.apply(min));
        text(b, lx + 22, top + 7 * 16 + 12, "start", unit.apply(max));
        rect(b, "zero", lx, top + 8 * 16 + 8, 16, 16, NONE_COLOR);
        text(b, lx + 22, top + 8 * 16 + 20, "start", "none");
        b.append("</svg>\n");
    }

    /** Most functions the rank x function heat map shows (the first by time). */
    static final int MAP_FUNCTIONS = 16;

    /**
     * Time per rank and function (blocks of ranks above 64, as the other plots), for the functions
     * with the most time: where a rank spends its MPI time differently from the others.
     */
    private static void rankFunctionMap(Page page, Profile p) {
        List<ProfileDetails.RankFunctions> perRank = p.details().rankFunctions();
        List<FunctionProfile> timed = Readable.timed(p);
        if (perRank == null || timed.isEmpty()) {
            return;
        }
        List<FunctionProfile> fns = timed.subList(0, Math.min(MAP_FUNCTIONS, timed.size()));
        Profile.Blocks blocks = p.blocks();
        int n = blocks.count();
        String[] rows = new String[n];
        String[] cols = new String[fns.size()];
        double[][] v = new double[n][fns.size()];
        String[][] tips = new String[n][fns.size()];
        for (int j = 0; j < fns.size(); j++) {
            cols[j] = fns.get(j).name();
        }
        for (int k = 0; k < n; k++) {
            rows[k] = Integer.toString(blocks.firstRank()[k]);
            int first = blocks.firstRank()[k];
            int size = blocks.size(k, p.ranks());
            for (int j = 0; j < fns.size(); j++) {
                FunctionProfile f = fns.get(j);
                long calls = 0;
                double time = 0;
                long sent = 0;
                long recv = 0;
                for (int r = first; r < first + size && r < perRank.size(); r++) {
                    ProfileDetails.Entry e = perRank.get(r).get(f.name());
                    if (e != null) {
                        calls += e.calls();
                        time += e.timeSeconds();
                        sent += e.bytesSent();
                        recv += e.bytesRecv();
                    }
                }
                v[k][j] = calls == 0 ? -1 : time;
                tips[k][j] = blockName(p, k) + ", " + f.name() + ": " + (calls == 0 ? "not called"
                        : Units.count(calls) + " calls, " + Units.seconds(time) + ", " + Units.bytes(sent) + " sent, "
                        + Units.bytes(recv) + " received");
            }
        }
        page.body.append("<h3>Time per rank and function</h3>\n<p class=\"note\">").append(n < p.ranks()
                ? "Rows are blocks of consecutive ranks (first rank shown), summed; " : "")
                .append("colour on a log scale; white: not called; hover for calls, time and bytes.</p>\n");
        grid(page, "rank-functions", "time per rank and function", rows, cols, v, tips,
                n < p.ranks() ? "first rank of the block" : "rank", "function", Units::seconds);
    }

    /** With ranks on several hosts: the matrix folded to host x host (bytes, sender row). */
    private static void hostMap(Page page, Profile p) {
        Hosts h = Hosts.of(p);
        int n = h.hosts().size();
        if (n < 2 || n > 64) {
            return;
        }
        String[] names = new String[n];
        for (int i = 0; i < n; i++) {
            names[i] = TextReport.cut(h.hosts().get(i).name(), 24);
        }
        double[][] v = new double[n][n];
        String[][] tips = new String[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                v[i][j] = h.messages()[i][j] == 0 ? -1 : h.bytes()[i][j];
                tips[i][j] = h.hosts().get(i).name() + " to " + h.hosts().get(j).name() + (i == j ? " (within the host)"
                        : "") + ": " + Units.bytes(h.bytes()[i][j]) + " in " + Units.count(h.messages()[i][j])
                        + " messages";
            }
        }
        page.body.append("<p class=\"note\">Between hosts: bytes the row's host's ranks sent to the column's"
                + " (the diagonal: within a host), colour on a log scale; white: none.</p>\n");
        grid(page, "host-matrix", "bytes between hosts", names, names, v, tips, "sender host", "receiver host",
                Units::bytes);
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
        int width = (int) Math.ceil(Math.max(left + slot * n + 40, left + 250));
        int height = 24 + plotH + 84;
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
        text(b, left, height - 6, "start", "message size in bytes (log2 buckets)");
        yTitle(b, 24 + plotH / 2.0, "calls");
        b.append("</svg>\n");
        return true;
    }

    /** A vertical axis's title, along the left edge. */
    private static void yTitle(StringBuilder b, double y, String title) {
        b.append("<text x=\"12\" y=\"").append(num(y)).append("\" text-anchor=\"middle\" transform=\"rotate(-90 12 ")
                .append(num(y)).append(")\">").append(esc(title)).append("</text>\n");
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
        return heat((double) v, (double) min, (double) max);
    }

    /** {@link #heat(long, long, long)} for any positive values. */
    static String heat(double v, double min, double max) {
        double f = max <= min || v <= 0 ? (v <= 0 ? 0 : 1) : (Math.log(v) - Math.log(min)) / (Math.log(max) - Math.log(min));
        f = Math.max(0, Math.min(1, f));
        int[] from = {254, 224, 182};
        int[] to = {127, 39, 4};
        StringBuilder c = new StringBuilder("#");
        for (int i = 0; i < 3; i++) {
            int x = (int) Math.round(from[i] + f * (to[i] - from[i])); // 4 to 254: two hex digits, as %02x
            c.append(Character.forDigit(x >> 4, 16)).append(Character.forDigit(x & 15, 16));
        }
        return c.toString();
    }

    private static String num(double v) {
        String s = Units.fixed(v, 1);
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
}
