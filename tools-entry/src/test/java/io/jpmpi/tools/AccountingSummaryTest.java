package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jpmpi.tools.accounting.Month;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** jpmpi accounting summary on the generated month: the table, --json read back, problems on stderr. */
class AccountingSummaryTest {
    @TempDir
    Path dir;

    Path month(List<Integer> bad) throws IOException {
        Path f = dir.resolve("acct.jsonl");
        Files.writeString(f, Month.text(bad));
        return f;
    }

    @Test
    void tableByUser() throws IOException {
        List<Integer> bad = new ArrayList<>();
        Path f = month(bad);
        Cli r = Cli.run("accounting", "summary", f.toString());
        assertEquals(0, r.exit(), r::describe);
        assertEquals("""
                month    user   jobs  core-hours  MPI %  instr/s
                2025-12  alice     1        4.00   20.0        -
                2026-01  alice    31      124.00   20.0        -
                2026-01  bob      31      248.00   50.0    2.00G
                2026-01  carol     4       16.00   10.0        -
                2026-01  (all)    66      388.00   38.8    2.00G
                2026-02  alice     1        4.00   20.0        -
                MPI %: average weighted by core-hours; instr/s: instructions per core-second (hardware counters tool), - without them
                """, r.out());
        List<String> err = r.err().lines().toList();
        assertEquals(Month.CORRUPT.size() + 1, err.size(), r::describe);
        for (int i = 0; i < bad.size(); i++) {
            assertTrue(err.get(i).startsWith(f + ":" + bad.get(i) + ": "), r::describe);
        }
        assertEquals("accounting summary: 4 lines skipped (not jpmpi-accounting-1 records)", err.get(4));
    }

    @Test
    void jsonByExecutableSince() throws IOException {
        Path f = month(new ArrayList<>());
        Cli r = Cli.run("accounting", "summary", "--json", "--by", "executable", "--since", "2026-01-15", f.toString());
        assertEquals(0, r.exit(), r::describe);
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals("jpmpi-accounting-summary-1", j.get("schema").asText());
        assertEquals("executable", j.get("by").asText());
        assertEquals("2026-01-15T00:00:00Z", j.get("since").asText());
        assertEquals(37, j.get("records").asInt());
        assertEquals(31, j.get("before_since").asInt());
        assertEquals(4, j.get("skipped_lines").asInt());
        JsonNode jan = j.get("periods").get(0);
        assertEquals("2026-01", jan.get("period").asText());
        assertEquals(36, jan.get("jobs").asInt());
        assertEquals(17 * 4 + 2 * 4 + 17 * 8, jan.get("core_h").asDouble(), 1e-9);
        JsonNode cg = jan.get("rows").get(0);
        assertEquals("/apps/cg", cg.get("executable").asText());
        assertEquals(19, cg.get("jobs").asInt());
        assertEquals(76, cg.get("core_h").asDouble(), 1e-9);
        assertEquals((68 * 20 + 8 * 10) / 76.0, cg.get("mpi_pct").asDouble(), 1e-9);
        assertTrue(cg.get("instructions_per_s").isNull());
        JsonNode lammps = jan.get("rows").get(1);
        assertEquals(Month.BOB_IPS, lammps.get("instructions_per_s").asDouble(), 1);
        assertEquals("2026-02", j.get("periods").get(1).get("period").asText());
    }

    @Test
    void weeks() throws IOException {
        Cli r = Cli.run("accounting", "summary", "--period", "week", month(new ArrayList<>()).toString());
        assertEquals(0, r.exit(), r::describe);
        assertTrue(r.out().startsWith("week      user   jobs  core-hours  MPI %  instr/s\n"
                + "2026-W01  alice     5       20.00   20.0        -\n"), r::describe);
    }

    @Test
    void anUnreadableFileIsAnError() throws IOException {
        Path f = month(new ArrayList<>());
        Cli r = Cli.run("accounting", "summary", f.toString(), dir.resolve("missing.jsonl").toString());
        assertEquals(ExitCode.BAD_RECORDS.code, r.exit(), r::describe);
        assertEquals("", r.out());
        assertTrue(r.err().contains("accounting summary: " + dir.resolve("missing.jsonl") + ": no such file"),
                r::describe);
        Cli d = Cli.run("accounting", "summary", dir.toString());
        assertEquals(ExitCode.BAD_RECORDS.code, d.exit(), d::describe);
        Cli u = Cli.run("accounting", "summary", "--by", "group", f.toString());
        assertEquals(ExitCode.USAGE.code, u.exit(), u::describe);
    }

