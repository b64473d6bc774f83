package io.jpmpi.profilers.hwc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The statistical error of a sampled split, as hwc.json and hwc.txt give it (no MPI needed). */
class SampledReportTest {
    private static final List<String> EVENTS = List.of("task-clock", "page-faults");

    private static RankCounts rank(int rank, long samples, long mpiSamples) {
        return new RankCounts(rank, 1, false, 2.0, 0.6, EVENTS, new long[] {2_000_000_000L, 100},
                new long[] {600_000_000L, 40}, samples, mpiSamples);
    }

    @Test
    void theIntervalIsTheBinomialNormalApproximation() {
        // p = 0.3, n = 100: 100 * 1.96 * sqrt(0.21 / 100) = 8.9818 points.
        assertEquals(8.9818, rank(0, 100, 30).ci95Points(), 1e-4);
        // Four times the samples halve it.
        assertEquals(8.9818 / 2, rank(0, 400, 120).ci95Points(), 1e-4);
        assertTrue(Double.isNaN(rank(0, 0, 0).ci95Points()), "no samples, no interval");
    }

    @Test
    void samplesSurviveTheGatherAndAddUp() {
        RankCounts a = rank(0, 100, 30);
        RankCounts back = RankCounts.unpack(0, a.pack(), 0, EVENTS);
        assertEquals(100, back.samples());
        assertEquals(30, back.mpiSamples());
        RankCounts sum = RankCounts.sum(List.of(a, rank(1, 300, 90)));
        assertEquals(400, sum.samples());
        assertEquals(120, sum.mpiSamples());
    }

    @Test
    void aSampledReportSaysTheModeTheSamplesAndTheIntervals() {
        HwcLibrary.Mode sampled = new HwcLibrary.Mode("sampled", 200, 60, 30);
        HwcReport r = new HwcReport(List.of(rank(0, 100, 30), rank(1, 100, 30)),
                List.of(new HwcLibrary.FunctionCounts("MPI_Allreduce", 0, 0.5, new long[] {500_000_000L, 3}, 50)),
                new HwcLibrary.ReadMethod("read", -1, 700), sampled);
        String json = r.json();
        assertTrue(json.contains("\"mode\":\"sampled\",\"sampling_per_s\":30.0"), json);
        assertTrue(json.contains("\"samples\":200,\"mpi_samples\":60,\"ci95_points\":6.35"), json);
        // task-clock in MPI: rank 0 6e8 of 2e9 +- 8.98 points of the total; all 1.2e9 of 4e9 +- 6.35 points.
        assertTrue(json.contains("\"task-clock\":[4.2036303"), json);
        assertTrue(json.contains("\"task-clock\":[9.4595496"), json);
        assertTrue(json.contains("{\"name\":\"MPI_Allreduce\",\"calls\":0,\"samples\":50,"), json);
        assertTrue(r.text().contains("split by sampling (30 overflows per second of the leading event): 200 samples,"
                + " 60 inside MPI"), r.text());
        assertTrue(r.text().contains("30.0 +- 6.4"), r.text());
        assertTrue(r.summary().contains("MPI 30.0 +- 6.4% of task-clock (sampled, 200 samples)"), r.summary());
    }

    @Test
    void aCountedReportHasNoSampleFields() {
        HwcReport r = new HwcReport(List.of(rank(0, 0, 0)), List.of(), new HwcLibrary.ReadMethod("read", -1, 700),
                new HwcLibrary.Mode("calls", 0, 0, 0));
        String json = r.json();
        assertTrue(json.contains("\"mode\":\"calls\",\"read\""), json);
        assertFalse(json.contains("samples") || json.contains("ci95"), json);
        assertTrue(r.summary().endsWith("(every call)"), r.summary());
    }
}
