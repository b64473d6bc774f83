package io.jpmpi.profilers.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The record's one-line JSON: exact text, read back, and every way a line can be refused. */
class AccountingRecordTest {
    static AccountingRecord sample(AccountingRecord.Hwc hwc) {
        return new AccountingRecord("4242", "alice", "/apps/cg \"x\"", "n01", "openmpi 4.1.4",
                Instant.parse("2026-01-05T10:00:00.7Z"), Instant.parse("2026-01-05T11:00:00Z"), 3600.00049, 4, 1,
                4.0, 12.3456, List.of(new AccountingRecord.Top("MPI_Allreduce", 1.5, 4000),
                        new AccountingRecord.Top("MPI_Bcast", 0.0000001, 40)), hwc, 3.26);
    }

    @Test
    void writesCompactJson() {
        assertEquals("{\"schema\":\"jpmpi-accounting-1\",\"job\":\"4242\",\"user\":\"alice\",\"exe\":\"/apps/cg \\\"x\\\"\","
                + "\"host\":\"n01\",\"mpi\":\"openmpi 4.1.4\",\"start\":\"2026-01-05T10:00:00Z\","
                + "\"end\":\"2026-01-05T11:00:00Z\",\"wall_s\":3600,\"ranks\":4,\"nodes\":1,\"core_h\":4,"
                + "\"mpi_pct\":12.35,\"top\":[[\"MPI_Allreduce\",1.5,4000],[\"MPI_Bcast\",0,40]],\"acct_ms\":3.3}",
                sample(null).toJson());
    }

    @Test
    void readsBackWithCounters() throws Exception {
        Map<String, AccountingRecord.Event> ev = new LinkedHashMap<>();
        ev.put("instructions", new AccountingRecord.Event(9_000_000_000L, 1_000_000_000L));
        ev.put("cycles", new AccountingRecord.Event(12, 3));
        String line = sample(new AccountingRecord.Hwc(true, ev)).toJson();
        AccountingRecord r = AccountingRecord.parse(line);
        assertEquals("/apps/cg \"x\"", r.exe());
        assertEquals(Instant.parse("2026-01-05T10:00:00Z"), r.start());
        assertEquals(4, r.ranks());
        assertEquals(12.35, r.mpiPct());
        assertEquals(List.of(new AccountingRecord.Top("MPI_Allreduce", 1.5, 4000),
                new AccountingRecord.Top("MPI_Bcast", 0, 40)), r.top());
        assertEquals(true, r.hwc().hardware());
        assertEquals(List.of("instructions", "cycles"), List.copyOf(r.hwc().events().keySet()));
        assertEquals(new AccountingRecord.Event(9_000_000_000L, 1_000_000_000L), r.hwc().events().get("instructions"));
        assertEquals(line, r.toJson());
    }

    @Test
    void minimalAndUnknownFields() throws Exception {
        AccountingRecord r = AccountingRecord.parse("{\"schema\":\"jpmpi-accounting-1\",\"job\":\"j\",\"user\":\"u\","
                + "\"exe\":\"e\",\"end\":\"2026-02-01T00:00:00Z\",\"wall_s\":900,\"ranks\":2,\"core_h\":0.5,"
                + "\"mpi_pct\":0,\"later\":{\"x\":[1,2]}}");
        assertNull(r.hwc());
        assertNull(r.start());
        assertEquals(List.of(), r.top());
        assertEquals(0.5, r.coreH());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"schema\":\"jpmpi-accounting-1\",\"job\":\"j\",\"user\":\"u\"|truncated JSON",
        "garbage here|malformed JSON (Unrecognized token 'garbage': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false'))",
        "[1,2]|not a JSON object",
        "{\"schema\":\"jpmpi-accounting-0\",\"job\":\"j\"}|schema 'jpmpi-accounting-0' is not jpmpi-accounting-1",
        "{\"job\":\"j\"}|no schema field (not a jpmpi accounting record)",
        "{\"schema\":\"jpmpi-accounting-1\",\"job\":\"j\",\"user\":\"u\",\"exe\":\"e\",\"end\":\"2026-02-01T00:00:00Z\",\"wall_s\":1,\"core_h\":1,\"mpi_pct\":1}|no ranks field",
        "{\"schema\":\"jpmpi-accounting-1\",\"ranks\":\"4\"}|ranks is not an integer",
        "{\"schema\":\"jpmpi-accounting-1\",\"end\":\"yesterday\"}|end 'yesterday' is not an ISO-8601 UTC time",
        "{\"schema\":\"jpmpi-accounting-1\",\"mpi_pct\":140}|mpi_pct 140.0 is over 100",
        "{\"schema\":\"jpmpi-accounting-1\",\"core_h\":-1}|core_h -1 is negative or not finite",
        "{\"schema\":\"jpmpi-accounting-1\"} {}|text after the record",
        "{\"schema\":\"jpmpi-accounting-1\",\"top\":[[\"MPI_Send\"]]}|top seconds is not a number",
        "{\"schema\":\"jpmpi-accounting-1\",\"core_h\":1,\"core_h\":30}|a key twice: Duplicate field 'core_h'",
        "{\"schema\":\"jpmpi-accounting-1\",\"wall_s\":1e308}|wall_s 1.0E308 is more than 1.0E9 s",
        "{\"schema\":\"jpmpi-accounting-1\",\"wall_s\":NaN}|NaN and Infinity are not JSON numbers",
        "{\"schema\":\"jpmpi-accounting-1\",\"core_h\":1e999}|core_h 1e999 is negative or not finite",
        "{\"schema\":\"jpmpi-accounting-1\",\"ranks\":99999999999999999999}|ranks 99999999999999999999 is out of range",
        "{\"schema\":\"jpmpi-accounting-1\",\"top\":[[\"MPI_Send\",1,-5]]}|top calls -5 is negative",
        "{\"schema\":\"jpmpi-accounting-1\",\"hwc\":{\"events\":{\"cycles\":{\"total\":5,\"mpi\":6}}}}|hwc cycles.mpi 6 is more than its total 5",
        "{\"schema\":\"jpmpi-accounting-1\",\"job\":\"j\",\"user\":\"u\",\"exe\":\"e\",\"end\":\"2026-02-01T00:00:00Z\",\"wall_s\":3600,\"ranks\":4,\"core_h\":1e308,\"mpi_pct\":1}|core_h 1.0E308 is not ranks x wall_s / 3600 (4 x 3600.0 / 3600 = 4.0)",
        "{\"schema\":\"jpmpi-accounting-1\",\"job\":\"j\",\"user\":\"u\",\"exe\":\"e\",\"end\":\"2026-02-01T00:00:00Z\",\"wall_s\":0,\"ranks\":1,\"core_h\":1e-300,\"mpi_pct\":1}|core_h 1.0E-300 is below 0.000001, the smallest written",
        "{\"schema\":\"jpmpi-accounting-1\",\"job\":\"j\",\"user\":\"u\",\"exe\":\"e\",\"start\":\"2026-02-02T00:00:00Z\",\"end\":\"2026-02-01T00:00:00Z\",\"wall_s\":3600,\"ranks\":4,\"core_h\":4,\"mpi_pct\":1}|start 2026-02-02T00:00:00Z is after end 2026-02-01T00:00:00Z",
    })
    void refusesWithAReason(String line, String why) {
        AccountingRecord.FormatException e = assertThrows(AccountingRecord.FormatException.class,
                () -> AccountingRecord.parse(line));
        assertEquals(why, e.getMessage());
    }
}
