package io.jpmpi.profilers.report;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.Arrays;
import java.util.List;

/** Writing profile.json, in the pieces {@link ProfileJson} describes. */
final class ProfileJsonWriter {
    private ProfileJsonWriter() {
    }

    /** The whole profile: exactly the concatenation of the pieces. */
    static void write(Profile p, Writer w) throws IOException {
        w.write(head(p));
        List<Profile.RankRow> rows = p.rankRows();
        for (int i = 0; i < rows.size(); i++) {
            w.write(rankRow(rows.get(i), i == rows.size() - 1));
        }
        w.write(middle());
        writeRows(p.messages(), w);
        w.write(middle2());
        writeRows(p.bytes(), w);
        w.write(tail(p));
    }

    private static void writeRows(List<Profile.SparseRow> rows, Writer w) throws IOException {
        for (int i = 0; i < rows.size(); i++) {
            w.write(sparseRow(rows.get(i), i == rows.size() - 1));
        }
    }

    /** Everything from the opening brace up to and including {@code "rank_rows":[} and a newline. */
    static String head(Profile p) {
        StringBuilder b = new StringBuilder(4096);
        b.append("{\"schema\":\"").append(Profile.SCHEMA).append("\",\n");
        b.append("\"partial\":").append(p.partial()).append(",\n");
        List<String> reasons = p.partialReasons() == null ? List.of() : p.partialReasons();
        b.append("\"partial_reasons\":").append(json(g -> {
            g.writeStartArray();
            for (String r : reasons) {
                g.writeString(r);
            }
            g.writeEndArray();
        })).append(",\n");
        b.append("\"job\":").append(json(g -> job(g, p.job()))).append(",\n");
        ProfileDetails.Run run = p.details().run();
        if (run != null) {
            b.append("\"run\":").append(json(g -> run(g, run))).append(",\n");
        }
        b.append("\"ranks\":").append(p.ranks()).append(",\n");
        Profile.Summary s = p.summary();
        b.append("\"summary\":").append(json(g -> {
            g.writeStartObject();
            stat(g, "app_s", s.appSeconds());
            stat(g, "mpi_s", s.mpiSeconds());
            stat(g, "mpi_pct", s.mpiPercent());
            stat(g, "calls", s.calls());
            stat(g, "bytes_sent", s.bytesSent());
            stat(g, "bytes_recv", s.bytesRecv());
            g.writeEndObject();
        })).append(",\n");
        Profile.Overhead o = p.overhead();
        b.append("\"overhead\":").append(json(g -> {
            g.writeStartObject();
            number(g, "per_call_ns", o.perCallNs());
            g.writeNumberField("calls", o.calls());
            number(g, "total_s", o.totalSeconds());
            cost(g, p.details().breakdown());
            g.writeEndObject();
        })).append(",\n");
        if (p.details().timerSeconds() > 0) {
            b.append("\"timer\":{\"resolution_s\":").append(number(p.details().timerSeconds())).append("},\n");
        }
        if (p.sites() != null) {
            sites(b, p.sites());
        }
        functionDetail(b, p.details().breakdown());
        b.append("\"functions\":[");
        List<FunctionProfile> functions = p.functions() == null ? List.of() : p.functions();
        for (int i = 0; i < functions.size(); i++) {
            FunctionProfile f = functions.get(i);
            b.append(i == 0 ? "\n" : ",\n").append(json(g -> function(g, f)));
        }
        b.append("],\n");
        b.append("\"histogram\":").append(json(g -> histogram(g, p.histogram()))).append(",\n");
        b.append("\"blocks\":");
        blocks(b, p.blocks());
        b.append(",\n");
        b.append("\"rank_rows\":[\n");
        return b.toString();
    }

