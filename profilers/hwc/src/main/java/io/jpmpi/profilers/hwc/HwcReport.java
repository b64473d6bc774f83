package io.jpmpi.profilers.hwc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The hwc tool's results, from every rank's counts: hwc.json (one rank per line, then the sum and
 * the functions), hwc.txt (a table) and the summary printed at the end of the job. Derived
 * figures exist when their events were counted: IPC (instructions, cycles), instruction and FP
 * rates per second of the part's time (instructions, fp_ops), MPI % of cycles (cycles; with the
 * software fallback, MPI % of task-clock).
 */
final class HwcReport {
    private static final String INSTRUCTIONS = "instructions";
    private static final String CYCLES = "cycles";
    private static final String FP = "fp_ops";
    private static final String TASK_CLOCK = "task-clock";
    private static final int TOP = 10;

    private final List<RankCounts> ranks;
    private final RankCounts all;
    private final List<HwcLibrary.FunctionCounts> functions;
    private final HwcLibrary.ReadMethod method;
    private final HwcLibrary.Mode mode;

    HwcReport(List<RankCounts> ranks, List<HwcLibrary.FunctionCounts> functions, HwcLibrary.ReadMethod method,
              HwcLibrary.Mode mode) {
        this.ranks = List.copyOf(ranks);
        this.all = RankCounts.sum(ranks);
        this.functions = functions.stream().filter(f -> f.calls() > 0 || f.samples() > 0)
                .sorted(Comparator.comparingDouble(this::weight).reversed()).toList();
        this.method = method;
        this.mode = mode;
    }

    /** Functions rank by in-MPI cycles, else by in-MPI time. */
    private double weight(HwcLibrary.FunctionCounts f) {
        int c = all.index(CYCLES);
        return c >= 0 && c < f.events().length ? f.events()[c] : f.seconds();
    }

    private static double ratio(double a, double b) {
        return b > 0 ? a / b : Double.NaN;
    }

    /** Event `name` of one part (mpi or the application's), or NaN if not counted. */
    private static double part(RankCounts r, String name, boolean mpi) {
        int i = r.index(name);
        return i < 0 ? Double.NaN : mpi ? r.inMpi()[i] : r.app(i);
    }

    static double ipc(RankCounts r, boolean mpi) {
        return ratio(part(r, INSTRUCTIONS, mpi), part(r, CYCLES, mpi));
    }

    static double perSecond(RankCounts r, String name, boolean mpi) {
        return ratio(part(r, name, mpi), mpi ? r.mpiSeconds() : r.appSeconds());
    }

    /** MPI's share of cycles (of task-clock without a PMU), percent. */
    static double mpiPercent(RankCounts r) {
        String base = r.index(CYCLES) >= 0 ? CYCLES : TASK_CLOCK;
        int i = r.index(base);
        return i < 0 ? 100 * ratio(r.mpiSeconds(), r.seconds()) : 100 * ratio(r.inMpi()[i], r.total()[i]);
    }

