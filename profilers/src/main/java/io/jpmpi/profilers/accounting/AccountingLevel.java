package io.jpmpi.profilers.accounting;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.Level;
import io.jpmpi.layering.generated.Constants;
import io.jpmpi.layering.generated.Mpi;
import io.jpmpi.profilers.profile.Recorder;
import io.jpmpi.profilers.profile.Snapshot;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Java level of the {@code accounting} tool: one {@link AccountingRecord} per job, appended at
 * MPI_Finalize to the file JPMPI_ACCOUNTING_FILE names (or the system log). The profile tool's C
 * recorder above it does the recording, so this level overrides nothing on the hot path. At
 * MPI_Finalize, on a duplicate of MPI_COMM_WORLD, every rank takes its snapshot, the per-function
 * times, the MPI and application times and the counter totals are reduced to rank 0 (a handful of
 * fixed-size collectives), and rank 0 writes the line. Every rank runs the same collectives whatever
 * fails locally, and nothing here may fail the job: every problem is one line on stderr.
 */
public final class AccountingLevel extends Interceptor {
    /** The setting (specs Settings.ACCOUNTING_FILE; the ranks' class path has no specs jar). */
    static final String FILE_VARIABLE = "JPMPI_ACCOUNTING_FILE";
    static final int TOP = 5;
    /** Batch systems first, then the MPI launchers' own job ids. */
    static final List<String> JOB_VARIABLES = List.of("SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID",
            "OMPI_MCA_orte_ess_jobid", "OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE", "PMI_KVSNAME");

    /** Found by the warm-up at MPI_Init (null until then, or if it failed: MPI_Finalize looks again). */
    private volatile Optional<Recorder> recorder;
    private volatile HwcTotals.Source counters;
    private Thread warmUp;

    /**
     * Starts the warm-up in the background: finding the libraries, creating the downcall handles and
     * loading the classes of the finalize path cost the cold JVM a few hundred ms, paid here while
     * the application runs instead of at MPI_Finalize. Nothing in it calls MPI.
     */
    @Override
    public void afterInit() {
        Thread t = new Thread(this::warmUp, "jpmpi-accounting-warm-up");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        warmUp = t;
        t.start();
    }

    private void warmUp() {
        try {
            Optional<Recorder> r = Recorder.find();
            r.ifPresent(Recorder::snapshot);
            recorder = r;
            HwcTotals.Source c = HwcTotals.Source.find();
            c.read();
            counters = c;
            new AccountingRecord("j", "u", "/x", "h", "m", Instant.EPOCH, Instant.now(), 1, 1, 1, 1, 1,
                    List.of(new AccountingRecord.Top("MPI_Send", 1, 1)), new AccountingRecord.Hwc(true,
                    Map.of("e", new AccountingRecord.Event(1, 1))), 1).toJson();
            ClassLoader mpiLoader = Mpi.class.getClassLoader();
            for (String f : new String[] {"MPI_Bcast", "MPI_Reduce", "MPI_Comm_dup", "MPI_Comm_split_type",
                    "MPI_Comm_free", "MPI_Comm_rank", "MPI_Comm_size"}) {
                try {
                    Class.forName(Mpi.class.getName() + "$H_" + f, true, mpiLoader); // creates its handle
                } catch (ClassNotFoundException | LinkageError e) {
                    // generated differently: the first call creates it
                }
            }
        } catch (Throwable e) {
            // MPI_Finalize does it all again and reports what fails
        }
    }

    @Override
    public void beforeFinalize() {
        long started = System.nanoTime();
        Level level = level();
        try {
            Thread t = warmUp;
            if (t != null) {
                t.join(2000); // normally long over; a slow one only shares the work below
            }
            String target = System.getenv(FILE_VARIABLE);
            Optional<Recorder> r = recorder != null ? recorder : Recorder.find();
            HwcTotals.Source c = counters != null ? counters : HwcTotals.Source.find();
            long comm = level.dupComm(Constants.MPI_COMM_WORLD);
            try (Arena arena = Arena.ofConfined()) {
                new Job(arena, level, comm, r, c, target, started).run();
            } finally {
                level.freeComm(comm);
            }
        } catch (Throwable e) {
            // never the job's failure: the record is lost, MPI_Finalize goes on
            System.err.println("jpmpi (rank " + level.worldRank() + "): accounting: no record (" + e + ")");
        }
    }

    /** One run of the finalize protocol. */
    private static final class Job {
        private final Level level;
        private final Collectives mpi;
        private final int rank;
        private final int size;
        private final Optional<Recorder> recorder;
        private final HwcTotals.Source counters;
        private final String target;
        private final long started;

        Job(Arena arena, Level level, long comm, Optional<Recorder> recorder, HwcTotals.Source counters,
            String target, long started) {
            this.level = level;
            this.mpi = new Collectives(arena, level, comm);
            this.rank = mpi.rank();
            this.size = mpi.size();
            this.recorder = recorder;
            this.counters = counters;
            this.target = target;
            this.started = started;
        }

