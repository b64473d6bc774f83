package io.jpmpi.profilers.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The C writer of the accounting record (src/main/c/acctrecord.c, through the test program
 * src/test/c/acctfmt.c) against the Java model: for the same figures, the same line byte for
 * byte (numbers, escaping, the top five, the counters, the too-long rule), and the model reads it.
 */
class AccountingLineTest {
    static Path program() {
        Path p = Path.of(System.getProperty("jpmpi.accounting.test.dir", "target/test-native")).toAbsolutePath()
                .resolve("acctfmt");
        assertTrue(Files.isExecutable(p), () -> "missing " + p + " (mvn test-compile builds it)");
        return p;
    }

    /** Runs acctfmt with `input` on stdin; its stdout. */
    static String acctfmt(String input, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(program().toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        p.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "acctfmt did not end");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    static String hex(String s) {
        return HexFormat.of().formatHex(s.getBytes(StandardCharsets.UTF_8));
    }

    /** A function as acctfmt takes it: the record's top is picked from these. */
    record Fn(String name, double seconds, long calls) {
    }

    /** The input for `r`, with `functions` instead of its top. */
    static String input(AccountingRecord r, List<Fn> functions) {
        StringBuilder b = new StringBuilder();
        b.append("job\t").append(hex(r.job())).append('\n');
        if (r.step() != null) {
            b.append("step\t").append(hex(r.step())).append('\n');
        }
        b.append("user\t").append(hex(r.user())).append('\n');
        b.append("exe\t").append(hex(r.exe())).append('\n');
        b.append("host\t").append(hex(r.host())).append('\n');
        b.append("mpi\t").append(hex(r.mpi())).append('\n');
        b.append("start\t").append(r.start().getEpochSecond()).append('\n');
        b.append("end\t").append(r.end().getEpochSecond()).append('\n');
        b.append("wall_s\t").append(Double.toHexString(r.wallS())).append('\n');
        b.append("ranks\t").append(r.ranks()).append('\n');
        b.append("nodes\t").append(r.nodes()).append('\n');
        b.append("core_h\t").append(Double.toHexString(r.coreH())).append('\n');
        b.append("mpi_pct\t").append(Double.toHexString(r.mpiPct())).append('\n');
        for (Fn f : functions) {
            b.append("fn\t").append(hex(f.name)).append('\t').append(Double.toHexString(f.seconds)).append('\t')
                    .append(f.calls).append('\n');
        }
        if (r.hwc() != null) {
            b.append("hwc\t").append(r.hwc().hardware() ? 1 : 0).append('\n');
            r.hwc().events().forEach((name, e) -> b.append("ev\t").append(hex(name)).append('\t').append(e.total())
                    .append('\t').append(e.mpi()).append('\n'));
        }
        b.append("acct_ms\t").append(Double.toHexString(r.acctMs())).append('\n');
        return b.toString();
    }

    /** What the level puts in the record: the functions called, most time first, then most calls, then name. */
    static List<AccountingRecord.Top> top(List<Fn> functions) {
        return functions.stream().filter(f -> f.calls > 0)
                .sorted(Comparator.comparingDouble(Fn::seconds).reversed()
                        .thenComparing(Comparator.comparingLong(Fn::calls).reversed()).thenComparing(Fn::name))
                .limit(5).map(f -> new AccountingRecord.Top(f.name, f.seconds, f.calls)).toList();
    }

    static AccountingRecord record(String job, String user, String exe, double wall, int ranks, double mpiPct,
                                   List<Fn> functions, AccountingRecord.Hwc hwc, double acctMs) {
        return new AccountingRecord(job, user, exe, "node-07", "openmpi 4.1.4", Instant.ofEpochSecond(1_790_000_000L),
                Instant.ofEpochSecond(1_790_000_000L + (long) wall), wall, ranks, 2, ranks * wall / 3600, mpiPct,
                top(functions), hwc, acctMs);
    }

    /** The C line for `r` (made from `functions`), checked against the Java text and read back. */
    static void same(AccountingRecord r, List<Fn> functions) throws Exception {
        String out = acctfmt(input(r, functions));
        assertEquals("dropped=0\n" + r.toJson() + "\n", out);
        AccountingRecord back = AccountingRecord.parse(out.substring(out.indexOf('\n') + 1).stripTrailing());
        assertEquals(r.job(), back.job());
        assertEquals(r.exe(), back.exe());
        assertEquals(r.top().size(), back.top().size());
    }

    @Test
    void sameLineAsTheJavaModel() throws Exception {
        List<Fn> functions = List.of(new Fn("MPI_Allreduce", 1.61074, 9000), new Fn("MPI_Bcast", 0.0407765, 900),
                new Fn("MPI_Barrier", 0.0050195, 3), new Fn("MPI_Comm_rank", 0, 3), new Fn("MPI_Comm_size", 0, 3),
                new Fn("MPI_Send", 0, 0), new Fn("MPI_Wait", 0, 2));
        Map<String, AccountingRecord.Event> ev = new LinkedHashMap<>();
        ev.put("instructions", new AccountingRecord.Event(5_760_000_000_000L, 576_000_000_000L));
        ev.put("cycles", new AccountingRecord.Event(12, 0));
        same(record("126550017", "root", "/work/acct", 0.7225, 3, 76.675, functions, null, 12.25), functions);
        same(record("4242", "alice", "/apps/cg \"x\" \\ y", 3600.00049, 4, 12.3456, functions,
                new AccountingRecord.Hwc(true, ev), 3.26), functions);
        same(record("j", "u", "/x", 0, 1, 0, List.of(), new AccountingRecord.Hwc(false, ev), 0), List.of());
    }

    /** A record of a job step (Slurm's SLURM_STEP_ID): "step" after "job", written and read back alike. */
    @Test
    void theStepFollowsTheJob() throws Exception {
        List<Fn> functions = List.of(new Fn("MPI_Allreduce", 0.25, 20));
        AccountingRecord r = record("4242", "alice", "/apps/x", 2, 6, 10, functions, null, 0.3);
        AccountingRecord step = new AccountingRecord(r.job(), r.user(), r.exe(), r.host(), r.mpi(), r.start(), r.end(),
                r.wallS(), r.ranks(), r.nodes(), r.coreH(), r.mpiPct(), r.top(), r.hwc(), r.acctMs(), r.samples(), "1");
        assertTrue(step.toJson().startsWith("{\"schema\":\"jpmpi-accounting-1\",\"job\":\"4242\",\"step\":\"1\",\"user\""),
                step.toJson());
        String out = acctfmt(input(step, functions));
        assertEquals("dropped=0\n" + step.toJson() + "\n", out);
        assertEquals("1", AccountingRecord.parse(out.substring(out.indexOf('\n') + 1).stripTrailing()).step());
        assertEquals(null, AccountingRecord.parse(r.toJson()).step(), "no step: no key");
    }

    /**
     * A sampled record (the tool alone): the functions' samples order the top but are not written
     * (no calls: [function, seconds]), and "samples" follows the top.
     */
    @Test
    void sampledRecordHasNoCallsAndItsSamples() throws Exception {
        List<Fn> functions = List.of(new Fn("MPI_Allreduce", 1.25, 1250), new Fn("MPI_Barrier", 0.61, 610),
                new Fn("MPI_Wait", 0, 0));
        List<AccountingRecord.Top> top = top(functions).stream()
                .map(t -> new AccountingRecord.Top(t.function(), t.seconds(), -1)).toList();
        AccountingRecord r = new AccountingRecord("77", "bob", "/apps/x", "node-07", "mpich 4.0.2",
                Instant.ofEpochSecond(1_790_000_000L), Instant.ofEpochSecond(1_790_000_003L), 3.006, 2, 1,
                2 * 3.006 / 3600, 26.12, top, null, 0.4, 6012);
        String out = acctfmt(input(r, functions) + "samples\t6012\n");
        assertEquals("dropped=0\n" + r.toJson() + "\n", out);
        assertTrue(r.toJson().contains("\"top\":[[\"MPI_Allreduce\",1.25],[\"MPI_Barrier\",0.61]],\"samples\":6012,"),
                r.toJson());
        AccountingRecord back = AccountingRecord.parse(out.substring(out.indexOf('\n') + 1).stripTrailing());
        assertEquals(r.top(), back.top());
        assertEquals(6012, back.samples());
        assertTrue(back.sampled());
    }

    @Test
    void stringsEscapedAsTheJavaModelDoes() throws Exception {
        StringBuilder controls = new StringBuilder();
        for (char c = 1; c < 0x20; c++) { // no NUL: a C string ends there (no path or variable holds one)
            controls.append(c);
        }
        List<Fn> none = List.of();
        same(record("job\twith\ttabs", "us\"er\\", "/apps/" + controls + "\u007f/end", 1, 2, 50, none, null, 1), none);
        same(record("été-中文-\uD83D\uDE00", "ü", "/ok/\u2028/\u00a0", 1, 2, 50, none, null, 1), none);
        // Not UTF-8 (an executable's path may be anything): U+FFFD for each bad byte, still a record.
        String in = input(record("j", "u", "x", 1, 2, 50, none, null, 1), none).replace("exe\t78\n", "exe\t2f61ff62c3\n");
        String out = acctfmt(in);
        assertTrue(out.contains("\"exe\":\"/a\uFFFDb\uFFFD\""), out);
        AccountingRecord.parse(out.substring(out.indexOf('\n') + 1).stripTrailing());
    }

    @Test
    void topFiveByTimeThenCallsThenName() throws Exception {
        List<Fn> functions = new ArrayList<>();
        for (String n : List.of("MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait", "MPI_Bcast", "MPI_Gather")) {
            functions.add(new Fn(n, 0.25, 10)); // all tied: the name decides
        }
        functions.add(new Fn("MPI_Waitall", 0.25, 11)); // more calls first among equal times
        functions.add(new Fn("MPI_Test", 0.5, 0)); // not called: never in the top
        functions.add(new Fn("MPI_Alltoall", 0.2500001, 1));
        same(record("j", "u", "x", 1, 2, 50, functions, null, 1), functions);
        assertEquals(List.of("MPI_Alltoall", "MPI_Waitall", "MPI_Bcast", "MPI_Gather", "MPI_Irecv"),
                top(functions).stream().map(AccountingRecord.Top::function).toList());
    }

    @Test
    void recordTooLongWithItsCountersIsWrittenWithout() throws Exception {
        Map<String, AccountingRecord.Event> ev = new LinkedHashMap<>();
        for (int i = 0; i < 60; i++) {
            ev.put(String.format("r%030d", i), new AccountingRecord.Event(Long.MAX_VALUE - i, i));
        }
        List<Fn> functions = List.of(new Fn("MPI_Send", 1, 1));
        AccountingRecord with = record("j", "u", "/x", 1, 2, 50, functions, new AccountingRecord.Hwc(true, ev), 1);
        assertTrue(with.toJson().length() + 1 > AccountingRecord.MAX_RECORD);
        AccountingRecord without = record("j", "u", "/x", 1, 2, 50, functions, null, 1);
        assertEquals("dropped=1\n" + without.toJson() + "\n", acctfmt(input(with, functions)));
        // With fewer counters the record keeps them.
        Map<String, AccountingRecord.Event> fewer = new LinkedHashMap<>();
        ev.entrySet().stream().limit(20).forEach(e -> fewer.put(e.getKey(), e.getValue()));
        same(record("j", "u", "/x", 1, 2, 50, functions, new AccountingRecord.Hwc(true, fewer), 1), functions);
    }

    /** Numbers: the shortest decimal of the double, rounded half up, as BigDecimal does on the Java side. */
    @Test
    void numbersRoundedAsTheJavaModelDoes() throws Exception {
        List<Double> values = new ArrayList<>(List.of(0.0, -0.0, 1.0, 0.5, 1.5, 2.5, 1.0005, 1.0015, 0.0000005,
                0.00000049, 9.9999995, 999999.9999995, 3600.00049, 12.345, 12.3449999, 1e-7, 1e22, 1.7976931348623157e308,
                4.9e-324, Double.NaN, Double.POSITIVE_INFINITY, -1.25, -0.0000004, 123456789.123456789, 0.1 + 0.2));
        Random random = new Random(20260101);
        for (int i = 0; i < 3000; i++) {
            double v = switch (i % 4) {
                case 0 -> random.nextDouble() * Math.pow(10, random.nextInt(12) - 4);
                case 1 -> Math.round(random.nextDouble() * 1e7) / Math.pow(10, 1 + random.nextInt(7)) + 5e-7;
                case 2 -> (random.nextInt(2_000_000) + 0.5) / Math.pow(10, random.nextInt(7));
                default -> Double.longBitsToDouble(random.nextLong() & 0x7fefffffffffffffL);
            };
            values.add(v);
        }
        StringBuilder in = new StringBuilder();
        List<String> expected = new ArrayList<>();
        int[] scales = {1, 2, 3, 6};
        for (int i = 0; i < values.size(); i++) {
            int scale = scales[i % scales.length];
            in.append(Double.toHexString(values.get(i))).append(' ').append(scale).append('\n');
            expected.add(AccountingRecord.decimal(values.get(i), scale));
        }
        List<String> got = acctfmt(in.toString(), "decimal").lines().toList();
        assertEquals(expected.size(), got.size());
        for (int i = 0; i < expected.size(); i++) {
            int k = i;
            assertEquals(expected.get(i), got.get(i), () -> values.get(k) + " to " + scales[k % scales.length]
                    + " decimals");
        }
    }
}