    String json() {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
            g.writeStartObject();
            g.writeStringField("tool", "hwc");
            g.writeBooleanField("hardware", all.hardware());
            g.writeStringField("mode", mode.name());
            if (mode.sampled()) {
                g.writeNumberField("sampling_per_s", mode.rate());
            }
            g.writeStringField("read", method.name());
            number(g, "rdpmc_ns", method.rdpmcNs());
            number(g, "read_ns", method.readNs());
            g.writeArrayFieldStart("events");
            for (String e : all.events()) {
                g.writeString(e);
            }
            g.writeEndArray();
            g.writeNumberField("ranks", ranks.size());
            g.writeArrayFieldStart("per_rank");
            for (RankCounts r : ranks) {
                g.writeRaw('\n');
                counts(g, r);
            }
            g.writeEndArray();
            g.writeRaw('\n');
            g.writeFieldName("all");
            counts(g, all);
            g.writeRaw('\n');
            g.writeArrayFieldStart("functions");
            for (HwcLibrary.FunctionCounts f : functions) {
                g.writeRaw('\n');
                g.writeStartObject();
                g.writeStringField("name", f.name());
                g.writeNumberField("calls", f.calls());
                if (mode.sampled()) {
                    g.writeNumberField("samples", f.samples());
                }
                g.writeNumberField("seconds", f.seconds());
                g.writeObjectFieldStart("events");
                for (int i = 0; i < f.events().length; i++) {
                    g.writeNumberField(all.events().get(i), f.events()[i]);
                }
                g.writeEndObject();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeRaw('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }

    private static void number(JsonGenerator g, String name, double v) throws IOException {
        if (Double.isNaN(v) || Double.isInfinite(v) || v < 0) {
            g.writeNullField(name);
        } else {
            g.writeNumberField(name, v);
        }
    }

    /**
     * The statistical error of a sampled split: the samples, those in MPI, the 95 % half-width of
     * an MPI share in points and, per figure of the MPI part, its 95 % interval (the part of each
     * total is a share estimated from the same samples).
     */
    private void error(JsonGenerator g, RankCounts r) throws IOException {
        if (!mode.sampled()) {
            return;
        }
        g.writeNumberField("samples", r.samples());
        g.writeNumberField("mpi_samples", r.mpiSamples());
        double h = r.ci95Points();
        number(g, "ci95_points", h);
        g.writeObjectFieldStart("mpi_ci95");
        if (!Double.isNaN(h)) {
            interval(g, "mpi_percent", mpiPercent(r), h);
            interval(g, "seconds", r.mpiSeconds(), r.seconds() * h / 100);
            for (int i = 0; i < r.events().size(); i++) {
                interval(g, r.events().get(i), r.inMpi()[i], r.total()[i] * h / 100);
            }
        }
        g.writeEndObject();
    }

    private static void interval(JsonGenerator g, String name, double v, double h) throws IOException {
        g.writeArrayFieldStart(name);
        g.writeNumber(Math.max(0, v - h));
        g.writeNumber(v + h);
        g.writeEndArray();
    }

    private void counts(JsonGenerator g, RankCounts r) throws IOException {
        g.writeStartObject();
        if (r.rank() >= 0) {
            g.writeNumberField("rank", r.rank());
        }
        g.writeNumberField("threads", r.threads());
        for (boolean mpi : new boolean[] {false, true}) {
            g.writeObjectFieldStart(mpi ? "mpi" : "app");
            g.writeNumberField("seconds", mpi ? r.mpiSeconds() : r.appSeconds());
            for (int i = 0; i < r.events().size(); i++) {
                g.writeNumberField(r.events().get(i), mpi ? r.inMpi()[i] : r.app(i));
            }
            number(g, "ipc", ipc(r, mpi));
            number(g, "instructions_per_s", perSecond(r, INSTRUCTIONS, mpi));
            number(g, "fp_ops_per_s", perSecond(r, FP, mpi));
            g.writeEndObject();
        }
        number(g, "mpi_percent", mpiPercent(r));
        error(g, r);
        g.writeEndObject();
    }

    String text() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "jpmpi hwc: %d ranks, %s counters (%s), read with %s%n", ranks.size(),
                all.hardware() ? "hardware" : "software (no usable PMU)", String.join(", ", all.events()),
                describe(method)));
        if (mode.sampled()) {
            b.append(String.format(Locale.ROOT, "split by sampling (%s overflows per second of the leading event): %d"
                    + " samples, %d inside MPI; each MPI share +- its 95 %% interval (+- %s points over all ranks)%n",
                    fixed(mode.rate(), 0), all.samples(), all.mpiSamples(), fixed(all.ci95Points(), 1)));
        } else {
            b.append(String.format(Locale.ROOT, "split by reading the counters on entry and exit of every MPI call%n"));
        }
        b.append(String.format(Locale.ROOT, "%-6s | %-38s | %-38s | %s%n", "", "application", "inside MPI", ""));
        String cols = String.format(Locale.ROOT, "%9s %10s %5s %10s %9s", "seconds", "instr", "IPC", "Ginstr/s",
                "GFLOP/s");
        b.append(String.format(Locale.ROOT, "%-6s | %s | %s | %s%n", "rank", cols, cols,
                all.index(CYCLES) >= 0 ? "MPI % cycles" : "MPI % time"));
        for (RankCounts r : ranks) {
            b.append(row(Integer.toString(r.rank()), r));
        }
        b.append(row("all", all));
        if (!functions.isEmpty()) {
            b.append(String.format(Locale.ROOT, "%nfunctions by in-MPI %s:%n", all.index(CYCLES) >= 0 ? "cycles" : "time"));
            for (HwcLibrary.FunctionCounts f : functions.subList(0, Math.min(TOP, functions.size()))) {
                StringBuilder ev = new StringBuilder();
                for (int i = 0; i < f.events().length; i++) {
                    ev.append(String.format(Locale.ROOT, "  %s %s", all.events().get(i), human(f.events()[i])));
                }
                b.append(String.format(Locale.ROOT, "  %-28s %10d %s %10.6f s%s%n", f.name(),
                        mode.sampled() ? f.samples() : f.calls(), mode.sampled() ? "samples" : "calls  ", f.seconds(), ev));
            }
        }
        return b.toString();
    }