    /** One rank's row, on one line, followed by ",\n", or by "\n" for the last row. */
    static String rankRow(Profile.RankRow row, boolean last) {
        return json(g -> {
            g.writeStartObject();
            g.writeNumberField("rank", row.rank());
            g.writeStringField("host", row.host());
            g.writeNumberField("pid", row.pid());
            number(g, "app_s", row.appSeconds());
            number(g, "mpi_s", row.mpiSeconds());
            g.writeNumberField("calls", row.calls());
            g.writeStringField("partial", row.partial());
            g.writeEndObject();
        }) + (last ? "\n" : ",\n");
    }

    /** Between the rank rows and the rows of the messages matrix. */
    static String middle() {
        return "],\"matrix\":{\"messages\":[\n";
    }

    /** One rank's row of a matrix, {@code [[peer,value],...]}, then ",\n", or "\n" for the last row. */
    static String sparseRow(Profile.SparseRow row, boolean last) {
        int[] peers = row.peers();
        long[] values = row.values();
        if (peers.length != values.length) {
            throw new IllegalArgumentException("a sparse row with " + peers.length + " peers and " + values.length
                    + " values");
        }
        StringBuilder b = new StringBuilder(2 + peers.length * 16);
        b.append('[');
        for (int i = 0; i < peers.length; i++) {
            b.append(i == 0 ? "[" : ",[").append(peers[i]).append(',').append(values[i]).append(']');
        }
        return b.append(last ? "]\n" : "],\n").toString();
    }

    /** Between the rows of the messages matrix and those of the bytes matrix. */
    static String middle2() {
        return "],\"bytes\":[\n";
    }

    /** After the rows of the bytes matrix: the end of the document. */
    static String tail() {
        return "]}}\n";
    }

    /**
     * After the rows of the bytes matrix: the end of the document, with schema 2's
     * {@code "rank_functions"} when {@code p} has them (one line per rank).
     */
    static String tail(Profile p) {
        List<ProfileDetails.RankFunctions> rows = p.details().rankFunctions();
        if (rows == null) {
            return tail();
        }
        StringBuilder b = new StringBuilder(64 + rows.size() * 128).append(middle3());
        for (int i = 0; i < rows.size(); i++) {
            b.append(rankFunctionsRow(rows.get(i), i == rows.size() - 1));
        }
        return b.append(tail2()).toString();
    }

    /** Between the rows of the bytes matrix and the per-rank functions (schema 2). */
    static String middle3() {
        return "]},\n\"rank_functions\":[\n";
    }

    /** After the per-rank functions: the end of the document. */
    static String tail2() {
        return "]}\n";
    }

    /** Schema 3: jpmpi's own start and finalize in "overhead", when known. */
    private static void cost(JsonGenerator g, ProfileBreakdown b) throws IOException {
        if (b == null || b.cost() == null) {
            return;
        }
        stat(g, "start_s", b.cost().startSeconds());
        stat(g, "finalize_s", b.cost().finalizeSeconds());
        if (b.cost().rank0FinalizeSeconds() > 0) {
            number(g, "finalize_rank0_s", b.cost().rank0FinalizeSeconds());
        }
    }

    /** Schema 3: {@code "function_detail"}, one line per function, when there is any. */
    private static void functionDetail(StringBuilder b, ProfileBreakdown breakdown) {
        if (breakdown == null || breakdown.functions().isEmpty()) {
            return;
        }
        b.append("\"function_detail\":[");
        List<ProfileBreakdown.FunctionDetail> fs = breakdown.functions();
        for (int i = 0; i < fs.size(); i++) {
            ProfileBreakdown.FunctionDetail f = fs.get(i);
            b.append(i == 0 ? "\n" : ",\n").append(json(g -> {
                g.writeStartObject();
                g.writeStringField("name", f.name());
                if (f.collective()) {
                    g.writeNumberField("buffer_bytes", f.bufferBytes());
                }
                seconds(g, "time_by_size_s", ProfileBreakdown.trim(f.timeBySize()));
                if (f.collective()) {
                    g.writeFieldName("calls_by_comm_size");
                    g.writeStartArray();
                    for (long v : ProfileBreakdown.trim(f.callsByComm())) {
                        g.writeNumber(v);
                    }
                    g.writeEndArray();
                    seconds(g, "time_by_comm_size_s", ProfileBreakdown.trim(f.timeByComm()));
                }
                g.writeEndObject();
            }));
        }
        b.append("],\n");
    }

