package io.jpmpi.profilers.mpit;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.jpmpi.layering.Level;
import io.jpmpi.layering.generated.Constants;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.Mpi;
import io.jpmpi.layering.generated.MpiFunctions;
import io.jpmpi.layering.generated.Variables;
import io.jpmpi.profilers.profile.Recorder;
import io.jpmpi.profilers.report.AtomicFile;
import io.jpmpi.profilers.report.OwnDirectory;
import io.jpmpi.profilers.report.Reports;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The mpit tool's results: one {@link RankResult} per rank, gathered to rank 0 on a duplicate of
 * MPI_COMM_WORLD at MPI_Finalize, written as mpit.json (schema jpmpi-mpit-1) and mpit.txt into the
 * output directory; when the profile tool wrote its report there, the reports are rendered again
 * with an MPI_T section.
 */
final class Results {
    static final String SCHEMA = "jpmpi-mpit-1";
    static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private Results() {
    }

    /** What one rank read. */
    record RankResult(int rank, String mode, int pvarsBeforeInit, int pvarsAfterInit, int cvars, List<String> cvarsSet,
            List<String> notes, Map<String, List<String>> uncoveredBinds, List<String> regions,
            Map<String, Long> calls, long handlesAllocated, long handlesFreed, int quietFreed, int readHandles,
            double readAllNs,
            List<WatchResult> watches) {
    }

    /**
     * One variable on one object. {@code derive} says which of the value fields are meaningful:
     * delta (counters, timers, aggregates: {@code value - first}), range (levels, percentages:
     * min/avg/max of the readings), watermark (the value, {@code moves} and {@code moved}), raw
     * (state, size, generic: {@code value}). Every field is per element ({@code count} of them).
     */
    record WatchResult(String name, String varClass, String derive, String bind, String object, String type, int count,
            boolean continuous, boolean readonly, long reads, long failures, String failure, double[] first,
            double[] value, double[] min, double[] max, double[] avg, long[] moves, double[] moved,
            Map<String, double[]> functions, List<double[]> regions) {
    }

    /** mpit.json. */
    record Document(String schema, String mpi, String mode, int ranks, List<RankResult> perRank) {
    }

    static RankResult of(Mpit m, int rank) {
        Map<String, Long> calls = new LinkedHashMap<>();
        for (int id = 0; id <= MpiFunctions.COUNT; id++) {
            if (m.calls[id] > 0) {
                calls.put(functionName(id), m.calls[id]);
            }
        }
        List<WatchResult> ws = new ArrayList<>();
        int quietFreed = 0;
        for (Watch w : m.watches) {
            if (!w.valid()) {
                continue;
            }
            if (w.objectFreed && w.quiet()) {
                quietFreed++; // a freed object's variable that never changed: counted, not listed
                continue;
            }
            Map<String, double[]> byFunction = new LinkedHashMap<>();
            for (int id = 0; id <= MpiFunctions.COUNT; id++) {
                if (w.byFunction[id] != null) {
                    byFunction.put(functionName(id), w.byFunction[id]);
                }
            }
            double[] avg = new double[w.count];
            for (int i = 0; i < w.count; i++) {
                avg[i] = w.reads > 0 ? w.sum[i] / w.reads : w.first[i];
            }
            List<double[]> regions = new ArrayList<>(w.byRegion);
            ws.add(new WatchResult(w.var.name(), w.var.className(), w.var.derive().name().toLowerCase(),
                    w.var.bindName(), w.object, w.var.type().mpiName, w.count, w.var.continuous(), w.var.readonly(),
                    w.reads, w.failures, w.failure, w.first, w.last(), w.min, w.max, avg, w.moves, w.moved, byFunction,
                    regions));
        }
        Map<String, List<String>> uncovered = new LinkedHashMap<>();
        m.uncovered.forEach((k, v) -> uncovered.put(k, List.copyOf(v)));
        return new RankResult(rank, m.options().describe(), m.pvarsBeforeInit, m.pvarsAfterInit, m.cvarCount,
                m.cvarsSet, m.notes(), uncovered, m.regions, calls, m.allocated, m.freed, quietFreed, m.readHandles,
                m.readAllNs, ws);
    }

    static String functionName(int id) {
        return id == Watch.BETWEEN ? "(between calls)" : MpiFunctions.name(id);
    }

