package io.jpmpi.profilers.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.function.DoubleFunction;
import java.util.stream.LongStream;

/**
 * report.txt: the first screen people read. A boxed banner (the job, application and MPI time per
 * rank, totals, the profiler's own cost, why the profile is partial), the functions that took the
 * most time with their spread across ranks, the message sizes, and the rank pairs that exchanged
 * the most bytes. At most {@value #WIDTH} columns; the same profile always gives the same text.
 */
public final class TextReport {
    /** The widest line. */
    public static final int WIDTH = 100;
    /** How many functions the tables list. */
    public static final int TOP_FUNCTIONS = 15;
    /** How many rank pairs the last table lists. */
    public static final int TOP_PAIRS = 10;
    /** How many reasons for a partial profile the banner lists. */
    public static final int MAX_REASONS = 5;

    private static final int INNER = WIDTH - 4;
    private static final int LABEL = 12;
    private static final int NAME = 24;
    private static final int BAR = 24;

    private TextReport() {
    }

    /** The report of {@code p}, lines ending in "\n". */
    public static String render(Profile p) {
        StringBuilder b = new StringBuilder(8192);
        banner(b, p);
        List<FunctionProfile> timed = Readable.timed(p);
        List<FunctionProfile> top = timed.subList(0, Math.min(TOP_FUNCTIONS, timed.size()));
        b.append('\n');
        functions(b, p, timed, top);
        if (!top.isEmpty()) {
            b.append('\n');
            spread(b, p, top);
            extremeRanks(b, p, top);
        }
        sampledTiming(b, p);
        sites(b, p, top);
        b.append('\n');
        histogram(b, p);
        sizesPerFunction(b, p, top);
        collectives(b, p, top);
        b.append('\n');
        pairs(b, p);
        perHost(b, p);
        return b.toString();
    }

    /** Most hosts the matrix between hosts is shown for (the per-host table has them all). */
    static final int HOST_MATRIX = 8;

    /** Per host, when the ranks ran on more than one: their sums, and the bytes between hosts. */
    private static void perHost(StringBuilder b, Profile p) {
        Hosts h = Hosts.of(p);
        if (h.hosts().size() < 2) {
            return;
        }
        b.append("\nPer host (").append(h.hosts().size()).append(" hosts; ").append(Units.bytes(h.betweenHosts()))
                .append(" sent between hosts)\n");
        String format = "%-18s%7s%8s%11s%11s%8s%13s%13s\n";
        b.append(Units.format(format, "host", "ranks", "first", "app time", "MPI time", "MPI %",
                "sent out", "received"));
        for (Hosts.Host x : h.hosts()) {
            b.append(Units.format(format, cut(plain(x.name()), 17), x.ranks(), x.firstRank(),
                    Units.seconds(x.appSeconds()), Units.seconds(x.mpiSeconds()), Units.percent(x.mpiPercent()),
                    Units.bytes(x.bytesOut()), Units.bytes(x.bytesIn())));
        }
        if (h.hosts().size() > HOST_MATRIX) {
            return;
        }
        b.append("\nBytes between hosts (sender row, receiver column)\n");
        StringBuilder head = new StringBuilder(Units.format("%-18s", ""));
        for (Hosts.Host x : h.hosts()) {
            head.append(Units.format("%11s", cut(plain(x.name()), 10)));
        }
        b.append(head.toString().stripTrailing()).append('\n');
        for (int i = 0; i < h.hosts().size(); i++) {
            StringBuilder line = new StringBuilder(Units.format("%-18s", cut(plain(h.hosts().get(i).name()),
                    17)));
            for (int j = 0; j < h.hosts().size(); j++) {
                line.append(Units.format("%11s", i == j ? "-" : Units.bytes(h.bytes()[i][j])));
            }
            b.append(line).append('\n');
        }
    }

    // --- banner -------------------------------------------------------------------------------