        void run() {
            Snapshot s = null;
            String problem = null;
            if (recorder.isEmpty()) {
                problem = Recorder.LIBRARY + " is not in the entry list above this jar (use the launcher's"
                        + " --tools accounting, or list the library first)";
            } else {
                try {
                    s = recorder.get().snapshot();
                } catch (RuntimeException e) {
                    problem = "no snapshot from " + Recorder.LIBRARY + " (" + e + ")";
                }
            }
            HwcTotals.Found hwc = counters.read();
            int events = hwc.totals().map(t -> t.names().length).orElse(0);
            // Rank 0 decides: without a target, a recorder or a snapshot there is no record.
            boolean go = target != null && !target.isBlank() && s != null;
            int[] head = mpi.bcastInts(new int[] {go ? 1 : 0, s != null ? s.names().length : 0, events,
                    hwc.totals().map(HwcTotals::hardware).orElse(false) ? 1 : 0});
            if (rank == 0) {
                if (problem != null) {
                    level.message("accounting: " + problem + "; no record");
                } else if (target == null || target.isBlank()) {
                    level.message("accounting: " + FILE_VARIABLE + " is not set; no record");
                }
                if (hwc.notice() != null) {
                    level.message("accounting: " + hwc.notice());
                }
            }
            if (head[0] == 0) {
                return;
            }
            int nfunc = head[1];
            if (s != null && s.names().length != nfunc) {
                s = null; // another recorder build than rank 0's: contributes nothing
            }
            // Sums: application seconds, MPI seconds, then per function seconds; counts: contributors,
            // then per function calls, then the counters (matching rank 0's event list) total and in MPI.
            double[] seconds = new double[2 + nfunc];
            long[] counts = new long[1 + nfunc + 2 * head[2]];
            if (s != null) {
                seconds[0] = s.appSeconds();
                seconds[1] = s.mpiSeconds();
                counts[0] = 1;
                for (int f = 0; f < nfunc; f++) {
                    seconds[2 + f] = s.seconds(s.stats()[f][Snapshot.TICKS]);
                    counts[1 + f] = s.stats()[f][Snapshot.CALLS];
                }
            }
            String[] eventNames = mpi.bcastNames(hwc.totals().map(HwcTotals::names).orElse(new String[0]), head[2]);
            if (head[2] > 0 && hwc.totals().isPresent()
                    && Arrays.equals(hwc.totals().get().names(), eventNames)) {
                HwcTotals t = hwc.totals().get();
                for (int e = 0; e < head[2]; e++) {
                    counts[1 + nfunc + e] = t.total()[e];
                    counts[1 + nfunc + head[2] + e] = t.inMpi()[e];
                }
            }
            double[] sum = mpi.reduceDoubles(seconds, Constants.MPI_SUM);
            double wall = mpi.reduceDoubles(new double[] {seconds[0]}, Constants.MPI_MAX)[0];
            long[] total = mpi.reduceLongs(counts);
            int nodes = mpi.countNodes();
            if (rank != 0) {
                return;
            }
            Snapshot s0 = s;
            double mpiPct = sum[0] > 0 ? Math.min(100, 100 * sum[1] / sum[0]) : 0;
            List<AccountingRecord.Top> top = top(s.names(), sum, total);
            AccountingRecord.Hwc counters = null;
            if (head[2] > 0) {
                Map<String, AccountingRecord.Event> ev = new LinkedHashMap<>();
                for (int e = 0; e < head[2]; e++) {
                    ev.put(eventNames[e], new AccountingRecord.Event(total[1 + nfunc + e],
                            total[1 + nfunc + head[2] + e]));
                }
                counters = new AccountingRecord.Hwc(head[3] == 1, ev);
            }
            Instant start = Instant.ofEpochSecond(0, s.initUnixNs());
            String user = firstOf(List.of("USER", "LOGNAME")).orElse(System.getProperty("user.name", "?"));
            String job = firstOf(JOB_VARIABLES).orElseGet(() -> s0.host() + "-" + s0.pid() + "-"
                    + start.getEpochSecond());
            AccountingRecord r = new AccountingRecord(job, user, s.executable(), s.host(), s.impl(), start,
                    Instant.now(), wall, size, nodes, size * wall / 3600, mpiPct, top, counters,
                    (System.nanoTime() - started) / 1e6);
            String line = r.toJson();
            if (line.length() >= RecordSink.MAX_RECORD && counters != null) {
                level.message("accounting: the record is too long with its counters; written without them");
                line = new AccountingRecord(r.job(), r.user(), r.exe(), r.host(), r.mpi(), r.start(), r.end(),
                        r.wallS(), r.ranks(), r.nodes(), r.coreH(), r.mpiPct(), r.top(), null, r.acctMs()).toJson();
            }
            try {
                RecordSink.append(target, line);
            } catch (IOException | RuntimeException e) {
                level.message("accounting: cannot append the record to " + target + " (" + e.getMessage() + ")");
            }
        }

        /** The functions with the most time over the ranks (then the most calls), at most {@value #TOP}. */
        private static List<AccountingRecord.Top> top(String[] names, double[] sum, long[] total) {
            List<AccountingRecord.Top> all = new ArrayList<>();
            for (int f = 0; f < names.length; f++) {
                if (total[1 + f] > 0) {
                    all.add(new AccountingRecord.Top(names[f], sum[2 + f], total[1 + f]));
                }
            }
            all.sort(Comparator.comparingDouble(AccountingRecord.Top::seconds).reversed()
                    .thenComparing(Comparator.comparingLong(AccountingRecord.Top::calls).reversed())
                    .thenComparing(AccountingRecord.Top::function));
            return all.subList(0, Math.min(TOP, all.size()));
        }

        private static Optional<String> firstOf(List<String> variables) {
            for (String v : variables) {
                String value = System.getenv(v);
                if (value != null && !value.isBlank()) {
                    return Optional.of(value.trim());
                }
            }
            return Optional.empty();
        }
    }
}
