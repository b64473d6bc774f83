package io.jpmpi.profilers.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Profiles for the tests, built the way the profile level builds them: per-rank figures, then the
 * sums, the per-rank summaries ({@link Stat#of}), the blocks and the sparse matrices from them.
 * The job is a halo exchange on a ring: every iteration each rank posts an Isend and an Irecv to
 * either neighbour, waits for all four, and joins an Allreduce of one double.
 */
final class Fixtures {
    static final int ITERATIONS = 200;
    static final long HALO = 64 * 1024;

    private Fixtures() {
    }

    /** Four ranks on one host, realistic figures. */
    static Profile fourRanks() {
        return ring(4, false);
    }

    /** One function of the job, per rank, and its shortest and longest call on any rank. */
    private static final class Fn {
        final String name;
        final long[] calls;
        final double[] time;
        final long[] sent;
        final long[] recv;
        final long[][] histogram;
        double minCall = Double.MAX_VALUE;
        double maxCall;

        Fn(String name, int ranks) {
            this.name = name;
            calls = new long[ranks];
            time = new double[ranks];
            sent = new long[ranks];
            recv = new long[ranks];
            histogram = new long[ranks][Histogram.BUCKETS];
        }
    }

    /**
     * A halo exchange on {@code ranks} ranks (blocks of several ranks above 64). Times carry
     * random digits (fixed seed) so that the doubles do not have short decimal forms. Partial:
     * the last rank called MPI_Abort.
     */
    static Profile ring(int ranks, boolean partial) {
        Random rnd = new Random(7L * ranks + (partial ? 1 : 0));
        List<Fn> fns = new ArrayList<>();
        Fn waitall = new Fn("MPI_Waitall", ranks);
        Fn allreduce = new Fn("MPI_Allreduce", ranks);
        Fn isend = new Fn("MPI_Isend", ranks);
        Fn irecv = new Fn("MPI_Irecv", ranks);
        Fn barrier = new Fn("MPI_Barrier", ranks);
        Fn bcast = new Fn("MPI_Bcast", ranks);
        Fn commRank = new Fn("MPI_Comm_rank", ranks);
        fns.addAll(List.of(waitall, allreduce, isend, irecv, barrier, bcast, commRank));
        long[][] messages = new long[ranks][ranks];
        long[][] bytes = new long[ranks][ranks];
        double[] app = new double[ranks];
        int neighbours = ranks == 1 ? 0 : ranks == 2 ? 1 : 2;
        for (int r = 0; r < ranks; r++) {
            app[r] = 12.4 + 0.1 * rnd.nextDouble();
            long n = ITERATIONS;
            add(waitall, r, n, (0.9 + 0.8 * rnd.nextDouble()), 0, 0, 2e-6, 0.08, rnd);
            add(allreduce, r, n, (0.3 + 0.5 * rnd.nextDouble()), 8 * n, 8 * n, 8e-6, 0.03, rnd);
            add(isend, r, neighbours * n, 0.004 + 0.002 * rnd.nextDouble(), neighbours * n * HALO, 0, 1e-6, 4e-5, rnd);
            add(irecv, r, neighbours * n, 0.002 + 0.001 * rnd.nextDouble(), 0, neighbours * n * HALO, 6e-7, 2e-5, rnd);
            add(barrier, r, 2, 0.001 + 0.05 * rnd.nextDouble(), 0, 0, 3e-5, 0.05, rnd);
            add(bcast, r, 1, 1e-4 * (1 + rnd.nextDouble()), r == 0 ? 1024L * (ranks - 1) : 0, r == 0 ? 0 : 1024, 5e-5,
                    2e-4, rnd);
            add(commRank, r, 1, 1e-7 * (1 + rnd.nextDouble()), 0, 0, 1e-7, 2e-7, rnd);
            // Sizes: the halo messages, the allreduce's 8 bytes, nothing for the waits and the barrier.
            isend.histogram[r][Histogram.bucket(HALO)] = neighbours * n;
            irecv.histogram[r][Histogram.bucket(HALO)] = neighbours * n;
            allreduce.histogram[r][Histogram.bucket(8)] = n;
            waitall.histogram[r][0] = n;
            barrier.histogram[r][0] = 2;
            bcast.histogram[r][Histogram.bucket(r == 0 ? 1024L * (ranks - 1) : 1024)] = 1;
            commRank.histogram[r][0] = 1;
            if (neighbours > 0) {
                int right = (r + 1) % ranks;
                int left = (r + ranks - 1) % ranks;
                messages[r][right] += n;
                bytes[r][right] += n * HALO;
                if (left != right) {
                    messages[r][left] += n;
                    bytes[r][left] += n * HALO;
                }
            }
        }
        for (int r = 1; r < ranks; r++) {
            messages[0][r] += 1;
            bytes[0][r] += 1024;
        }
        return assemble(ranks, fns, app, messages, bytes, partial);
    }

    private static void add(Fn f, int r, long calls, double time, long sent, long recv, double minCall,
                            double maxCall, Random rnd) {
        f.calls[r] = calls;
        f.time[r] = time;
        f.sent[r] = sent;
        f.recv[r] = recv;
        f.minCall = Math.min(f.minCall, minCall * (1 + 0.1 * rnd.nextDouble()));
        f.maxCall = Math.max(f.maxCall, maxCall * (1 + 0.1 * rnd.nextDouble()));
    }

    private static Profile assemble(int ranks, List<Fn> fns, double[] app, long[][] messages, long[][] bytes,
                                    boolean partial) {
        // As the profile level does: a function no rank called is not listed, nor are its figures anywhere.
        fns.removeIf(f -> Arrays.stream(f.calls).sum() == 0);
        double[] mpi = new double[ranks];
        double[] calls = new double[ranks];
        double[] sent = new double[ranks];
        double[] recv = new double[ranks];
        long[] histogram = new long[Histogram.BUCKETS];
        List<FunctionProfile> functions = new ArrayList<>();
        for (Fn f : fns) {
            long[] h = new long[Histogram.BUCKETS];
            for (int r = 0; r < ranks; r++) {
                mpi[r] += f.time[r];
                calls[r] += f.calls[r];
                sent[r] += f.sent[r];
                recv[r] += f.recv[r];
                for (int k = 0; k < Histogram.BUCKETS; k++) {
                    h[k] += f.histogram[r][k];
                }
            }
            for (int k = 0; k < Histogram.BUCKETS; k++) {
                histogram[k] += h[k];
            }
            functions.add(new FunctionProfile(f.name, Arrays.stream(f.calls).sum(), Arrays.stream(f.time).sum(),
                    Arrays.stream(f.sent).sum(), Arrays.stream(f.recv).sum(), f.minCall, f.maxCall,
                    new FunctionProfile.PerRank(Stat.of(toDouble(f.calls)), Stat.of(f.time),
                            Stat.of(toDouble(f.sent)), Stat.of(toDouble(f.recv))),
                    trim(h)));
        }
        functions.sort((a, b) -> Double.compare(b.timeSeconds(), a.timeSeconds()));
        double[] pct = new double[ranks];
        for (int r = 0; r < ranks; r++) {
            pct[r] = 100 * mpi[r] / app[r];
        }
        List<Profile.RankRow> rows = new ArrayList<>();
        List<Profile.SparseRow> messageRows = new ArrayList<>();
        List<Profile.SparseRow> byteRows = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        long totalCalls = 0;
        for (int r = 0; r < ranks; r++) {
            String why = partial && r == ranks - 1 ? "MPI_Abort(errorcode 2)" : null;
            if (why != null) {
                reasons.add("rank " + r + ": " + why);
            }
            rows.add(new Profile.RankRow(r, "node" + (1 + r / 4), 40_000 + r, app[r], mpi[r], (long) calls[r], why));
            messageRows.add(sparse(messages[r]));
            byteRows.add(sparse(bytes[r]));
            totalCalls += (long) calls[r];
        }
        int hosts = (ranks + 3) / 4;
        double wall = Arrays.stream(app).max().orElse(0);
        Job job = new Job("4711", "/home/me/halo", "openmpi 4.1.4", hosts, "2026-11-21T10:00:00Z", wall);
        Profile.Summary summary = new Profile.Summary(Stat.of(app), Stat.of(mpi), Stat.of(pct), Stat.of(calls),
                Stat.of(sent), Stat.of(recv));
        Profile.Overhead overhead = new Profile.Overhead(14.2, totalCalls, totalCalls * 14.2e-9);
        List<ProfileDetails.RankFunctions> perRank = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            List<ProfileDetails.Entry> entries = new ArrayList<>();
            for (Fn f : fns) {
                if (f.calls[r] > 0) {
                    entries.add(new ProfileDetails.Entry(f.name, f.calls[r], f.time[r], f.sent[r], f.recv[r]));
                }
            }
            perRank.add(new ProfileDetails.RankFunctions(entries));
        }
        return new Profile(Profile.SCHEMA, partial, List.copyOf(reasons), job, ranks, summary, overhead,
                List.copyOf(functions), trim(histogram), blocks(ranks, app, mpi, messages, bytes), List.copyOf(rows),
                List.copyOf(messageRows), List.copyOf(byteRows), new ProfileDetails(null, 0, perRank));
    }

    /** {@code p} with a run as the launcher records it and a measured timer resolution of 10 ns. */
    static Profile withDetails(Profile p) {
        return p.withDetails(new ProfileDetails(new ProfileDetails.Run(ProfileDetails.FROM_LAUNCHER, List.of("mpirun", "-np", "4", "./halo"),
                "profile", "/home/me/out", 13.5, java.util.Map.of("JPMPI_PROFILE_OUTPUT", "on", "JPMPI_OUTPUT_DIR",
                "/home/me/out")), 1e-8, p.details().rankFunctions()));
    }

    /* ---- call sites (schema 3, issue 21) ---- */

    /**
     * {@code p} (with per-rank functions) with call sites, their figures the ranks' own: MPI_Waitall
     * from two lines of halo.c (half the calls each, 3/4 and 1/4 of the time), the Allreduce from a
     * line of a library, the Barrier from a module without debug information (dynamic symbol), the
     * Bcast named by module+offset only.
     */
    static Profile withSites(Profile p) {
        List<ProfileDetails.RankFunctions> rows = p.details().rankFunctions();
        List<CallSites.Site> sites = new ArrayList<>();
        sites.add(site(rows, "MPI_Waitall", 0.5, 0.75, "/home/me/halo", 0x1234, CallSites.Resolved.LINE,
                "/home/me/halo.c", 42, "exchange", null));
        sites.add(site(rows, "MPI_Waitall", 0.5, 0.25, "/home/me/halo", 0x1288, CallSites.Resolved.LINE,
                "/home/me/halo.c", 57, "main", null));
        sites.add(site(rows, "MPI_Allreduce", 1, 1, "/usr/lib/libsolver.so.2", 0x2f00, CallSites.Resolved.LINE,
                "solver.c", 311, "solver_norm", "solver_norm+0x1c"));
        sites.add(site(rows, "MPI_Barrier", 1, 1, "/home/me/tool", 0x7a0, CallSites.Resolved.SYMBOL, null, 0, null,
                "run_step+0x40"));
        sites.add(site(rows, "MPI_Bcast", 1, 1, "/home/me/stripped", 0x9bc, CallSites.Resolved.MODULE, null, 0, null,
                null));
        sites.sort(java.util.Comparator.comparingDouble((CallSites.Site x) -> x.timeSeconds().sum()).reversed());
        return p.withSites(new CallSites("no debug information for some sites in stripped (addr2line answered ??)",
                sites));
    }

    /** A site with {@code callShare} of each rank's calls of {@code function} and {@code timeShare} of its time. */
    private static CallSites.Site site(List<ProfileDetails.RankFunctions> rows, String function, double callShare,
                                       double timeShare, String module, long offset, CallSites.Resolved how,
                                       String file, int line, String name, String symbol) {
        int ranks = rows.size();
        double[][] v = new double[3][ranks];
        for (int r = 0; r < ranks; r++) {
            ProfileDetails.Entry e = rows.get(r).get(function);
            if (e != null) {
                v[0][r] = Math.floor(e.calls() * callShare);
                v[1][r] = e.timeSeconds() * timeShare;
                v[2][r] = Math.floor((e.bytesSent() + e.bytesRecv()) * callShare);
            }
        }
        return new CallSites.Site(function, module, offset, how, file, line, name, symbol, Stat.of(v[0]),
                Stat.of(v[1]), Stat.of(v[2]));
    }

    /* ---- end of call sites ---- */

    /**
     * {@code p} (of {@link #fourRanks}) with schema 3's breakdown: jpmpi's own start and finalize per
     * rank, the Allreduce's buffer bytes (8 bytes a call: a quarter of its pairwise bytes sent on 4 ranks
     * would be 3 x 8) and its calls in the communicator-size bucket of 4 processes, the time by size of
     * MPI_Isend half in the bucket its calls are in, the Bcast's buffer bytes 1 KiB a call on 1 to 3
     * processes.
     */
    static Profile withBreakdown(Profile p) {
        FunctionProfile allreduce = function(p, "MPI_Allreduce");
        FunctionProfile isend = function(p, "MPI_Isend");
        FunctionProfile bcast = function(p, "MPI_Bcast");
        double[] start = {0.0012, 0.0011, 0.0015, 0.0013};
        double[] fin = {0.0003, 0.0002, 0.0002, 0.00025};
        int k = 0;
        while (isend.histogram()[k] == 0) {
            k++;
        }
        double[] bySize = new double[k + 1];
        bySize[k] = isend.timeSeconds() / 2;
        ProfileBreakdown b = new ProfileBreakdown(new ProfileBreakdown.Cost(Stat.of(start), Stat.of(fin), 0.0021),
                List.of(new ProfileBreakdown.FunctionDetail("MPI_Allreduce", 8 * allreduce.calls(), new double[0],
                        new long[] {0, 0, allreduce.calls()}, new double[] {0, 0, allreduce.timeSeconds() * 0.75}),
                        new ProfileBreakdown.FunctionDetail("MPI_Isend", 0, bySize, new long[0], new double[0]),
                        new ProfileBreakdown.FunctionDetail("MPI_Bcast", 1024 * bcast.calls(), new double[0],
                                new long[] {1, bcast.calls() - 1}, new double[] {0, bcast.timeSeconds() / 2})));
        return p.withDetails(p.details().withBreakdown(b));
    }

    static FunctionProfile function(Profile p, String name) {
        return p.functions().stream().filter(f -> f.name().equals(name)).findFirst().orElseThrow();
    }

    /** One block per rank up to 64 ranks, else 64 blocks of consecutive ranks. */
    static Profile.Blocks blocks(int ranks, double[] app, double[] mpi, long[][] messages, long[][] bytes) {
        int n = Math.min(ranks, 64);
        int[] first = new int[n];
        for (int b = 0; b < n; b++) {
            first[b] = (int) ((long) b * ranks / n);
        }
        int[] blockOf = new int[ranks];
        for (int b = 0; b < n; b++) {
            int end = b + 1 < n ? first[b + 1] : ranks;
            for (int r = first[b]; r < end; r++) {
                blockOf[r] = b;
            }
        }
        double[] bApp = new double[n];
        double[] bMpi = new double[n];
        long[][] bMessages = new long[n][n];
        long[][] bBytes = new long[n][n];
        for (int r = 0; r < ranks; r++) {
            bApp[blockOf[r]] += app[r];
            bMpi[blockOf[r]] += mpi[r];
            for (int q = 0; q < ranks; q++) {
                bMessages[blockOf[r]][blockOf[q]] += messages[r][q];
                bBytes[blockOf[r]][blockOf[q]] += bytes[r][q];
            }
        }
        return new Profile.Blocks(first, bApp, bMpi, bMessages, bBytes);
    }

    static Profile.SparseRow sparse(long[] row) {
        int n = 0;
        for (long v : row) {
            n += v != 0 ? 1 : 0;
        }
        int[] peers = new int[n];
        long[] values = new long[n];
        int i = 0;
        for (int q = 0; q < row.length; q++) {
            if (row[q] != 0) {
                peers[i] = q;
                values[i++] = row[q];
            }
        }
        return n == 0 ? Profile.SparseRow.EMPTY : new Profile.SparseRow(peers, values);
    }

    /** Without trailing zero buckets, as profile.json stores histograms. */
    static long[] trim(long[] h) {
        int n = h.length;
        while (n > 0 && h[n - 1] == 0) {
            n--;
        }
        return Arrays.copyOf(h, n);
    }

    private static double[] toDouble(long[] v) {
        return Arrays.stream(v).asDoubleStream().toArray();
    }

    /** {@code p} with another job (executable names are what hostile tests change). */
    static Profile withJob(Profile p, Job job) {
        return new Profile(p.schema(), p.partial(), p.partialReasons(), job, p.ranks(), p.summary(), p.overhead(),
                p.functions(), p.histogram(), p.blocks(), p.rankRows(), p.messages(), p.bytes());
    }

    /** {@code p} with other functions. */
    static Profile withFunctions(Profile p, List<FunctionProfile> functions) {
        return new Profile(p.schema(), p.partial(), p.partialReasons(), p.job(), p.ranks(), p.summary(), p.overhead(),
                functions, p.histogram(), p.blocks(), p.rankRows(), p.messages(), p.bytes());
    }

    /** {@code p} with other rank rows. */
    static Profile withRows(Profile p, List<Profile.RankRow> rows) {
        return new Profile(p.schema(), p.partial(), p.partialReasons(), p.job(), p.ranks(), p.summary(), p.overhead(),
                p.functions(), p.histogram(), p.blocks(), rows, p.messages(), p.bytes());
    }

    /** {@code p} as the profile level hands it to the reports: no rank rows, no rank matrix. */
    static Profile withoutRows(Profile p) {
        return new Profile(p.schema(), p.partial(), p.partialReasons(), p.job(), p.ranks(), p.summary(), p.overhead(),
                p.functions(), p.histogram(), p.blocks(), List.of(), List.of(), List.of());
    }

    /** {@code p} marked partial with these reasons. */
    static Profile withReasons(Profile p, List<String> reasons) {
        return new Profile(p.schema(), true, reasons, p.job(), p.ranks(), p.summary(), p.overhead(), p.functions(),
                p.histogram(), p.blocks(), p.rankRows(), p.messages(), p.bytes());
    }
}
