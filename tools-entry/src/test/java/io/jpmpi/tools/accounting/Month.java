package io.jpmpi.tools.accounting;

import io.jpmpi.profilers.accounting.AccountingRecord;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A generated month of records, deterministic, with known totals. January 2026, one job per user and
 * day, ending at noon UTC:
 * <ul>
 * <li>alice: /apps/cg, 4 ranks, 1 h: 4 core-hours, 20 % MPI, every day (31 jobs);</li>
 * <li>bob: /apps/lammps, 16 ranks, 0.5 h: 8 core-hours, 50 % MPI, 2e9 instructions per core-second,
 * every day (31 jobs);</li>
 * <li>carol: /apps/cg, 2 ranks, 2 h: 4 core-hours, 10 % MPI, on the 7th, 14th, 21st and 28th.</li>
 * </ul>
 * Plus alice on 2025-12-30 (ISO week 2026-W01) and on 2026-02-01, and lines that are not records.
 */
public final class Month {
    public static final double BOB_IPS = 2e9;

    private Month() {
    }

    static AccountingRecord job(String user, String exe, int ranks, double wallS, double mpiPct, LocalDate day,
                                AccountingRecord.Hwc hwc) {
        Instant end = day.atTime(12, 0).toInstant(ZoneOffset.UTC);
        return new AccountingRecord(user + "-" + day, user, exe, "n01", "openmpi 4.1.4",
                end.minusSeconds((long) wallS), end, wallS, ranks, 1, ranks * wallS / 3600, mpiPct,
                List.of(new AccountingRecord.Top("MPI_Allreduce", 1, 10)), hwc, 5);
    }

    public static List<AccountingRecord> records() {
        List<AccountingRecord> out = new ArrayList<>();
        out.add(job("alice", "/apps/cg", 4, 3600, 20, LocalDate.of(2025, 12, 30), null));
        for (int d = 1; d <= 31; d++) {
            LocalDate day = LocalDate.of(2026, 1, d);
            out.add(job("alice", "/apps/cg", 4, 3600, 20, day, null));
            long ins = (long) (BOB_IPS * 16 * 1800);
            out.add(job("bob", "/apps/lammps", 16, 1800, 50, day, new AccountingRecord.Hwc(true,
                    Map.of("instructions", new AccountingRecord.Event(ins, ins / 10)))));
            if (d % 7 == 0) {
                out.add(job("carol", "/apps/cg", 2, 7200, 10, day, null));
            }
        }
        out.add(job("alice", "/apps/cg", 4, 3600, 20, LocalDate.of(2026, 2, 1), null));
        return out;
    }

    /** The lines not to count: a torn record, garbage, another schema, a wrong type; and a blank line. */
    public static final List<String> CORRUPT = List.of(
            "{\"schema\":\"jpmpi-accounting-1\",\"job\":\"x\",\"user\":\"mallory\",\"exe\":\"/a",
            "#!&% not json",
            "{\"schema\":\"other-accounting-7\",\"job\":\"x\",\"user\":\"mallory\"}",
            "{\"schema\":\"jpmpi-accounting-1\",\"job\":\"x\",\"user\":\"mallory\",\"exe\":\"/a\",\"end\":\"2026-01-03T00:00:00Z\",\"wall_s\":1,\"ranks\":\"many\",\"core_h\":1,\"mpi_pct\":1}");

    /** The file's text: records and corrupt lines interleaved; returns the 1-based line of each corrupt one. */
    public static String text(List<Integer> corruptLines) {
        StringBuilder b = new StringBuilder();
        List<AccountingRecord> rs = records();
        int line = 0;
        for (int i = 0; i < rs.size(); i++) {
            b.append(rs.get(i).toJson()).append('\n');
            line++;
            if (i % 20 == 5 && i / 20 < CORRUPT.size()) {
                b.append(CORRUPT.get(i / 20)).append('\n');
                corruptLines.add(++line);
            }
            if (i == 10) {
                b.append('\n');
                line++;
            }
        }
        return b.toString();
    }
}