    private static void banner(StringBuilder b, Profile p) {
        Job job = p.job();
        String rule = "+" + "-".repeat(WIDTH - 2) + "+\n";
        b.append(rule);
        String title = "jpmpi profile" + (p.partial() ? "  ** PARTIAL **" : "");
        String id = "job " + (job.id() == null ? "(no job id)" : plain(job.id()))
                + (job.step() == null ? "" : " step " + plain(job.step()));
        boxed(b, title + " ".repeat(Math.max(1, INNER - title.length() - id.length())) + id);
        field(b, "executable", job.executable() == null ? "(unknown)" : plain(job.executable()));
        field(b, "mpi", job.mpi() == null ? "(unknown)" : plain(job.mpi()));
        field(b, "ranks", p.ranks() + " on " + job.hosts() + (job.hosts() == 1 ? " host" : " hosts")
                + "    start " + (job.start() == null ? "(unknown)" : plain(job.start())));
        field(b, "longest app", Readable.longestApp(p) + ": application time, end of MPI_Init to start of"
                + " MPI_Finalize");
        field(b, "job wall", Readable.jobWall(p));
        field(b, "command", plain(Readable.commandLine(p)));
        String settings = Readable.settings(p);
        if (settings != null) {
            field(b, "jpmpi", plain(settings));
        }
        String hosts = hostList(p, 6);
        if (hosts != null) {
            field(b, "hosts", hosts);
        }
        boxed(b, "");
        boxed(b, Units.format("%-" + LABEL + "s%10s%8s%11s%11s%8s%8s", "per rank", "min", "rank",
                "avg", "max", "rank", "cv"));
        Profile.Summary s = p.summary();
        statRow(b, "app time", s.appSeconds(), Units::seconds);
        statRow(b, "MPI time", s.mpiSeconds(), Units::seconds);
        statRow(b, "MPI %", s.mpiPercent(), Units::percent);
        statRow(b, "calls", s.calls(), Units::count);
        statRow(b, "bytes sent", s.bytesSent(), Units::bytes);
        statRow(b, "bytes recv", s.bytesRecv(), Units::bytes);
        boxed(b, "");
        field(b, "total", Units.count(s.calls().sum()) + " calls, " + Units.bytes(s.bytesSent().sum()) + " sent, "
                + Units.bytes(s.bytesRecv().sum()) + " received; MPI time " + Units.percent(mpiShare(p))
                + "% of application time" + (Readable.sampledError(p) == null ? "" : " " + Readable.sampledError(p)));
        field(b, "overhead", Readable.overhead(p));
        field(b, "units", Units.LEGEND);
        if (p.partial()) {
            List<String> reasons = p.partialReasons();
            field(b, "PARTIAL", "the profile does not cover the whole run" + (reasons.isEmpty() ? "" : ":"));
            for (int i = 0; i < Math.min(MAX_REASONS, reasons.size()); i++) {
                boxed(b, " ".repeat(LABEL) + cut(plain(reasons.get(i)), INNER - LABEL));
            }
            if (reasons.size() > MAX_REASONS) {
                boxed(b, " ".repeat(LABEL) + "... and " + (reasons.size() - MAX_REASONS) + " more (profile.json)");
            }
        }
        b.append(rule);
    }

    private static void statRow(StringBuilder b, String label, Stat s, DoubleFunction<String> f) {
        boxed(b, Units.format("%-" + LABEL + "s%10s%8d%11s%11s%8d%8.2f", label, f.apply(s.min()),
                s.minRank(), f.apply(s.avg()), f.apply(s.max()), s.maxRank(), s.cv()));
    }

    /** A labelled value in the box, wrapped under itself when longer than a line. */
    private static void field(StringBuilder b, String label, String value) {
        int room = INNER - LABEL;
        String head = Units.format("%-" + LABEL + "s", label);
        String rest = value;
        do {
            int n = Math.min(room, rest.length());
            int blank = n < rest.length() ? rest.lastIndexOf(' ', n) : -1;
            int cut = blank > room / 2 ? blank : n; // on a blank where one is near the end
            boxed(b, head + rest.substring(0, cut));
            rest = rest.substring(cut == blank ? cut + 1 : cut);
            head = " ".repeat(LABEL);
        } while (!rest.isEmpty());
    }

    private static void boxed(StringBuilder b, String content) {
        String c = cut(content, INNER);
        b.append("| ").append(c).append(" ".repeat(INNER - c.length())).append(" |\n");
    }

    // --- functions ----------------------------------------------------------------------------