    /** Every rank: gathers the results to rank 0, which writes them. Collective over MPI_COMM_WORLD. */
    static void publish(Mpit m, Level level) {
        Mpi mpi = level.library();
        MPI_Comm comm;
        try {
            comm = level.dupComm(Constants.MPI_COMM_WORLD);
        } catch (RuntimeException e) {
            level.message("mpit: cannot write results: " + e.getMessage());
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            int rank = level.commRank(comm);
            int size = level.commSize(comm);
            byte[] mine;
            try {
                mine = JSON.writeValueAsBytes(of(m, rank));
            } catch (IOException | RuntimeException e) {
                level.message("mpit: cannot encode this rank's results: " + e);
                mine = new byte[0];
            }
            MemorySegment len = arena.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, mine.length);
            MemorySegment lens = arena.allocate(JAVA_INT, size);
            check(mpi.MPI_Gather(len.address(), 1, Constants.MPI_INT, lens.address(), 1, Constants.MPI_INT, 0, comm),
                    "MPI_Gather");
            MemorySegment displs = arena.allocate(JAVA_INT, size);
            long total = 0;
            for (int r = 0; r < size && rank == 0; r++) {
                displs.setAtIndex(JAVA_INT, r, (int) total);
                total += lens.getAtIndex(JAVA_INT, r);
            }
            if (total > Integer.MAX_VALUE) {
                throw new IllegalStateException("results larger than 2 GB");
            }
            MemorySegment send = arena.allocate(Math.max(1, mine.length));
            MemorySegment.copy(mine, 0, send, ValueLayout.JAVA_BYTE, 0, mine.length);
            MemorySegment recv = arena.allocate(Math.max(1, total));
            check(mpi.MPI_Gatherv(send.address(), mine.length, Constants.MPI_BYTE, recv.address(), lens.address(),
                    displs.address(), Constants.MPI_BYTE, 0, comm), "MPI_Gatherv");
            String dir = outputDir(level, comm, arena);
            if (rank == 0) {
                List<RankResult> all = new ArrayList<>();
                for (int r = 0; r < size; r++) {
                    int n = lens.getAtIndex(JAVA_INT, r);
                    if (n == 0) {
                        continue;
                    }
                    byte[] b = recv.asSlice(displs.getAtIndex(JAVA_INT, r), n).toArray(ValueLayout.JAVA_BYTE);
                    all.add(JSON.readValue(b, RankResult.class));
                }
                write(new Document(SCHEMA, level.implementation(), m.options().describe(), size, all), Path.of(dir),
                        level);
            }
        } catch (IOException | RuntimeException e) {
            level.message("mpit: cannot write results: " + e);
        } finally {
            try {
                level.freeComm(comm);
            } catch (RuntimeException e) {
                level.message("mpit: " + e.getMessage());
            }
        }
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " returned MPI error " + rc);
        }
    }

    /**
     * Where to write: JPMPI_OUTPUT_DIR, else the profile recorder's directory (when it is a level of
     * this job), else a new jpmpi-mpit-&lt;time&gt; directory chosen by rank 0 and broadcast.
     */
    static String outputDir(Level level, MPI_Comm comm, Arena arena) {
        String dir = System.getenv(Variables.OUTPUT_DIR);
        if (dir == null || dir.isEmpty()) {
            dir = Recorder.find().map(r -> r.outputDir().toString()).orElse(null);
        }
        if (dir != null && !dir.isEmpty()) {
            return dir;
        }
        MemorySegment buf = arena.allocate(4096);
        if (level.commRank(comm) == 0) {
            buf.setString(0, "jpmpi-mpit-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        }
        check(level.library().MPI_Bcast(buf.address(), 4096, Constants.MPI_BYTE, 0, comm), "MPI_Bcast");
        return buf.getString(0);
    }

    static void write(Document doc, Path dir, Level level) throws IOException {
        OwnDirectory.make(dir);
        Path json = dir.resolve(Mpit.JSON);
        AtomicFile.write(json, w -> w.write(JSON.writeValueAsString(doc)));
        String text = MpitText.render(doc);
        Path txt = dir.resolve(Mpit.TEXT);
        AtomicFile.write(txt, w -> w.write(text));
        try {
            Reports.includeInProfileReports(dir);
        } catch (IOException | RuntimeException e) {
            level.message("mpit: cannot add the MPI_T section to the profile's reports: " + e.getMessage());
        }
        level.message("mpit: " + json + " and " + Mpit.TEXT + " written");
    }
}
