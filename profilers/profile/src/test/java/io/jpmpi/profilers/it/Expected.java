package io.jpmpi.profilers.it;

import io.jpmpi.profilers.report.Histogram;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a test program must have recorded, worked out by hand from its parameters and the semantics
 * of profilers/profile/PROFILE.md: per rank and function the calls, bytes sent and received and the size
 * histogram, and the sender-side matrix (messages and bytes, world ranks).
 *
 * <p>A function is either a "bytes" function (its wrapper records bytes: every call lands in the
 * histogram bucket of max(sent, received), 0 included) or a plain one (calls only, empty histogram);
 * {@link #call} and {@link #io} say which.
 */
final class Expected {
    static final int CALLS = 0;
    static final int SENT = 1;
    static final int RECV = 2;

    final int ranks;
    /** function → [rank][CALLS, SENT, RECV] */
    private final Map<String, long[][]> stats = new TreeMap<>();
    /** function → [rank][bucket]; only functions that record bytes */
    private final Map<String, long[][]> hist = new TreeMap<>();
    private final Set<String> plain = new TreeSet<>();
    final long[][] messages;
    final long[][] bytes;
    /**
     * The ranks with figures: all but those that left no dump after an early end (a merged
     * profile summarises per-rank values over these only).
     */
    final boolean[] present;

    Expected(int ranks) {
        this.ranks = ranks;
        this.messages = new long[ranks][ranks];
        this.bytes = new long[ranks][ranks];
        this.present = new boolean[ranks];
        Arrays.fill(present, true);
    }

    /** `times` calls of `fn` on `rank` that move no bytes and have no histogram. */
    Expected call(int rank, String fn, long times) {
        if (hist.containsKey(fn)) {
            throw new IllegalArgumentException(fn + " records bytes");
        }
        plain.add(fn);
        stats(fn)[rank][CALLS] += times;
        return this;
    }

    Expected call(int rank, String fn) {
        return call(rank, fn, 1);
    }

    /** The same plain call on every rank. */
    Expected callAll(String fn, long times) {
        for (int r = 0; r < ranks; r++) {
            call(r, fn, times);
        }
        return this;
    }

    /** `times` calls of a bytes function, each sending `sent` and receiving `recv` bytes. */
    Expected io(int rank, String fn, long sent, long recv, long times) {
        if (plain.contains(fn)) {
            throw new IllegalArgumentException(fn + " records no bytes");
        }
        long[] s = stats(fn)[rank];
        s[CALLS] += times;
        s[SENT] += sent * times;
        s[RECV] += recv * times;
        hist.computeIfAbsent(fn, k -> new long[ranks][Histogram.BUCKETS])[rank][Histogram.bucket(Math.max(sent, recv))]
                += times;
        return this;
    }

    Expected io(int rank, String fn, long sent, long recv) {
        return io(rank, fn, sent, recv, 1);
    }

    /** `times` messages of `size` bytes from world rank `from` to `to` (none to oneself). */
    Expected msg(int from, int to, long size, long times) {
        if (from != to) {
            messages[from][to] += times;
            bytes[from][to] += size * times;
        }
        return this;
    }

    Expected msg(int from, int to, long size) {
        return msg(from, to, size, 1);
    }

    /** A blocking point-to-point send: the call's bytes and its message. */
    Expected send(int rank, String fn, int to, long size, long times) {
        io(rank, fn, size, 0, times);
        return msg(rank, to, size, times);
    }

    /** What every rank of every program does around its work: MPI_Init, MPI_Comm_rank, MPI_Comm_size. */
    Expected startup() {
        callAll("MPI_Init", 1);
        callAll("MPI_Comm_rank", 1);
        return callAll("MPI_Comm_size", 1);
    }

    Expected finalizeAll() {
        return callAll("MPI_Finalize", 1);
    }

    private long[][] stats(String fn) {
        return stats.computeIfAbsent(fn, k -> new long[ranks][3]);
    }

    /** Every function some rank calls, in name order. */
    Set<String> functions() {
        Set<String> s = new TreeSet<>();
        stats.forEach((fn, v) -> {
            for (long[] r : v) {
                if (r[CALLS] != 0) {
                    s.add(fn);
                }
            }
        });
        return s;
    }

    /** calls / sent / recv of `fn` on `rank` (0 for a function it does not call). */
    long get(String fn, int rank, int what) {
        long[][] v = stats.get(fn);
        return v == null ? 0 : v[rank][what];
    }

    long[] histogram(String fn, int rank) {
        long[][] h = hist.get(fn);
        return h == null ? new long[Histogram.BUCKETS] : h[rank].clone();
    }

    /** The sum over ranks of one function's histogram. */
    long[] histogram(String fn) {
        long[] sum = new long[Histogram.BUCKETS];
        for (int r = 0; r < ranks; r++) {
            long[] h = histogram(fn, r);
            for (int k = 0; k < sum.length; k++) {
                sum[k] += h[k];
            }
        }
        return sum;
    }

    long rankTotal(int rank, int what) {
        long n = 0;
        for (String fn : stats.keySet()) {
            n += get(fn, rank, what);
        }
        return n;
    }

    /** A copy of this expectation (to extend it for a later snapshot of the same run). */
    Expected copy() {
        Expected e = new Expected(ranks);
        stats.forEach((k, v) -> e.stats.put(k, deep(v)));
        hist.forEach((k, v) -> e.hist.put(k, deep(v)));
        e.plain.addAll(plain);
        System.arraycopy(present, 0, e.present, 0, ranks);
        for (int r = 0; r < ranks; r++) {
            e.messages[r] = messages[r].clone();
            e.bytes[r] = bytes[r].clone();
        }
        return e;
    }

    private static long[][] deep(long[][] a) {
        return Arrays.stream(a).map(long[]::clone).toArray(long[][]::new);
    }

    /** Trailing zero buckets left out (as profile.json writes histograms). */
    static long[] trim(long[] h) {
        int n = h.length;
        while (n > 0 && h[n - 1] == 0) {
            n--;
        }
        return Arrays.copyOf(h, n);
    }
}