    private static void functions(StringBuilder b, Profile p, List<FunctionProfile> all, List<FunctionProfile> top) {
        if (all.isEmpty()) {
            b.append("No MPI function was called while recording.\n");
            String untimed = Readable.untimedNote(p);
            if (untimed != null) {
                b.append(untimed).append('\n');
            }
            return;
        }
        double mpi = p.summary().mpiSeconds().sum();
        double app = p.summary().appSeconds().sum();
        double shown = 0;
        for (FunctionProfile f : top) {
            shown += f.timeSeconds();
        }
        b.append(top.size() == all.size() ? "MPI functions by time" : "Top " + top.size() + " of " + all.size()
                + " MPI functions by time").append(" (sums over ").append(p.ranks())
                .append(p.ranks() == 1 ? " rank" : " ranks").append("; ").append(Units.percent(percentOf(shown, mpi)))
                .append("% of MPI time)\n");
        String columns = "%9s%9s%6s%6s%10s%9s%9s%9s%9s\n";
        b.append(Units.format("%-" + NAME + "s" + columns, "function", "calls", "time", "%MPI", "%app",
                "avg/call", "min call", "max call", "sent", "recv"));
        for (FunctionProfile f : top) {
            name(b, f.name());
            b.append(Units.format(columns,
                    Units.count(f.calls()), Units.seconds(f.timeSeconds()), Units.percent(percentOf(f.timeSeconds(), mpi)),
                    Units.percent(percentOf(f.timeSeconds(), app)),
                    Units.seconds(f.calls() == 0 ? 0 : f.timeSeconds() / f.calls()), Readable.minCall(p, f.minCallSeconds()),
                    Units.seconds(f.maxCallSeconds()), Readable.bytes(f, f.bytesSent()), Readable.bytes(f, f.bytesRecv())));
        }
        if (top.size() < all.size()) {
            b.append("... ").append(all.size() - top.size()).append(" more in report.html and profile.json\n");
        }
        if (top.stream().anyMatch(f -> Readable.collective(f.name()) && (f.bytesSent() != 0 || f.bytesRecv() != 0))) {
            wrap(b, Readable.collectiveNote(p));
        }
        String resolution = Readable.resolutionNote(p);
        if (resolution != null && top.stream().anyMatch(f -> Readable.minCall(p, f.minCallSeconds()).startsWith("<="))) {
            wrap(b, resolution);
        }
        String untimed = Readable.untimedNote(p);
        if (untimed != null) {
            wrap(b, untimed);
        }
    }

    /** A note, wrapped at {@link #WIDTH} columns on words. */
    private static void wrap(StringBuilder b, String text) {
        StringBuilder line = new StringBuilder();
        for (String w : plain(text).split(" ")) {
            if (!line.isEmpty() && line.length() + 1 + w.length() > WIDTH) {
                b.append(line).append('\n');
                line.setLength(0);
                w = "  " + w;
            }
            line.append(line.isEmpty() ? "" : " ").append(cut(w, WIDTH - 2));
        }
        b.append(line).append('\n');
    }

    /**
     * The ranks with the least and the most MPI time, each function's calls, time and bytes on each
     * (mpiP prints every task; the JSON has every rank, the HTML a rank x function heat map).
     */
    private static void extremeRanks(StringBuilder b, Profile p, List<FunctionProfile> top) {
        List<ProfileDetails.RankFunctions> rows = p.details().rankFunctions();
        if (rows == null || p.ranks() < 2) {
            return;
        }
        Stat mpi = p.summary().mpiSeconds();
        int lo = mpi.minRank();
        int hi = mpi.maxRank();
        b.append('\n');
        wrap(b, "The ranks with the least and the most MPI time, per function: rank " + lo + " ("
                + Units.seconds(mpi.min()) + ") and rank " + hi + " (" + Units.seconds(mpi.max()) + ")");
        String columns = "%8s%10s%9s%9s  %8s%10s%9s%9s\n";
        b.append(Units.format("%-" + NAME + "s" + columns, "function", "calls", "time", "sent", "recv",
                "calls", "time", "sent", "recv"));
        b.append(Units.format("%-" + NAME + "s%-38s%s\n", "", "rank " + lo, "rank " + hi));
        for (FunctionProfile f : top) {
            ProfileDetails.Entry a = rows.get(lo).get(f.name());
            ProfileDetails.Entry z = rows.get(hi).get(f.name());
            name(b, f.name());
            b.append(Units.format(columns, a == null ? "-" : Units.count(a.calls()),
                    a == null ? "-" : Units.seconds(a.timeSeconds()), a == null ? "-" : Readable.bytes(f, a.bytesSent()),
                    a == null ? "-" : Readable.bytes(f, a.bytesRecv()), z == null ? "-" : Units.count(z.calls()),
                    z == null ? "-" : Units.seconds(z.timeSeconds()), z == null ? "-" : Readable.bytes(f, z.bytesSent()),
                    z == null ? "-" : Readable.bytes(f, z.bytesRecv())));
        }
    }