    private static void seconds(JsonGenerator g, String name, double[] values) throws IOException {
        g.writeFieldName(name);
        g.writeStartArray();
        for (double v : values) {
            g.writeNumber(number(v));
        }
        g.writeEndArray();
    }

    /** One rank's functions, {@code {"MPI_X":[calls,time_s,sent,recv],...}}, then ",\n", or "\n" for the last. */
    static String rankFunctionsRow(ProfileDetails.RankFunctions row, boolean last) {
        return json(g -> {
            g.writeStartObject();
            for (ProfileDetails.Entry e : row.functions()) {
                g.writeFieldName(e.name());
                g.writeStartArray();
                g.writeNumber(e.calls());
                g.writeNumber(number(e.timeSeconds()));
                g.writeNumber(e.bytesSent());
                g.writeNumber(e.bytesRecv());
                g.writeEndArray();
            }
            g.writeEndObject();
        }) + (last ? "\n" : ",\n");
    }

    /* ---- call sites (schema 3, issue 21) ---- */

    /** {@code "sites":{"note":...,"list":[...]},} and a newline, one site per line. */
    private static void sites(StringBuilder b, CallSites sites) {
        b.append("\"sites\":{\"note\":").append(json(g -> {
            if (sites.note() == null) {
                g.writeNull();
            } else {
                g.writeString(sites.note());
            }
        })).append(",\"list\":[");
        List<CallSites.Site> list = sites.sites();
        for (int i = 0; i < list.size(); i++) {
            CallSites.Site s = list.get(i);
            b.append(i == 0 ? "\n" : ",\n").append(json(g -> site(g, s)));
        }
        b.append("]},\n");
    }

    private static void site(JsonGenerator g, CallSites.Site s) throws IOException {
        g.writeStartObject();
        g.writeStringField("function", s.function());
        g.writeStringField("module", s.module());
        g.writeNumberField("offset", s.offset());
        g.writeStringField("resolved", s.resolved().json);
        g.writeStringField("file", s.file());
        g.writeNumberField("line", s.line());
        g.writeStringField("name", s.name());
        g.writeStringField("symbol", s.symbol());
        stat(g, "calls", s.calls());
        stat(g, "time_s", s.timeSeconds());
        stat(g, "bytes", s.bytes());
        g.writeEndObject();
    }

    /* ---- end of call sites ---- */

