package io.jpmpi.profilers.hwc;

import java.util.List;

/**
 * One rank's counts (or, summed, a job's): time and every event, in total and inside MPI; the
 * application's part is the difference.
 *
 * @param rank       the rank in MPI_COMM_WORLD (-1: a sum over ranks)
 * @param threads    threads that counted
 * @param hardware   PMU events (false: the software fallback)
 * @param seconds    time counted, summed over threads
 * @param mpiSeconds the part of it inside MPI calls
 * @param events     the event names as the user gave them
 * @param total      per event, counted since MPI_Init
 * @param inMpi      per event, the part inside MPI calls
 * @param samples    sampled mode: the overflows of the leading event (0 in calls mode)
 * @param mpiSamples sampled mode: those that found the thread inside MPI
 */
record RankCounts(int rank, int threads, boolean hardware, double seconds, double mpiSeconds, List<String> events,
                  long[] total, long[] inMpi, long samples, long mpiSamples) {
    long app(int event) {
        return total[event] - inMpi[event];
    }

    double appSeconds() {
        return seconds - mpiSeconds;
    }

    /** The index of event {@code name}, or -1. */
    int index(String name) {
        return events.indexOf(name);
    }

    /**
     * The 95 % half-width, in percentage points, of an MPI share estimated from the samples (the
     * binomial normal approximation, 1.96 sqrt(p(1-p)/n)); NaN without samples.
     */
    double ci95Points() {
        if (samples <= 0) {
            return Double.NaN;
        }
        double p = (double) mpiSamples / samples;
        return 100 * 1.96 * Math.sqrt(p * (1 - p) / samples);
    }

    /** As longs for an MPI gather: threads, hardware, ns, MPI ns, n, total[MAX], inMpi[MAX], samples, in MPI. */
    long[] pack() {
        long[] p = new long[SIZE];
        p[0] = threads;
        p[1] = hardware ? 1 : 0;
        p[2] = Math.round(seconds * 1e9);
        p[3] = Math.round(mpiSeconds * 1e9);
        p[4] = events.size();
        System.arraycopy(total, 0, p, 5, total.length);
        System.arraycopy(inMpi, 0, p, 5 + HwcLibrary.MAX_EVENTS, inMpi.length);
        p[5 + 2 * HwcLibrary.MAX_EVENTS] = samples;
        p[6 + 2 * HwcLibrary.MAX_EVENTS] = mpiSamples;
        return p;
    }

    static final int SIZE = 7 + 2 * HwcLibrary.MAX_EVENTS;

    /** The inverse of {@link #pack}, with the event names of rank 0. */
    static RankCounts unpack(int rank, long[] p, int at, List<String> events) {
        int n = (int) p[at + 4];
        long[] total = new long[n];
        long[] in = new long[n];
        System.arraycopy(p, at + 5, total, 0, n);
        System.arraycopy(p, at + 5 + HwcLibrary.MAX_EVENTS, in, 0, n);
        return new RankCounts(rank, (int) p[at], p[at + 1] != 0, p[at + 2] / 1e9, p[at + 3] / 1e9,
                events.subList(0, n), total, in, p[at + 5 + 2 * HwcLibrary.MAX_EVENTS],
                p[at + 6 + 2 * HwcLibrary.MAX_EVENTS]);
    }

    /** The sum over ranks (same events everywhere). */
    static RankCounts sum(List<RankCounts> ranks) {
        RankCounts first = ranks.get(0);
        int n = first.events.size();
        long[] total = new long[n];
        long[] in = new long[n];
        int threads = 0;
        double s = 0;
        double m = 0;
        boolean hw = true;
        long samples = 0;
        long mpiSamples = 0;
        for (RankCounts r : ranks) {
            samples += r.samples;
            mpiSamples += r.mpiSamples;
            threads += r.threads;
            s += r.seconds;
            m += r.mpiSeconds;
            hw &= r.hardware;
            for (int i = 0; i < n && i < r.total.length; i++) {
                total[i] += r.total[i];
                in[i] += r.inMpi[i];
            }
        }
        return new RankCounts(-1, threads, hw, s, m, first.events, total, in, samples, mpiSamples);
    }
}