    /**
     * Calls per message size for each function that moves bytes (mpiP's -y, by calls): one line per
     * non-empty size bucket.
     */
    private static void sizesPerFunction(StringBuilder b, Profile p, List<FunctionProfile> top) {
        List<FunctionProfile> moving = new ArrayList<>();
        for (FunctionProfile f : top) {
            long h = 0;
            for (int k = 1; k < f.histogram().length; k++) {
                h += f.histogram()[k];
            }
            if (h > 0) {
                moving.add(f);
            }
        }
        if (moving.isEmpty()) {
            return;
        }
        ProfileBreakdown detail = p.details().breakdown();
        b.append(detail == null ? "\nCalls per message size, per function (functions of the tables above that move bytes)\n"
                : "\nCalls and time per message size, per function (functions of the tables above that move bytes)\n");
        String format = "%-" + NAME + "s%-14s%12s%8s%10s%8s\n";
        b.append(Units.format(format, "function", "size", "calls", "%", detail == null ? "" : "time",
                detail == null ? "" : "%").stripTrailing()).append('\n');
        for (FunctionProfile f : moving) {
            ProfileBreakdown.FunctionDetail d = detail == null ? null : detail.get(f.name());
            long total = LongStream.of(f.histogram()).sum();
            buckets(b, f.name(), f.histogram(), (k, c) -> {
                String time = "";
                String share = "";
                if (d != null) {
                    double t = k < d.timeBySize().length ? d.timeBySize()[k] : 0;
                    time = Units.seconds(t);
                    share = Units.percent(percentOf(t, f.timeSeconds()));
                }
                b.append(Units.format("%-14s%12s%8s%10s%8s", Histogram.label(k), Units.count(c),
                        Units.percent(percentOf(c, total)), time, share).stripTrailing()).append('\n');
            });
        }
    }

    /** A row per non-empty bucket of {@code counts}: the function's name before the first, blanks before the others. */
    private static void buckets(StringBuilder b, String fn, long[] counts, java.util.function.ObjLongConsumer<Integer> row) {
        boolean first = true;
        for (int k = 0; k < counts.length; k++) {
            if (counts[k] == 0) {
                continue;
            }
            if (first) {
                name(b, fn);
                first = false;
            } else {
                b.append(" ".repeat(NAME));
            }
            row.accept(k, counts[k]);
        }
    }

    /**
     * Schema 3: the collectives of the tables above with their per-call buffer bytes (mpiP's message
     * size) beside the pairwise bytes, then their calls and time by communicator size.
     */
    private static void collectives(StringBuilder b, Profile p, List<FunctionProfile> top) {
        ProfileBreakdown detail = p.details().breakdown();
        if (detail == null) {
            return;
        }
        List<FunctionProfile> colls = new ArrayList<>();
        for (FunctionProfile f : top) {
            ProfileBreakdown.FunctionDetail d = detail.get(f.name());
            if (d != null && d.collective()) {
                colls.add(f);
            }
        }
        if (colls.isEmpty()) {
            return;
        }
        b.append("\nCollectives: buffer bytes (mpiP's message size: the count x type each rank gives a call) beside the\n"
                + "pairwise bytes of the tables above\n");
        String format = "%-" + NAME + "s%9s%11s%11s%11s%11s\n";
        b.append(Units.format(format, "function", "calls", "buffer", "avg/call", "pairwise", "pairwise"));
        b.append(Units.format(format, "", "", "bytes", "buffer", "sent", "recv"));
        for (FunctionProfile f : colls) {
            ProfileBreakdown.FunctionDetail d = detail.get(f.name());
            long counted = 0;
            for (long c : d.callsByComm()) {
                counted += c;
            }
            name(b, f.name());
            b.append(Units.format("%9s%11s%11s%11s%11s\n", Units.count(f.calls()),
                    Units.bytes(d.bufferBytes()), counted == 0 ? "-" : Units.bytes(Math.round((double) d.bufferBytes()
                    / counted)), Readable.bytes(f, f.bytesSent()), Readable.bytes(f, f.bytesRecv())));
        }
        b.append("\nCollectives by communicator size (processes in the communicator; the remote group's for an\n"
                + "inter-communicator)\n");
        String f2 = "%-" + NAME + "s%-16s%10s%8s%10s%8s\n";
        b.append(Units.format(f2, "function", "processes", "calls", "%", "time", "%"));
        for (FunctionProfile f : colls) {
            ProfileBreakdown.FunctionDetail d = detail.get(f.name());
            long total = LongStream.of(d.callsByComm()).sum();
            buckets(b, f.name(), d.callsByComm(), (k, c) -> {
                double t = k < d.timeByComm().length ? d.timeByComm()[k] : 0;
                b.append(Units.format("%-16s%10s%8s%10s%8s\n", Readable.commLabel(k), Units.count(c),
                        Units.percent(percentOf(c, total)), Units.seconds(t),
                        Units.percent(percentOf(t, f.timeSeconds()))));
            });
        }
    }