    private static void run(JsonGenerator g, ProfileDetails.Run run) throws IOException {
        g.writeStartObject();
        g.writeStringField("source", run.source());
        g.writeFieldName("command");
        g.writeStartArray();
        for (String word : run.command()) {
            g.writeString(word);
        }
        g.writeEndArray();
        g.writeStringField("tools", run.tools());
        g.writeStringField("output", run.output());
        number(g, "wall_s", run.wallSeconds());
        g.writeFieldName("settings");
        g.writeStartObject();
        for (String k : new java.util.TreeSet<>(run.settings().keySet())) {
            g.writeStringField(k, run.settings().get(k));
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    /**
     * A double as written: 0 for NaN, infinities and -0; integral values below 2^53 as integers;
     * others in their shortest round-trip form ({@link Double#toString}).
     */
    static String number(double d) {
        if (!Double.isFinite(d) || d == 0) {
            return "0";
        }
        if (d == Math.rint(d) && Math.abs(d) < 0x1p53) {
            return Long.toString((long) d);
        }
        return Double.toString(d);
    }

    @FunctionalInterface
    private interface Body {
        void write(JsonGenerator g) throws IOException;
    }

    /** Compact JSON of the value {@code body} writes. */
    private static String json(Body body) {
        StringWriter w = new StringWriter(256);
        try (JsonGenerator g = ProfileJson.FACTORY.createGenerator(w)) {
            body.write(g);
        } catch (IOException e) {
            // A StringWriter does not fail; the generator only does when misused.
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }

    private static void number(JsonGenerator g, String key, double d) throws IOException {
        g.writeFieldName(key);
        g.writeNumber(number(d));
    }

    private static void job(JsonGenerator g, Job j) throws IOException {
        g.writeStartObject();
        g.writeStringField("id", j.id());
        if (j.step() != null) {
            g.writeStringField("step", j.step());
        }
        g.writeStringField("executable", j.executable());
        g.writeStringField("mpi", j.mpi());
        g.writeNumberField("hosts", j.hosts());
        g.writeStringField("start", j.start());
        number(g, "wall_s", j.wallSeconds());
        g.writeEndObject();
    }

    private static void stat(JsonGenerator g, String key, Stat s) throws IOException {
        g.writeFieldName(key);
        g.writeStartObject();
        number(g, "sum", s.sum());
        number(g, "min", s.min());
        g.writeNumberField("min_rank", s.minRank());
        number(g, "max", s.max());
        g.writeNumberField("max_rank", s.maxRank());
        number(g, "avg", s.avg());
        number(g, "cv", s.cv());
        g.writeEndObject();
    }

    private static void function(JsonGenerator g, FunctionProfile f) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", f.name());
        g.writeNumberField("calls", f.calls());
        number(g, "time_s", f.timeSeconds());
        g.writeNumberField("bytes_sent", f.bytesSent());
        g.writeNumberField("bytes_recv", f.bytesRecv());
        number(g, "min_call_s", f.minCallSeconds());
        number(g, "max_call_s", f.maxCallSeconds());
        g.writeFieldName("per_rank");
        g.writeStartObject();
        stat(g, "calls", f.perRank().calls());
        stat(g, "time_s", f.perRank().timeSeconds());
        stat(g, "bytes_sent", f.perRank().bytesSent());
        stat(g, "bytes_recv", f.perRank().bytesRecv());
        g.writeEndObject();
        g.writeFieldName("histogram");
        histogram(g, f.histogram());
        if (f.sampled()) { // sampled timing (PROFILE.md): only then, so a profile without it reads as before
            g.writeNumberField("timed_calls", f.timedCalls());
            number(g, "time_error_s", f.timeErrorSeconds());
        }
        g.writeEndObject();
    }

    /** The histogram without its trailing zero buckets. */
    private static void histogram(JsonGenerator g, long[] h) throws IOException {
        int n = h == null ? 0 : h.length;
        while (n > 0 && h[n - 1] == 0) {
            n--;
        }
        g.writeStartArray();
        for (int k = 0; k < n; k++) {
            g.writeNumber(h[k]);
        }
        g.writeEndArray();
    }

    /** The blocks object, its matrices a row per line. */
    private static void blocks(StringBuilder b, Profile.Blocks blocks) {
        b.append("{\"first_rank\":").append(Arrays.toString(blocks.firstRank()).replace(" ", ""));
        b.append(",\n\"app_s\":").append(doubles(blocks.appSeconds()));
        b.append(",\n\"mpi_s\":").append(doubles(blocks.mpiSeconds()));
        b.append(",\n\"messages\":");
        matrix(b, blocks.messages());
        b.append(",\n\"bytes\":");
        matrix(b, blocks.bytes());
        b.append('}');
    }

    private static String doubles(double[] values) {
        StringBuilder b = new StringBuilder(values.length * 8 + 2).append('[');
        for (int i = 0; i < values.length; i++) {
            b.append(i == 0 ? "" : ",").append(number(values[i]));
        }
        return b.append(']').toString();
    }

    private static void matrix(StringBuilder b, long[][] rows) {
        b.append('[');
        for (int i = 0; i < rows.length; i++) {
            b.append(i == 0 ? "\n" : ",\n").append(Arrays.toString(rows[i]).replace(" ", ""));
        }
        b.append(']');
    }
}
