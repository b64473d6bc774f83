package io.jpmpi.profilers.accounting;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One job's accounting record, schema {@value #SCHEMA}: one line of JSON, written by the
 * accounting tool's C level (src/main/c/acctrecord.c writes exactly what {@link #toJson} writes)
 * and read back by {@code jpmpi accounting summary}. Every field is described in
 * profilers/accounting/ACCOUNTING.md.
 *
 * @param job     the batch system's job id, else the MPI launcher's, else host-pid-time of rank 0
 * @param user    who ran the job
 * @param exe     the executable's absolute path
 * @param host    rank 0's host
 * @param mpi     the MPI implementation
 * @param start   MPI_Init on rank 0
 * @param end     MPI_Finalize on rank 0
 * @param wallS   seconds from MPI_Init to MPI_Finalize (the longest rank)
 * @param ranks   MPI_COMM_WORLD's size
 * @param nodes   distinct shared-memory nodes
 * @param coreH   ranks x wall, in hours (a rank counts as one core)
 * @param mpiPct  the share of the ranks' time spent in MPI calls, in percent
 * @param top     the five functions with the most time, summed over the ranks
 * @param hwc     hardware counter totals over the ranks, or null without the counters tool
 * @param acctMs  what the accounting tool itself took at MPI_Finalize on rank 0 (ms), or NaN
 * @param samples sampled records: the samples (over the ranks) MPI % and top come from, whose
 *                top has no calls; -1 for counted ones (every call counted and timed)
 * @param step    the job step the record is of (Slurm's SLURM_STEP_ID), or null where none is named
 */
public record AccountingRecord(String job, String user, String exe, String host, String mpi, Instant start,
                               Instant end, double wallS, int ranks, int nodes, double coreH, double mpiPct,
                               List<Top> top, Hwc hwc, double acctMs, long samples, String step) {
    public static final String SCHEMA = "jpmpi-accounting-1";
    /**
     * The most bytes of a record, line end included: what a pipe or a FIFO takes whole (PIPE_BUF).
     * The writer leaves the counters out of a record that would be longer with them.
     */
    public static final int MAX_RECORD = 4096;
    /** The latest start or end a record may have. */
    static final Instant LAST = Instant.parse("9999-12-31T23:59:59Z");
    /** The longest wall time read: 1e9 s, about 31 years. */
    public static final double MAX_WALL_S = 1e9;
    /** A key twice in one object is refused, as profile.json's reader refuses it: which value would count? */
    private static final JsonFactory JSON = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    public AccountingRecord {
        Objects.requireNonNull(job);
        Objects.requireNonNull(user);
        Objects.requireNonNull(exe);
        Objects.requireNonNull(end);
        top = List.copyOf(top);
        if (samples < -1) {
            throw new IllegalArgumentException("samples " + samples);
        }
    }

    /** A record of no named step. */
    public AccountingRecord(String job, String user, String exe, String host, String mpi, Instant start, Instant end,
                            double wallS, int ranks, int nodes, double coreH, double mpiPct, List<Top> top, Hwc hwc,
                            double acctMs, long samples) {
        this(job, user, exe, host, mpi, start, end, wallS, ranks, nodes, coreH, mpiPct, top, hwc, acctMs, samples, null);
    }

    /** A counted record (every call counted and timed): no samples. */
    public AccountingRecord(String job, String user, String exe, String host, String mpi, Instant start, Instant end,
                            double wallS, int ranks, int nodes, double coreH, double mpiPct, List<Top> top, Hwc hwc,
                            double acctMs) {
        this(job, user, exe, host, mpi, start, end, wallS, ranks, nodes, coreH, mpiPct, top, hwc, acctMs, -1);
    }

    /** Whether MPI % and the top come from samples (the top then has no calls). */
    public boolean sampled() {
        return samples >= 0;
    }

    /**
     * A function of the top five: seconds summed over the ranks, calls likewise (-1: not counted,
     * in a sampled record).
     */
    public record Top(String function, double seconds, long calls) {
    }

    /** One counter's totals over the ranks: everywhere, and inside MPI calls. */
    public record Event(long total, long mpi) {
    }

    /**
     * Hardware counter totals.
     *
     * @param hardware true for PMU events, false for the software fallback
     * @param events   by event name, in the counters tool's order
     */
    public record Hwc(boolean hardware, Map<String, Event> events) {
        public Hwc {
            events = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(events));
        }
    }

    /** A line that is not a record of this schema; the message says why. */
    public static final class FormatException extends Exception {
        private static final long serialVersionUID = 1L;

        public FormatException(String why) {
            super(why);
        }
    }

    /** The record as one line of compact JSON, without the line end. */
    public String toJson() {
        StringWriter w = new StringWriter(512);
        try (JsonGenerator g = JSON.createGenerator(w)) {
            g.writeStartObject();
            g.writeStringField("schema", SCHEMA);
            g.writeStringField("job", job);
            if (step != null) {
                g.writeStringField("step", step);
            }
            g.writeStringField("user", user);
            g.writeStringField("exe", exe);
            if (host != null) {
                g.writeStringField("host", host);
            }
            if (mpi != null) {
                g.writeStringField("mpi", mpi);
            }
            if (start != null) {
                g.writeStringField("start", start.truncatedTo(ChronoUnit.SECONDS).toString());
            }
            g.writeStringField("end", end.truncatedTo(ChronoUnit.SECONDS).toString());
            number(g, "wall_s", wallS, 3);
            g.writeNumberField("ranks", ranks);
            g.writeNumberField("nodes", nodes);
            number(g, "core_h", coreH, 6);
            number(g, "mpi_pct", mpiPct, 2);
            g.writeArrayFieldStart("top");
            for (Top t : top) {
                g.writeStartArray();
                g.writeString(t.function);
                g.writeNumber(decimal(t.seconds, 6));
                if (!sampled()) {
                    g.writeNumber(t.calls);
                }
                g.writeEndArray();
            }
            g.writeEndArray();
            if (sampled()) {
                g.writeNumberField("samples", samples);
            }
            if (hwc != null) {
                g.writeObjectFieldStart("hwc");
                g.writeBooleanField("hardware", hwc.hardware);
                g.writeObjectFieldStart("events");
                for (Map.Entry<String, Event> e : hwc.events.entrySet()) {
                    g.writeObjectFieldStart(e.getKey());
                    g.writeNumberField("total", e.getValue().total);
                    g.writeNumberField("mpi", e.getValue().mpi);
                    g.writeEndObject();
                }
                g.writeEndObject();
                g.writeEndObject();
            }
            if (!Double.isNaN(acctMs)) {
                number(g, "acct_ms", acctMs, 1);
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return w.toString();
    }

    private static void number(JsonGenerator g, String name, double v, int scale) throws IOException {
        g.writeFieldName(name);
        g.writeNumber(decimal(v, scale));
    }

    /** Rounded to {@code scale} decimals, without trailing zeros or an exponent. */
    static String decimal(double v, int scale) {
        if (!Double.isFinite(v)) {
            return "0";
        }
        BigDecimal d = BigDecimal.valueOf(v).setScale(scale, RoundingMode.HALF_UP).stripTrailingZeros();
        return d.signum() == 0 ? "0" : d.toPlainString();
    }

    /** Reads one line; unknown fields are skipped (a later schema revision may add some). */
    public static AccountingRecord parse(String line) throws FormatException {
        try (JsonParser p = JSON.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new FormatException("not a JSON object");
            }
            Fields f = new Fields();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                f.read(name, v, p);
            }
            if (p.currentToken() != JsonToken.END_OBJECT) {
                throw new FormatException("truncated");
            }
            if (p.nextToken() != null) {
                throw new FormatException("text after the record");
            }
            return f.build();
        } catch (JsonProcessingException e) {
            String m = e.getOriginalMessage();
            if (m != null && m.startsWith("Unexpected end-of-input")) {
                throw new FormatException("truncated JSON");
            }
            if (m != null && m.startsWith("Non-standard token")) {
                throw new FormatException("NaN and Infinity are not JSON numbers");
            }
            if (m != null && m.startsWith("Duplicate")) {
                throw new FormatException("a key twice: " + m.lines().findFirst().orElse(m));
            }
            throw new FormatException("malformed JSON (" + (m == null ? "?" : m.lines().findFirst().orElse(m)) + ")");
        } catch (IOException e) {
            throw new FormatException("unreadable (" + e.getMessage() + ")");
        }
    }

    /** The fields of a record being read. */
    private static final class Fields {
        String schema;
        String job;
        String user;
        String exe;
        String host;
        String mpi;
        Instant start;
        Instant end;
        Double wallS;
        Integer ranks;
        int nodes;
        Double coreH;
        Double mpiPct;
        List<Top> top = List.of();
        Hwc hwc;
        double acctMs = Double.NaN;
        long samples = -1;
        String step;

        void read(String name, JsonToken v, JsonParser p) throws IOException, FormatException {
            switch (name) {
                case "schema" -> schema = text(name, v, p);
                case "job" -> job = text(name, v, p);
                case "step" -> step = text(name, v, p);
                case "user" -> user = text(name, v, p);
                case "exe" -> exe = text(name, v, p);
                case "host" -> host = text(name, v, p);
                case "mpi" -> mpi = text(name, v, p);
                case "start" -> start = instant(name, v, p);
                case "end" -> end = instant(name, v, p);
                case "wall_s" -> {
                    wallS = nonNegative(name, v, p);
                    if (wallS > MAX_WALL_S) {
                        throw new FormatException("wall_s " + wallS + " is more than " + MAX_WALL_S + " s");
                    }
                }
                case "ranks" -> ranks = count(name, v, p);
                case "nodes" -> nodes = count(name, v, p);
                case "core_h" -> coreH = nonNegative(name, v, p);
                case "mpi_pct" -> {
                    mpiPct = nonNegative(name, v, p);
                    if (mpiPct > 100) {
                        throw new FormatException("mpi_pct " + mpiPct + " is over 100");
                    }
                }
                case "top" -> top = top(v, p);
                case "hwc" -> hwc = hwc(v, p);
                case "acct_ms" -> acctMs = nonNegative(name, v, p);
                case "samples" -> samples = longValue(name, v, p);
                default -> p.skipChildren();
            }
        }

        AccountingRecord build() throws FormatException {
            if (schema == null) {
                throw new FormatException("no schema field (not a jpmpi accounting record)");
            }
            if (!schema.equals(SCHEMA)) {
                throw new FormatException("schema '" + schema + "' is not " + SCHEMA);
            }
            for (Object[] req : new Object[][] {{"job", job}, {"user", user}, {"exe", exe}, {"end", end},
                    {"wall_s", wallS}, {"ranks", ranks}, {"core_h", coreH}, {"mpi_pct", mpiPct}}) {
                if (req[1] == null) {
                    throw new FormatException("no " + req[0] + " field");
                }
            }
            if (ranks < 1) {
                throw new FormatException("ranks " + ranks + " is not positive");
            }
            agree();
            return new AccountingRecord(job, user, exe, host, mpi, start, end, wallS, ranks, nodes, coreH, mpiPct,
                    top, hwc, acctMs, samples, step);
        }

        /**
         * The figures agree: core_h is ranks x wall_s / 3600 (within the rounding of both to 3 and 6
         * decimals) and 0 or at least 0.000001 (so that rates per core-second stay finite), the start
         * not after the end.
         */
        private void agree() throws FormatException {
            double expected = ranks * wallS / 3600;
            double slack = ranks * 0.0005 / 3600 + 0.0000005 + 1e-9 * expected;
            if (Math.abs(coreH - expected) > slack) {
                throw new FormatException("core_h " + coreH + " is not ranks x wall_s / 3600 (" + ranks + " x " + wallS
                        + " / 3600 = " + expected + ")");
            }
            if (coreH > 0 && coreH < 0.000001) {
                throw new FormatException("core_h " + coreH + " is below 0.000001, the smallest written");
            }
            if (start != null && start.isAfter(end)) {
                throw new FormatException("start " + start + " is after end " + end);
            }
        }

        private static String text(String name, JsonToken v, JsonParser p) throws IOException, FormatException {
            if (v != JsonToken.VALUE_STRING) {
                throw new FormatException(name + " is not a string");
            }
            return p.getText();
        }

        private static Instant instant(String name, JsonToken v, JsonParser p) throws IOException, FormatException {
            String s = text(name, v, p);
            Instant t;
            try {
                t = Instant.parse(s);
            } catch (DateTimeParseException e) {
                throw new FormatException(name + " '" + s + "' is not an ISO-8601 UTC time");
            }
            // a record is of a job that ran: from 1970 to 9999 (beyond, months and years cannot be told)
            if (t.isBefore(Instant.EPOCH) || t.isAfter(LAST)) {
                throw new FormatException(name + " '" + s + "' is not a time a job ran at (1970 to 9999)");
            }
            return t;
        }

        private static double nonNegative(String name, JsonToken v, JsonParser p) throws IOException, FormatException {
            if (v != JsonToken.VALUE_NUMBER_INT && v != JsonToken.VALUE_NUMBER_FLOAT) {
                throw new FormatException(name + " is not a number");
            }
            double d = p.getDoubleValue();
            if (!(d >= 0) || Double.isInfinite(d)) {
                throw new FormatException(name + " " + p.getText() + " is negative or not finite");
            }
            return d;
        }

        private static int count(String name, JsonToken v, JsonParser p) throws IOException, FormatException {
            if (v != JsonToken.VALUE_NUMBER_INT) {
                throw new FormatException(name + " is not an integer");
            }
            long n = p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? -1 : p.getLongValue();
            if (n < 0 || n > Integer.MAX_VALUE) {
                throw new FormatException(name + " " + p.getText() + " is out of range");
            }
            return (int) n;
        }

        /** A non-negative integer that fits a long. */
        private static long longValue(String name, JsonToken v, JsonParser p) throws IOException, FormatException {
            if (v != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                throw new FormatException(name + " is not an integer from 0 to 2^63-1");
            }
            long n = p.getLongValue();
            if (n < 0) {
                throw new FormatException(name + " " + n + " is negative");
            }
            return n;
        }

        private static List<Top> top(JsonToken v, JsonParser p) throws IOException, FormatException {
            if (v != JsonToken.START_ARRAY) {
                throw new FormatException("top is not an array");
            }
            List<Top> out = new ArrayList<>();
            while (p.nextToken() == JsonToken.START_ARRAY) {
                String fn = text("top function", p.nextToken(), p);
                double s = nonNegative("top seconds", p.nextToken(), p);
                JsonToken t = p.nextToken();
                long calls = -1;
                if (t != JsonToken.END_ARRAY) {
                    calls = longValue("top calls", t, p);
                    t = p.nextToken();
                }
                if (t != JsonToken.END_ARRAY) {
                    throw new FormatException("a top entry is not [function, seconds, calls]");
                }
                out.add(new Top(fn, s, calls));
            }
            if (p.currentToken() != JsonToken.END_ARRAY) {
                throw new FormatException("a top entry is not [function, seconds, calls]");
            }
            return out;
        }

        private static Hwc hwc(JsonToken v, JsonParser p) throws IOException, FormatException {
            if (v != JsonToken.START_OBJECT) {
                throw new FormatException("hwc is not an object");
            }
            boolean hardware = false;
            Map<String, Event> events = new LinkedHashMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                if (name.equals("hardware")) {
                    if (!t.isBoolean()) {
                        throw new FormatException("hwc.hardware is not true or false");
                    }
                    hardware = p.getBooleanValue();
                } else if (name.equals("events")) {
                    if (t != JsonToken.START_OBJECT) {
                        throw new FormatException("hwc.events is not an object");
                    }
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String event = p.currentName();
                        if (p.nextToken() != JsonToken.START_OBJECT) {
                            throw new FormatException("hwc event " + event + " is not an object");
                        }
                        long total = -1;
                        long mpi = 0;
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String k = p.currentName();
                            JsonToken n = p.nextToken();
                            switch (k) {
                                case "total" -> total = longValue("hwc " + event + ".total", n, p);
                                case "mpi" -> mpi = longValue("hwc " + event + ".mpi", n, p);
                                default -> p.skipChildren();
                            }
                        }
                        if (total < 0) {
                            throw new FormatException("hwc event " + event + " has no total");
                        }
                        if (mpi > total) {
                            throw new FormatException("hwc " + event + ".mpi " + mpi + " is more than its total " + total);
                        }
                        events.put(event, new Event(total, mpi));
                    }
                } else {
                    p.skipChildren();
                }
            }
            return new Hwc(hardware, events);
        }
    }
}