    /* ---- sampled timing (issue 26): the functions whose time is an estimate ---- */

    /** The functions whose calls were too short to time honestly: how many were timed, the time's error. */
    private static void sampledTiming(StringBuilder b, Profile p) {
        List<FunctionProfile> sampled = p.functions().stream().filter(FunctionProfile::sampled).toList();
        if (sampled.isEmpty()) {
            return;
        }
        b.append("\nSampled timing: calls too short to time honestly; every call counted, a random sample timed\n"
                + "(time = estimate +- its standard error; min and max call are of the timed calls)\n");
        for (FunctionProfile f : sampled) {
            name(b, f.name());
            b.append(Units.format("%9s of %s calls timed, time %s +- %s (%s%%)\n",
                    Units.count(f.timedCalls()), Units.count(f.calls()), Units.seconds(f.timeSeconds()),
                    Units.seconds(f.timeErrorSeconds()), Units.percent(percentOf(f.timeErrorSeconds(), f.timeSeconds()))));
        }
    }

    /* ---- end of sampled timing ---- */

    /* ---- call sites (issue 21): the top sites by time, and each function's ---- */

    /** How many sites the top table lists. */
    public static final int TOP_SITES = 15;
    /** How many sites each function lists. */
    public static final int SITES_PER_FUNCTION = 5;
    private static final int SITE = 29;

    /**
     * The sites with the most time (site, function, calls, time, % of MPI time, the time per rank:
     * lowest and highest with their ranks), then each top function's sites; nothing when the
     * profile has no sites.
     */
    private static void sites(StringBuilder b, Profile p, List<FunctionProfile> top) {
        CallSites cs = p.sites();
        if (cs == null) {
            return;
        }
        b.append('\n');
        List<CallSites.Site> all = Readable.timedSites(cs);
        if (all.isEmpty()) {
            b.append("Call sites: none was recorded.\n");
        } else {
            List<CallSites.Site> shown = all.subList(0, Math.min(TOP_SITES, all.size()));
            double mpi = p.summary().mpiSeconds().sum();
            b.append(shown.size() == all.size() ? "Call sites by time" : "Top " + shown.size() + " of " + all.size()
                    + " call sites by time").append(" (sums over ").append(p.ranks())
                    .append(p.ranks() == 1 ? " rank" : " ranks").append("; time per rank: lowest, highest, their ranks)\n");
            String columns = "%-20s%8s%9s%6s%9s%5s%9s%5s\n";
            b.append(Units.format("%-" + SITE + "s" + columns, "site", " function", "calls", "time", "%MPI",
                    "min", "rank", "max", "rank"));
            for (CallSites.Site s : shown) {
                column(b, s.where(), SITE);
                Stat t = s.timeSeconds();
                b.append(Units.format(columns, " " + cut(plain(s.function()), 19),
                        Units.count(s.calls().sum()), Units.seconds(t.sum()), Units.percent(percentOf(t.sum(), mpi)),
                        Units.seconds(t.min()), t.minRank(), Units.seconds(t.max()), t.maxRank()));
            }
            if (shown.size() < all.size()) {
                b.append("... ").append(all.size() - shown.size()).append(" more in report.html and profile.json\n");
            }
            functionSites(b, cs, top);
        }
        if (cs.note() != null) {
            wrap(b, "Call sites: " + cs.note());
        }
    }

