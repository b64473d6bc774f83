package io.jpmpi.tools.accounting;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.jpmpi.profilers.report.InputFile;
import io.jpmpi.tools.Context;
import io.jpmpi.tools.ExitCode;
import io.jpmpi.tools.JpmpiException;
import io.jpmpi.tools.ReportCommand;
import io.jpmpi.tools.accounting.Summary.By;
import io.jpmpi.tools.accounting.Summary.Group;
import io.jpmpi.tools.accounting.Summary.Period;
import io.jpmpi.tools.accounting.Summary.Row;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

/** {@code jpmpi accounting summary FILE...}: jobs, core-hours, MPI % and instruction rates per period and user. */
@Command(name = "summary", mixinStandardHelpOptions = true,
        description = {"Add up accounting records per calendar month (or ISO week) of the jobs' end time (UTC),"
                + " then per user (or executable): jobs, core-hours (ranks x wall time), the average MPI %% weighted"
                + " by core-hours, and instructions per core-second when the hardware counters tool was on.",
                "Lines that are not records are named on stderr (FILE:LINE: why) and skipped; only a file that"
                + " cannot be read is an error."})
public final class SummaryCommand implements Callable<Integer> {
    /** Refused lines named one by one; past this, only counted. */
    static final int NAMED_PROBLEMS = 20;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "Accounting files (JPMPI_ACCOUNTING_FILE).")
    List<Path> files;

    @Option(names = "--by", paramLabel = "user|executable", defaultValue = "user",
            converter = ByConverter.class, description = "What the rows are (default: ${DEFAULT-VALUE}).")
    By by;

    @Option(names = "--period", paramLabel = "month|week", defaultValue = "month",
            converter = PeriodConverter.class, description = "Calendar months or ISO weeks (default: ${DEFAULT-VALUE}).")
    Period period;

    @Option(names = "--since", paramLabel = "DATE", converter = SinceConverter.class,
            description = "Only jobs that ended at or after DATE (2026-01-31, UTC midnight, or an instant"
                    + " 2026-01-31T12:00:00Z).")
    Instant since;

    @Option(names = "--json", description = "One JSON object instead of the table.")
    boolean json;

    private final Context ctx;

    public SummaryCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws JpmpiException {
        Summary summary = new Summary(period, by, since);
        List<Records.Problem> problems = new ArrayList<>();
        for (Path f : files) {
            check(f);
            try {
                Records.read(f, summary::add, problems::add);
            } catch (IOException e) {
                throw new JpmpiException(ExitCode.BAD_RECORDS, "accounting summary: cannot read " + f + " ("
                        + e.getMessage() + ")");
            }
        }
        for (int i = 0; i < Math.min(NAMED_PROBLEMS, problems.size()); i++) {
            ctx.err().println(problems.get(i));
        }
        if (!problems.isEmpty()) {
            ctx.err().println("accounting summary: " + problems.size() + " line" + (problems.size() == 1 ? "" : "s")
                    + " skipped (not jpmpi-accounting-1 records)"
                    + (problems.size() > NAMED_PROBLEMS ? ", the first " + NAMED_PROBLEMS + " named above" : ""));
        }
        ctx.err().flush();
        ctx.out().print(json ? json(summary, problems.size()) : text(summary));
        ctx.out().flush();
        return ExitCode.OK.code;
    }

    /**
     * A records file must be a readable regular file: a FIFO would block, a device never end, a
     * directory or a link loop say nothing useful when read.
     */
    private static void check(Path f) throws JpmpiException {
        try {
            InputFile.check(f, "an accounting file", 0);
        } catch (NoSuchFileException e) {
            throw new JpmpiException(ExitCode.BAD_RECORDS, "accounting summary: " + f + ": no such file");
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.BAD_RECORDS, "accounting summary: " + ReportCommand.oneLine(e));
        }
    }

    /** The table, one line per (period, key) and a total line per period. */
    static String text(Summary s) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {s.period().name().toLowerCase(Locale.ROOT), s.by().label(), "jobs", "core-hours",
                "MPI %", "instr/s"});
        for (Group g : s.groups()) {
            g.rows().forEach((k, r) -> rows.add(cells(g.period(), k, r)));
            if (g.rows().size() > 1) {
                rows.add(cells(g.period(), "(all)", g.total()));
            }
        }
        int[] width = new int[6];
        for (String[] r : rows) {
            for (int c = 0; c < 6; c++) {
                width[c] = Math.max(width[c], r[c].length());
            }
        }
        StringBuilder b = new StringBuilder();
        for (String[] r : rows) {
            b.append(String.format("%-" + width[0] + "s  %-" + width[1] + "s  %" + width[2] + "s  %" + width[3]
                    + "s  %" + width[4] + "s  %" + width[5] + "s", (Object[]) r).stripTrailing()).append('\n');
        }
        if (s.groups().isEmpty()) {
            b.append("(no records").append(s.since() != null ? " since " + s.since() : "").append(")\n");
        }
        b.append("MPI %: average weighted by core-hours; instr/s: instructions per core-second (hardware counters"
                + " tool), - without them\n");
        return b.toString();
    }

    private static String[] cells(String period, String key, Row r) {
        double ips = r.instructionsPerSecond();
        return new String[] {period, key, Long.toString(r.jobs()), String.format(Locale.ROOT, "%.2f", r.coreHours()),
                String.format(Locale.ROOT, "%.1f", r.mpiPercent()), Double.isNaN(ips) ? "-" : si(ips)};
    }

    /** 1.23G, 456.7M, 12.0k. */
    static String si(double v) {
        String[] units = {"", "k", "M", "G", "T", "P"};
        int u = 0;
        while (Math.abs(v) >= 999.95 && u < units.length - 1) {
            v /= 1000;
            u++;
        }
        return String.format(Locale.ROOT, u == 0 ? "%.0f" : "%.2f%s", v, units[u]);
    }

    /** Schema jpmpi-accounting-summary-1 (profilers/ACCOUNTING.md). */
    static String json(Summary s, int corrupt) {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
            g.writeStartObject();
            g.writeStringField("schema", "jpmpi-accounting-summary-1");
            g.writeStringField("period", s.period().name().toLowerCase(Locale.ROOT));
            g.writeStringField("by", s.by().label());
            if (s.since() != null) {
                g.writeStringField("since", s.since().toString());
            }
            g.writeNumberField("records", s.used());
            g.writeNumberField("before_since", s.beforeSince());
            g.writeNumberField("skipped_lines", corrupt);
            g.writeArrayFieldStart("periods");
            for (Group grp : s.groups()) {
                g.writeStartObject();
                g.writeStringField("period", grp.period());
                figures(g, grp.total());
                g.writeArrayFieldStart("rows");
                for (Map.Entry<String, Row> e : grp.rows().entrySet()) {
                    g.writeStartObject();
                    g.writeStringField(s.by().label(), e.getKey());
                    figures(g, e.getValue());
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w + "\n";
    }

    private static void figures(JsonGenerator g, Row r) throws IOException {
        g.writeNumberField("jobs", r.jobs());
        number(g, "core_h", r.coreHours());
        number(g, "mpi_pct", r.mpiPercent());
        number(g, "instructions_per_s", r.instructionsPerSecond());
    }

    /**
     * A number, or null for none (NaN): never jackson's "NaN" or "Infinity" strings. The records'
     * figures are bounded, so their sums are finite; an infinite one would be a bug here.
     */
    private static void number(JsonGenerator g, String name, double v) throws IOException {
        if (Double.isInfinite(v)) {
            throw new IllegalStateException(name + " " + v);
        }
        if (Double.isNaN(v)) {
            g.writeNullField(name);
        } else {
            g.writeNumberField(name, v);
        }
    }

    static final class ByConverter implements ITypeConverter<By> {
        @Override
        public By convert(String v) {
            return switch (v.toLowerCase(Locale.ROOT)) {
                case "user" -> By.USER;
                case "executable", "exe" -> By.EXECUTABLE;
                default -> throw new TypeConversionException("'" + v + "' is not user or executable");
            };
        }
    }

    static final class PeriodConverter implements ITypeConverter<Period> {
        @Override
        public Period convert(String v) {
            return switch (v.toLowerCase(Locale.ROOT)) {
                case "month" -> Period.MONTH;
                case "week" -> Period.WEEK;
                default -> throw new TypeConversionException("'" + v + "' is not month or week");
            };
        }
    }

    static final class SinceConverter implements ITypeConverter<Instant> {
        @Override
        public Instant convert(String v) {
            try {
                return v.contains("T") ? Instant.parse(v) : LocalDate.parse(v).atStartOfDay(ZoneOffset.UTC).toInstant();
            } catch (DateTimeParseException e) {
                throw new TypeConversionException("'" + v + "' is not a date (2026-01-31) or an instant"
                        + " (2026-01-31T12:00:00Z)");
            }
        }
    }
}