    private String row(String name, RankCounts r) {
        List<String> parts = new ArrayList<>();
        for (boolean mpi : new boolean[] {false, true}) {
            parts.add(String.format(Locale.ROOT, "%9.4f %10s %5s %10s %9s", mpi ? r.mpiSeconds() : r.appSeconds(),
                    human(part(r, INSTRUCTIONS, mpi)), fixed(ipc(r, mpi), 2),
                    fixed(perSecond(r, INSTRUCTIONS, mpi) / 1e9, 3), fixed(perSecond(r, FP, mpi) / 1e9, 3)));
        }
        String share = fixed(mpiPercent(r), 1);
        if (mode.sampled()) {
            share += " +- " + fixed(r.ci95Points(), 1);
        }
        return String.format(Locale.ROOT, "%-6s | %s | %s | %s%n", name, parts.get(0), parts.get(1), share);
    }

    private static String describe(HwcLibrary.ReadMethod m) {
        String name = m.name().equals("rdpmc") ? "rdpmc (user space)" : "read(2) of the event group";
        StringBuilder b = new StringBuilder(name).append("; one read of all counters at MPI_Init:");
        if (m.rdpmcNs() >= 0) {
            b.append(String.format(Locale.ROOT, " rdpmc %.0f ns,", m.rdpmcNs()));
        }
        return b.append(String.format(Locale.ROOT, " read(2) %.0f ns", m.readNs())).toString();
    }

    private static String fixed(double v, int decimals) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    /** 1234567 → 1.23M. */
    static String human(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        String[] units = {"", "k", "M", "G", "T", "P"};
        int u = 0;
        double x = v;
        while (Math.abs(x) >= 1000 && u < units.length - 1) {
            x /= 1000;
            u++;
        }
        return u == 0 ? String.format(Locale.ROOT, "%.0f", x) : String.format(Locale.ROOT, "%.2f%s", x, units[u]);
    }

    /** The one-line summary rank 0 prints. */
    String summary() {
        String share = fixed(mpiPercent(all), 1) + (mode.sampled() ? " +- " + fixed(all.ci95Points(), 1) : "");
        return String.format(Locale.ROOT, "hwc: %d ranks, application %s instr (IPC %s), MPI %s instr (IPC %s), MPI %s%% of %s"
                + " (%s)", ranks.size(), human(part(all, INSTRUCTIONS, false)), fixed(ipc(all, false), 2),
                human(part(all, INSTRUCTIONS, true)), fixed(ipc(all, true), 2), share,
                all.index(CYCLES) >= 0 ? "cycles" : all.index(TASK_CLOCK) >= 0 ? "task-clock" : "time",
                mode.sampled() ? "sampled, " + all.samples() + " samples" : "every call");
    }
}
