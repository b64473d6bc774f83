package io.jpmpi.tools.accounting;

import io.jpmpi.profilers.accounting.AccountingRecord;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.IsoFields;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Accounting records added up per period (calendar month or ISO week of the job's end, UTC), then
 * per user or executable. The average MPI % is weighted by core-hours (a 1,000 core-hour job
 * counts 1,000 times a 1 core-hour one); instructions per second are per core: the instructions
 * of the jobs that have the counter, over those jobs' core-seconds.
 */
public final class Summary {
    /** How records are grouped in time. */
    public enum Period {
        MONTH, WEEK;

        /** "2026-01" or "2026-W02". */
        public String of(Instant end) {
            LocalDate d = end.atZone(ZoneOffset.UTC).toLocalDate();
            return this == MONTH ? String.format("%04d-%02d", d.getYear(), d.getMonthValue())
                    : String.format("%04d-W%02d", d.get(IsoFields.WEEK_BASED_YEAR),
                            d.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR));
        }
    }

    /** What the rows are. */
    public enum By {
        USER(AccountingRecord::user), EXECUTABLE(AccountingRecord::exe);

        final Function<AccountingRecord, String> key;

        By(Function<AccountingRecord, String> key) {
            this.key = key;
        }

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** The instructions event of the hardware counters tool. */
    public static final String INSTRUCTIONS = "instructions";

    /** One row's sums. */
    public static final class Row {
        long jobs;
        double coreH;
        double mpiWeighted;
        double mpiPlain;
        double instructions;
        double instructionCoreSeconds;

        void add(AccountingRecord r) {
            jobs++;
            coreH += r.coreH();
            mpiWeighted += r.mpiPct() * r.coreH();
            mpiPlain += r.mpiPct();
            AccountingRecord.Event ins = r.hwc() == null ? null : r.hwc().events().get(INSTRUCTIONS);
            if (ins != null) {
                instructions += ins.total();
                instructionCoreSeconds += r.coreH() * 3600;
            }
        }

        void add(Row o) {
            jobs += o.jobs;
            coreH += o.coreH;
            mpiWeighted += o.mpiWeighted;
            mpiPlain += o.mpiPlain;
            instructions += o.instructions;
            instructionCoreSeconds += o.instructionCoreSeconds;
        }

        public long jobs() {
            return jobs;
        }

        public double coreHours() {
            return coreH;
        }

        /** Core-hour weighted; the plain mean when no job has core-hours to weigh. */
        public double mpiPercent() {
            return coreH > 0 ? mpiWeighted / coreH : jobs > 0 ? mpiPlain / jobs : 0;
        }

        /** Instructions per core-second, or NaN when no job had the counter. */
        public double instructionsPerSecond() {
            return instructionCoreSeconds > 0 ? instructions / instructionCoreSeconds : Double.NaN;
        }
    }

    /** One period: its rows by key (sorted), and their total. */
    public record Group(String period, Map<String, Row> rows, Row total) {
    }

    private final Period period;
    private final By by;
    private final Instant since;
    private final Map<String, Map<String, Row>> periods = new TreeMap<>();
    private long used;
    private long before;
    private final Set<String> seen = new HashSet<>();

    /** {@code since}: records that ended earlier are left out (null: none). */
    public Summary(Period period, By by, Instant since) {
        this.period = period;
        this.by = by;
        this.since = since;
    }

    /**
     * Counts {@code r}: null, or why not (the same job, by its id and start, counted already: a record
     * appended twice, or two files that hold it).
     */
    public String add(AccountingRecord r) {
        if (!seen.add(r.job() + "\0" + r.step() + "\0" + r.start())) {
            return "job " + r.job() + (r.step() == null ? "" : " step " + r.step()) + " that started at " + r.start()
                    + " is counted already";
        }
        if (since != null && r.end().isBefore(since)) {
            before++;
            return null;
        }
        used++;
        periods.computeIfAbsent(period.of(r.end()), p -> new TreeMap<>())
                .computeIfAbsent(Records.printable(by.key.apply(r)), k -> new Row()).add(r);
        return null;
    }

    /** Records counted. */
    public long used() {
        return used;
    }

    /** Records left out by {@code since}. */
    public long beforeSince() {
        return before;
    }

    public Period period() {
        return period;
    }

    public By by() {
        return by;
    }

    public Instant since() {
        return since;
    }

    /** The periods in order. */
    public List<Group> groups() {
        List<Group> out = new ArrayList<>();
        periods.forEach((p, rows) -> {
            Row t = new Row();
            rows.values().forEach(t::add);
            out.add(new Group(p, java.util.Collections.unmodifiableMap(rows), t));
        });
        return out;
    }
}
