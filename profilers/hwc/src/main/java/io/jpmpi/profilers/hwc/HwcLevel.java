package io.jpmpi.profilers.hwc;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.generated.Constants;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.Mpi;
import io.jpmpi.layering.generated.Variables;
import io.jpmpi.profilers.CLevels;
import io.jpmpi.profilers.report.AtomicFile;
import io.jpmpi.profilers.report.OwnDirectory;
import io.jpmpi.profilers.report.Reports;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Java level of the {@code hwc} tool. The C level above it (libjpmpi-hwc.so) reads the
 * counters around every MPI call; this level overrides nothing on the hot path. At MPI_Finalize,
 * while MPI still works and on a duplicate of MPI_COMM_WORLD, it gathers every rank's counts and
 * sums the per-function figures to rank 0, which writes hwc.json and hwc.txt into the output
 * directory and prints a one-line summary. Every rank runs the same collectives whatever fails
 * locally (a rank without figures sends zeros).
 */
@SuppressWarnings("restricted") // the profile recorder's output directory, a C string
public final class HwcLevel extends Interceptor {
    /** The text report, also a section of the profile tool's reports when it runs too (Reports.EXTRA_FILES). */
    static final String TEXT = "hwc.txt";
    private static final String[] JOB_IDS = {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "JOB_ID",
        "OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE", "PMI_KVSNAME"};

    @Override
    public void beforeFinalize() {
        Optional<HwcLibrary> found = HwcLibrary.find();
        if (found.isEmpty()) {
            level().message("hwc: " + HwcLibrary.LIBRARY + " is not in the entry list above this jar; nothing was"
                    + " counted (use the launcher's --tools hwc, or list the library first)");
            return;
        }
        HwcLibrary lib = found.get();
        MPI_Comm comm = level().dupComm(Constants.MPI_COMM_WORLD);
        try (Arena arena = Arena.ofConfined()) {
            run(arena, lib, comm);
        } finally {
            level().freeComm(comm);
        }
    }

    private void run(Arena arena, HwcLibrary lib, MPI_Comm comm) {
        Mpi mpi = level().library();
        int rank = level().commRank(comm);
        int size = level().commSize(comm);
        RankCounts mine = null;
        List<HwcLibrary.FunctionCounts> functions = List.of();
        try {
            mine = lib.rank(rank);
            functions = lib.functions(mine.events().size());
        } catch (RuntimeException e) {
            System.err.println("jpmpi (rank " + rank + "): hwc: " + e);
        }
        long[] packed = mine != null ? mine.pack() : new long[RankCounts.SIZE];
        MemorySegment in = longs(arena, packed);
        MemorySegment all = arena.allocate(8L * RankCounts.SIZE * size, 8);
        check(mpi.MPI_Gather(in.address(), RankCounts.SIZE, Constants.MPI_LONG_LONG, all.address(), RankCounts.SIZE,
                Constants.MPI_LONG_LONG, 0, comm), "MPI_Gather");
        // Functions: the same list on every rank (one library); calls, ns, samples, events[MAX] each, summed.
        int nf = (int) bcast(arena, mpi, comm, functions.size());
        int width = 3 + HwcLibrary.MAX_EVENTS;
        long[] f = new long[nf * width];
        for (int i = 0; i < nf && functions.size() == nf; i++) {
            HwcLibrary.FunctionCounts c = functions.get(i);
            f[i * width] = c.calls();
            f[i * width + 1] = Math.round(c.seconds() * 1e9);
            f[i * width + 2] = c.samples();
            System.arraycopy(c.events(), 0, f, i * width + 3, c.events().length);
        }
        MemorySegment fin = longs(arena, f);
        MemorySegment fout = arena.allocate(8L * Math.max(f.length, 1), 8);
        check(mpi.MPI_Reduce(fin.address(), fout.address(), f.length, Constants.MPI_LONG_LONG, Constants.MPI_SUM, 0,
                comm), "MPI_Reduce");
        if (rank != 0 || mine == null || mine.events().isEmpty()) {
            if (rank == 0) {
                level().message("hwc: no counters were open on rank 0; nothing to report");
            }
            return;
        }
        long[] g = all.toArray(JAVA_LONG);
        List<RankCounts> ranks = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            ranks.add(RankCounts.unpack(r, g, r * RankCounts.SIZE, mine.events()));
        }
        long[] sums = fout.asSlice(0, 8L * f.length).toArray(JAVA_LONG);
        int nev = mine.events().size();
        List<HwcLibrary.FunctionCounts> summed = new ArrayList<>();
        for (int i = 0; i < nf; i++) {
            long[] ev = new long[nev];
            System.arraycopy(sums, i * width + 3, ev, 0, nev);
            summed.add(new HwcLibrary.FunctionCounts(functions.get(i).name(), sums[i * width], sums[i * width + 1] / 1e9,
                    ev, sums[i * width + 2]));
        }
        HwcReport report = new HwcReport(ranks, summed, lib.method(), lib.mode());
        Path dir = outputDir();
        try {
            OwnDirectory.make(dir);
            AtomicFile.write(dir.resolve("hwc.json"), w -> w.write(report.json()));
            AtomicFile.write(dir.resolve(TEXT), w -> w.write(report.text()));
            level().message(report.summary() + " (" + dir.resolve(TEXT) + ")");
        } catch (IOException | RuntimeException e) {
            System.err.println("jpmpi (rank 0): hwc: cannot write into " + dir + ": " + e);
            System.err.print(report.text());
            return;
        }
        try {
            Reports.includeInProfileReports(dir);
        } catch (IOException | RuntimeException e) {
            level().message("hwc: cannot add the hardware counters to the profile's reports: " + e.getMessage());
        }
    }

    /**
     * The output directory, by the profile tool's rule: JPMPI_OUTPUT_DIR, else the directory the
     * profile tool chose if it runs too, else jpmpi-&lt;job&gt; in the working directory.
     */
    static Path outputDir() {
        String env = System.getenv(Variables.OUTPUT_DIR);
        if (env != null && !env.isEmpty()) {
            return Path.of(env).toAbsolutePath();
        }
        Optional<Path> profile = CLevels.find("libjpmpi-profile.so");
        if (profile.isPresent()) {
            MethodHandle h = CLevels.handle(CLevels.open(profile.get()), profile.get(), "jpmpi_profile_output_dir",
                    FunctionDescriptor.of(ADDRESS));
            try {
                return Path.of(((MemorySegment) h.invokeExact()).reinterpret(8192).getString(0));
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
        for (String job : JOB_IDS) {
            String v = System.getenv(job);
            if (v != null && !v.isEmpty()) {
                return Path.of("jpmpi-" + v.replace('/', '_').replace(' ', '_')).toAbsolutePath();
            }
        }
        String now = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        return Path.of("jpmpi-" + now + "-" + ProcessHandle.current().pid()).toAbsolutePath();
    }

    private static MemorySegment longs(Arena arena, long[] v) {
        MemorySegment m = arena.allocate(8L * Math.max(v.length, 1), 8);
        for (int i = 0; i < v.length; i++) {
            m.setAtIndex(JAVA_LONG, i, v[i]);
        }
        return m;
    }

    private static long bcast(Arena arena, Mpi mpi, MPI_Comm comm, long v) {
        MemorySegment m = longs(arena, new long[] {v});
        check(mpi.MPI_Bcast(m.address(), 1, Constants.MPI_LONG_LONG, 0, comm), "MPI_Bcast");
        return m.get(JAVA_LONG, 0);
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " returned MPI error " + rc);
        }
    }
}
