package io.jpmpi.profilers.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.profilers.report.Stat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ranks' sites/rank-R.tsv merged: threads added up, the spread over ranks with absent ranks as 0. */
class SiteTablesTest {
    private static final String HEAD = "# function\tmodule\toffset\taddress\tsymbol\tcalls\tseconds\tbytes\n";

    private static void table(Path dir, int rank, String... lines) throws IOException {
        Files.createDirectories(dir.resolve("sites"));
        Files.writeString(dir.resolve("sites/rank-" + rank + ".tsv"), HEAD + String.join("\n", lines) + "\n");
    }

    private static String line(String fn, String module, long offset, String symbol, long calls, double s,
                               long bytes) {
        return fn + "\t" + module + "\t0x" + Long.toHexString(offset) + "\t0x" + Long.toHexString(0x5500000000L + offset)
                + "\t" + symbol + "\t" + calls + "\t" + s + "\t" + bytes;
    }

    @Test
    void threadsAddUpAndAbsentRanksCountZero(@TempDir Path dir) throws IOException {
        assertFalse(SiteTables.present(dir));
        // rank 0: the site from two threads; rank 2: once; rank 1: another site only; rank 3: no table
        table(dir, 0, line("MPI_Send", "/x/app", 0x11a9, "?", 10, 0.5, 1000),
                line("MPI_Send", "/x/app", 0x11a9, "?", 5, 0.25, 500),
                line("MPI_Recv", "/x/libm.so", 0x2000, "lib_recv+0x10", 1, 0.125, 8));
        table(dir, 1, line("MPI_Barrier", "/x/app", 0x1300, "?", 3, 0.0625, 0));
        table(dir, 2, line("MPI_Send", "/x/app", 0x11a9, "?", 20, 1.0, 2000));
        assertTrue(SiteTables.present(dir));
        SiteTables.Merged m = SiteTables.read(dir, 4);
        assertEquals("1 of 4 ranks left no sites/rank-R.tsv (their sites count 0)", m.problem());
        assertEquals(List.of("MPI_Send", "MPI_Recv", "MPI_Barrier"),
                m.sites().stream().map(SiteTables.Raw::function).toList()); // most time first
        SiteTables.Raw send = m.sites().get(0);
        assertEquals("/x/app", send.module());
        assertEquals(0x11a9, send.offset());
        assertNull(send.symbol());
        // per rank: 15, 0, 20, 0 calls
        assertEquals(Stat.of(new double[] {15, 0, 20, 0}), send.calls());
        assertEquals(Stat.of(new double[] {0.75, 0, 1.0, 0}), send.timeSeconds());
        assertEquals(Stat.of(new double[] {1500, 0, 2000, 0}), send.bytes());
        assertEquals(1, send.calls().minRank());
        assertEquals(2, send.calls().maxRank());
        SiteTables.Raw recv = m.sites().get(1);
        assertEquals("lib_recv+0x10", recv.symbol());
        assertEquals(Stat.of(new double[] {1, 0, 0, 0}), recv.calls());
        SiteTables.Raw barrier = m.sites().get(2);
        assertEquals(0, barrier.calls().minRank());
        assertEquals(1, barrier.calls().maxRank());
    }

    @Test
    void badLinesAreSkippedAndSaidOnce(@TempDir Path dir) throws IOException {
        table(dir, 0, line("MPI_Send", "/x/app", 0x10, "?", 1, 0.5, 0), "MPI_Send\t/x/app\tnot-hex\t0x1\t?\t1\t0\t0",
                "short\tline", line("MPI_Send", "/x/app", 0x10, "?", 1, 0.5, 0));
        table(dir, 1, line("MPI_Send", "/x/app", 0x10, "?", 2, 1, 0));
        table(dir, 7, line("MPI_Send", "/x/app", 0x10, "?", 2, 1, 0));
        SiteTables.Merged m = SiteTables.read(dir, 2);
        assertEquals("sites/rank-7.tsv: no rank 7 in a job of 2 ranks (ignored); sites/rank-0.tsv: 2 lines skipped"
                + " (line 3: not a number where one is expected)", m.problem());
        assertEquals(1, m.sites().size());
        assertEquals(Stat.of(new double[] {2, 2}), m.sites().get(0).calls());
    }
}