    /** Each function of {@code top} with sites: its sites by time, with their share of its time. */
    private static void functionSites(StringBuilder b, CallSites cs, List<FunctionProfile> top) {
        b.append("\nCall sites per function (the functions above; each one's sites by time)\n");
        String columns = "%10s%10s%8s\n";
        b.append(Units.format("%-" + NAME + "s%-" + (WIDTH - NAME - 28) + "s" + columns, "function",
                "site", "calls", "time", "% fn"));
        for (FunctionProfile f : top) {
            List<CallSites.Site> of = cs.of(f.name());
            if (of.isEmpty()) {
                continue;
            }
            name(b, f.name());
            int room = WIDTH - NAME - 28;
            for (int i = 0; i < Math.min(SITES_PER_FUNCTION, of.size()); i++) {
                CallSites.Site s = of.get(i);
                if (i > 0) {
                    b.append(" ".repeat(NAME));
                }
                b.append(Units.format("%-" + room + "s" + columns, cut(plain(s.where()), room - 1),
                        Units.count(s.calls().sum()), Units.seconds(s.timeSeconds().sum()),
                        Units.percent(percentOf(s.timeSeconds().sum(), f.timeSeconds()))));
            }
            if (of.size() > SITES_PER_FUNCTION) {
                b.append(" ".repeat(NAME)).append("... ").append(of.size() - SITES_PER_FUNCTION).append(" more sites\n");
            }
        }
    }

    /* ---- end of call sites ---- */

    private static void spread(StringBuilder b, Profile p, List<FunctionProfile> top) {
        b.append("Time per rank of these functions (lowest and highest, the rank with each, coefficient of variation)\n");
        String columns = "%10s%8s%11s%11s%8s%8s%9s\n";
        b.append(Units.format("%-" + NAME + "s" + columns, "function", "min", "rank", "avg", "max", "rank",
                "cv", "max/avg"));
        for (FunctionProfile f : top) {
            Stat t = f.perRank().timeSeconds();
            name(b, f.name());
            b.append(Units.format(columns, Units.seconds(t.min()),
                    Integer.toString(t.minRank()), Units.seconds(t.avg()), Units.seconds(t.max()),
                    Integer.toString(t.maxRank()), Units.fixed(t.cv(), 2),
                    t.avg() == 0 ? "-" : Units.fixed(t.max() / t.avg(), 2)));
        }
    }

    /** A function's name in the first column; a name too long for it gets a line of its own. */
    private static void name(StringBuilder b, String name) {
        column(b, name, NAME);
    }

    /** {@code text} in a first column {@code width} wide; too long for it, on a line of its own. */
    private static void column(StringBuilder b, String text, int width) {
        String n = plain(text);
        if (n.length() < width) {
            b.append(n).append(" ".repeat(width - n.length()));
        } else {
            b.append(cut(n, WIDTH)).append('\n').append(" ".repeat(width));
        }
    }

    // --- message sizes ------------------------------------------------------------------------

    private static void histogram(StringBuilder b, Profile p) {
        long[] h = p.histogram();
        int first = -1;
        int last = -1;
        long total = 0;
        long most = 0;
        for (int k = 0; k < h.length; k++) {
            if (h[k] > 0) {
                first = first < 0 ? k : first;
                last = k;
                total += h[k];
                most = Math.max(most, h[k]);
            }
        }
        if (total == 0) {
            b.append("Message sizes: no call was recorded.\n");
            return;
        }
        b.append("Message sizes (calls by the larger of the bytes a call sends and receives; all functions; bytes)\n");
        String format = "%-12s%12s%8s%8s  %-" + (NAME - 2) + "s %s";
        b.append(Units.format(format, "size", "calls", "%", "cum %", "most calls by", "").stripTrailing())
                .append('\n');
        long cumulative = 0;
        for (int k = first; k <= last; k++) {
            if (h[k] == 0) {
                // A run of empty buckets is one line.
                int end = k;
                while (end + 1 <= last && h[end + 1] == 0) {
                    end++;
                }
                String label = end == k ? Histogram.label(k)
                        : Units.bytes(Histogram.lowerBound(k)) + "-" + Units.bytes((1L << end) - 1);
                b.append(Units.format(format, label, "0", "0.0", Units.percent(percentOf(cumulative,
                        total)), "", "").stripTrailing()).append('\n');
                k = end;
                continue;
            }
            cumulative += h[k];
            String by = "";
            long byCalls = 0;
            for (FunctionProfile f : p.functions()) {
                long c = k < f.histogram().length ? f.histogram()[k] : 0;
                if (c > byCalls) {
                    byCalls = c;
                    by = plain(f.name());
                }
            }
            int bar = (int) Math.round((double) BAR * h[k] / most);
            b.append(Units.format(format, Histogram.label(k), Units.count(h[k]),
                    Units.percent(percentOf(h[k], total)), Units.percent(percentOf(cumulative, total)),
                    cut(by, NAME - 2), "#".repeat(Math.max(1, bar))).stripTrailing()).append('\n');
        }
    }