    /** Lines that would make wrong sums are named (FILE:LINE: why) and skipped like any line that is not a record. */
    @Test
    void hostileLinesAreNamedAndSkipped() throws IOException {
        var first = Month.records().getFirst();
        String good = first.toJson();
        String twice = good.replace("\"core_h\":4,", "\"core_h\":4,\"core_h\":1033.5,");
        String huge = good.replace("\"core_h\":4,", "\"core_h\":1e308,");
        Path f = Files.writeString(dir.resolve("acct.jsonl"), good + "\n" + twice + "\n" + huge + "\n"
                + "{" + "x".repeat(100_000) + "\n" + good + "\n");
        Cli r = Cli.run("accounting", "summary", "--json", f.toString());
        assertEquals(0, r.exit(), r::describe);
        assertEquals(List.of(f + ":2: a key twice: Duplicate field 'core_h'",
                f + ":3: core_h 1.0E308 is not ranks x wall_s / 3600 (4 x 3600.0 / 3600 = 4.0)",
                f + ":4: longer than 4096 characters, the most a record has",
                f + ":5: job " + first.job() + " that started at " + first.start() + " is counted already",
                "accounting summary: 4 lines skipped (not jpmpi-accounting-1 records)"), r.err().lines().toList());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals(4.0, j.get("periods").get(0).get("core_h").asDouble(), r::describe);
        assertEquals(20.0, j.get("periods").get(0).get("mpi_pct").asDouble(), r::describe);
        assertTrue(j.get("periods").get(0).get("mpi_pct").isNumber(), r::describe);
    }

    /** Two steps of one job that started in the same second are two records, the same step twice one. */
    @Test
    void stepsOfOneJobCountApart() throws IOException {
        var first = Month.records().getFirst();
        String step0 = first.toJson().replace("\"job\":\"" + first.job() + "\",", "\"job\":\"" + first.job() + "\",\"step\":\"0\",");
        String step1 = step0.replace("\"step\":\"0\"", "\"step\":\"1\"");
        Path f = Files.writeString(dir.resolve("steps.jsonl"), step0 + "\n" + step1 + "\n" + step1 + "\n");
        Cli r = Cli.run("accounting", "summary", "--json", f.toString());
        assertEquals(0, r.exit(), r::describe);
        assertEquals(List.of(f + ":3: job " + first.job() + " step 1 that started at " + first.start()
                + " is counted already", "accounting summary: 1 line skipped (not jpmpi-accounting-1 records)"),
                r.err().lines().toList());
        assertEquals(2, new ObjectMapper().readTree(r.out()).get("records").asInt(), r::describe);
    }

    /**
     * A time no job ran at (year 1000000000) is a skipped line, not the end of the summary; a user
     * name with terminal escapes and a bidirectional override reaches the table and the messages
     * escaped.
     */
    @Test
    void farTimesAndTerminalTricks() throws IOException {
        var first = Month.records().getFirst();
        String good = first.toJson();
        String far = good.replaceFirst("\"end\":\"[^\"]*\"", "\"end\":\"+1000000000-12-31T23:59:59Z\"");
        String tricky = good.replace("\"user\":\"" + first.user() + "\"", "\"user\":\"eve\\u001b[2J\\u202egnp.exe\"")
                .replace("\"job\":\"" + first.job() + "\"", "\"job\":\"other\"");
        Path f = Files.writeString(dir.resolve("acct.jsonl"), good + "\n" + far + "\n" + tricky + "\n");
        Cli r = Cli.run("accounting", "summary", f.toString());
        assertEquals(0, r.exit(), r::describe);
        assertTrue(r.err().startsWith(f + ":2: end '+1000000000-12-31T23:59:59Z' is not a time a job ran at (1970 to 9999)"),
                r::describe);
        assertTrue(r.out().contains("eve\\u001b[2J\\u202egnp.exe"), r::describe);
        assertTrue(r.out().chars().noneMatch(c -> c == 0x1b || c == 0x202e), r::describe);
    }

    @Test
    void filesThatAreNotFiles() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Cli r = Cli.run("accounting", "summary", fifo.toString());
        assertEquals(ExitCode.BAD_RECORDS.code, r.exit(), r::describe);
        assertEquals("jpmpi: accounting summary: " + fifo + ": is not a regular file (a FIFO, socket or device), not"
                + " an accounting file\n", r.err(), r::describe);
        Path loop = Files.createSymbolicLink(dir.resolve("loop"), dir.resolve("loop"));
        Cli l = Cli.run("accounting", "summary", loop.toString());
        assertEquals(ExitCode.BAD_RECORDS.code, l.exit(), l::describe);
        assertTrue(l.err().contains(loop + ": a loop of symbolic links"), l::describe);
    }
}
