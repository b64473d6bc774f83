package io.jpmpi.tools.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.profilers.accounting.AccountingRecord;
import io.jpmpi.tools.accounting.Summary.By;
import io.jpmpi.tools.accounting.Summary.Group;
import io.jpmpi.tools.accounting.Summary.Period;
import io.jpmpi.tools.accounting.Summary.Row;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The aggregation and the reader on the generated month. */
class SummaryTest {
    static Summary of(Period p, By by, Instant since) {
        Summary s = new Summary(p, by, since);
        Month.records().forEach(s::add);
        return s;
    }

    static void row(Row r, long jobs, double coreH, double mpiPct, double ips) {
        assertEquals(jobs, r.jobs());
        assertEquals(coreH, r.coreHours(), 1e-9);
        assertEquals(mpiPct, r.mpiPercent(), 1e-9);
        if (Double.isNaN(ips)) {
            assertTrue(Double.isNaN(r.instructionsPerSecond()));
        } else {
            assertEquals(ips, r.instructionsPerSecond(), 1);
        }
    }

    @Test
    void perMonthAndUser() {
        List<Group> g = of(Period.MONTH, By.USER, null).groups();
        assertEquals(List.of("2025-12", "2026-01", "2026-02"), g.stream().map(Group::period).toList());
        Group jan = g.get(1);
        assertEquals(List.of("alice", "bob", "carol"), List.copyOf(jan.rows().keySet()));
        row(jan.rows().get("alice"), 31, 124, 20, Double.NaN);
        row(jan.rows().get("bob"), 31, 248, 50, Month.BOB_IPS);
        row(jan.rows().get("carol"), 4, 16, 10, Double.NaN);
        row(jan.total(), 66, 388, (124 * 20 + 248 * 50 + 16 * 10) / 388.0, Month.BOB_IPS);
        row(g.get(0).total(), 1, 4, 20, Double.NaN);
    }

    @Test
    void perExecutable() {
        Group jan = of(Period.MONTH, By.EXECUTABLE, null).groups().get(1);
        row(jan.rows().get("/apps/cg"), 35, 140, (124 * 20 + 16 * 10) / 140.0, Double.NaN);
        row(jan.rows().get("/apps/lammps"), 31, 248, 50, Month.BOB_IPS);
    }

    @Test
    void isoWeeksCrossTheYear() {
        List<Group> g = of(Period.WEEK, By.USER, null).groups();
        assertEquals("2026-W01", g.get(0).period()); // 2025-12-29 .. 2026-01-04
        row(g.get(0).rows().get("alice"), 5, 20, 20, Double.NaN);
        row(g.get(0).rows().get("bob"), 4, 32, 50, Month.BOB_IPS);
        assertEquals("2026-W05", g.get(g.size() - 1).period()); // 2026-01-26 .. 2026-02-01
        row(g.get(g.size() - 1).rows().get("alice"), 7, 28, 20, Double.NaN);
    }

    @Test
    void since() {
        Summary s = of(Period.MONTH, By.USER, Instant.parse("2026-01-15T00:00:00Z"));
        Group jan = s.groups().get(0);
        assertEquals("2026-01", jan.period());
        row(jan.rows().get("alice"), 17, 68, 20, Double.NaN);
        row(jan.rows().get("carol"), 2, 8, 10, Double.NaN);
        assertEquals(14 + 14 + 2 + 1, s.beforeSince());
        assertEquals(17 + 17 + 2 + 1, s.used());
    }

    @Test
    void readerSkipsWhatIsNotARecord(@TempDir Path dir) throws IOException {
        List<Integer> bad = new ArrayList<>();
        Path f = dir.resolve("acct.jsonl");
        Files.writeString(f, Month.text(bad));
        List<Records.Problem> problems = new ArrayList<>();
        List<AccountingRecord> rs = Records.readAll(List.of(f), problems::add);
        assertEquals(Month.records(), rs);
        assertEquals(bad, problems.stream().map(p -> (int) p.line()).toList());
        assertEquals(List.of("truncated JSON", "malformed JSON (Unexpected character ('#' (code 35)): expected a valid"
                        + " value (JSON String, Number, Array, Object or token 'null', 'true' or 'false'))",
                "schema 'other-accounting-7' is not jpmpi-accounting-1", "ranks is not an integer"),
                problems.stream().map(Records.Problem::why).toList());
        assertEquals(f + ":" + bad.get(0) + ": truncated JSON", problems.get(0).toString());
    }
}