    // --- rank pairs ---------------------------------------------------------------------------

    /** A sender, a receiver and what went from one to the other. */
    record Pair(int from, int to, long bytes, long messages) {
    }

    /**
     * The pairs that exchanged the most bytes, most first, and the totals over all pairs; pairs of
     * blocks ({@link Profile.Blocks}) rather than ranks when {@code byBlock}.
     */
    record Pairs(List<Pair> top, long pairs, long bytes, long messages, boolean byBlock) {
    }

    /** Most bytes first, then most messages, then by sender and receiver (a class: see Aggregate's order). */
    private static final Comparator<Pair> MOST_FIRST = new Comparator<>() {
        @Override
        public int compare(Pair a, Pair b) {
            int c = Long.compare(b.bytes(), a.bytes());
            if (c == 0) {
                c = Long.compare(b.messages(), a.messages());
            }
            if (c == 0) {
                c = Integer.compare(a.from(), b.from());
            }
            return c != 0 ? c : Integer.compare(a.to(), b.to());
        }
    };

    /**
     * The {@code n} sender-receiver pairs of the rank matrix with the most bytes (then messages, then
     * the lower ranks), and how many pairs exchanged anything at all. A profile without the rank
     * matrix (the one the profile level reports from at MPI_Finalize, whose rows each rank writes
     * itself) gives the pairs of its blocks, which are ranks up to 64 ranks.
     */
    static Pairs topPairs(Profile p, int n) {
        PriorityQueue<Pair> heap = new PriorityQueue<>(MOST_FIRST.reversed());
        long pairs = 0;
        long bytes = 0;
        long messages = 0;
        if (p.messages().isEmpty() && p.bytes().isEmpty()) {
            Profile.Blocks blocks = p.blocks();
            for (int i = 0; i < blocks.count(); i++) {
                for (int j = 0; j < blocks.count(); j++) {
                    long msg = blocks.messages()[i][j];
                    long byt = blocks.bytes()[i][j];
                    if (msg != 0 || byt != 0) {
                        pairs++;
                        bytes += byt;
                        messages += msg;
                        heap.add(new Pair(i, j, byt, msg));
                        if (heap.size() > n) {
                            heap.poll();
                        }
                    }
                }
            }
            List<Pair> top = new ArrayList<>(heap);
            top.sort(MOST_FIRST);
            return new Pairs(List.copyOf(top), pairs, bytes, messages, !oneRankPerBlock(p));
        }
        int rows = Math.max(p.messages().size(), p.bytes().size());
        for (int r = 0; r < rows; r++) {
            Profile.SparseRow m = r < p.messages().size() ? p.messages().get(r) : Profile.SparseRow.EMPTY;
            Profile.SparseRow y = r < p.bytes().size() ? p.bytes().get(r) : Profile.SparseRow.EMPTY;
            int i = 0;
            int j = 0;
            while (i < m.peers().length || j < y.peers().length) {
                int pm = i < m.peers().length ? m.peers()[i] : Integer.MAX_VALUE;
                int py = j < y.peers().length ? y.peers()[j] : Integer.MAX_VALUE;
                int peer = Math.min(pm, py);
                long msg = pm == peer ? m.values()[i++] : 0;
                long byt = py == peer ? y.values()[j++] : 0;
                if (msg == 0 && byt == 0) {
                    continue;
                }
                pairs++;
                bytes += byt;
                messages += msg;
                heap.add(new Pair(r, peer, byt, msg));
                if (heap.size() > n) {
                    heap.poll();
                }
            }
        }
        List<Pair> top = new ArrayList<>(heap);
        top.sort(MOST_FIRST);
        return new Pairs(List.copyOf(top), pairs, bytes, messages, false);
    }

    /** Whether every block of {@code p} is one rank (then block k is rank k). */
    static boolean oneRankPerBlock(Profile p) {
        return p.blocks().count() == p.ranks();
    }

    /** Who sent or received in a pair: the rank, or the ranks of a block. */
    static String party(Profile p, Pairs pairs, int index) {
        if (!pairs.byBlock()) {
            return Integer.toString(index);
        }
        int first = p.blocks().firstRank()[index];
        int size = p.blocks().size(index, p.ranks());
        return size <= 1 ? Integer.toString(first) : first + "-" + (first + size - 1);
    }

    private static void pairs(StringBuilder b, Profile p) {
        Pairs all = topPairs(p, TOP_PAIRS);
        if (all.pairs() == 0) {
            b.append("Rank pairs: no message between ranks was recorded.\n");
            return;
        }
        List<Pair> top = all.top();
        String what = all.byBlock() ? " pairs of rank blocks by bytes" : " rank pairs by bytes";
        b.append(top.size() == all.pairs() ? what.substring(1, 2).toUpperCase(Locale.ROOT) + what.substring(2)
                        : "Top " + top.size() + " of " + all.pairs() + what)
                .append(" (sender to receiver; ").append(Units.count(all.messages())).append(" messages, ")
                .append(Units.bytes(all.bytes())).append(" in all)\n");
        int width = 8;
        for (Pair q : top) {
            width = Math.max(width, 2 + Math.max(party(p, all, q.from()).length(), party(p, all, q.to()).length()));
        }
        String format = "%" + width + "s%" + (width + 2) + "s%12s%10s%12s%12s\n";
        b.append(Units.format(format, "sender", "receiver", "bytes", "% bytes", "messages", "avg size"));
        for (Pair q : top) {
            b.append(Units.format(format, party(p, all, q.from()), party(p, all, q.to()),
                    Units.bytes(q.bytes()),
                    Units.percent(percentOf(q.bytes(), all.bytes())), Units.count(q.messages()),
                    q.messages() == 0 ? "-" : Units.bytes((double) q.bytes() / q.messages())));
        }
    }

    // --- helpers ------------------------------------------------------------------------------

    /**
     * The hosts of the rank rows in order of their first rank, with their number of ranks:
     * "node1 x2, node2 x2"; at most {@code max} named, then "+N more"; null without rank rows.
     */
    static String hostList(Profile p, int max) {
        List<Hosts.Host> hosts = Hosts.of(p).hosts();
        if (hosts.isEmpty()) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        for (int shown = 0; shown < hosts.size(); shown++) {
            if (shown == max) {
                b.append(", +").append(hosts.size() - max).append(" more");
                break;
            }
            Hosts.Host h = hosts.get(shown);
            b.append(shown == 0 ? "" : ", ").append(plain(h.name())).append(" x").append(h.ranks());
        }
        return b.toString();
    }

    /** Application time spent in MPI, over all ranks, in percent. */
    static double mpiShare(Profile p) {
        return percentOf(p.summary().mpiSeconds().sum(), p.summary().appSeconds().sum());
    }

    static double percentOf(double part, double whole) {
        return whole > 0 ? 100 * part / whole : 0;
    }

    /** A small percentage with three significant figures ("0.00351"), or "0". */
    static String small(double pct) {
        if (pct == 0) {
            return "0";
        }
        if (pct >= 1) {
            return Units.percent(pct);
        }
        return Units.format("%.3g", pct).replace("e-0", "e-");
    }

    /** {@code s} safe for a terminal: control and format characters replaced by '?'. */
    static String plain(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || (c >= 0x7f && c < 0xa0) || Character.getType(c) == Character.FORMAT ? '?' : c);
        }
        return b.toString();
    }

    /** {@code s} cut to {@code max} chars, "..." marking the cut. */
    static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 3) + "...";
    }
}
