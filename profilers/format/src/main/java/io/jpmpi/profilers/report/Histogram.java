package io.jpmpi.profilers.report;

/**
 * The log2 message-size buckets. A call's size is the larger of the bytes it sends and the bytes
 * it receives; bucket 0 holds calls of size 0, bucket k (1 to {@link #BUCKETS} - 2) sizes in
 * [2^(k-1), 2^k), and the last bucket everything from 2^(BUCKETS-2) bytes up.
 */
public final class Histogram {
    public static final int BUCKETS = 48;

    private Histogram() {
    }

    /** The bucket of a size in bytes. */
    public static int bucket(long bytes) {
        if (bytes <= 0) {
            return 0;
        }
        return Math.min(BUCKETS - 1, 64 - Long.numberOfLeadingZeros(bytes));
    }

    /** The smallest size in bucket k. */
    public static long lowerBound(int k) {
        return k == 0 ? 0 : 1L << (k - 1);
    }

    /** A short label for bucket k: "0", "1", "2-3", "4-7", "1KiB-2KiB", ..., "64TiB+" for the last. */
    public static String label(int k) {
        if (k == 0) {
            return "0";
        }
        if (k == 1) {
            return "1";
        }
        String low = Units.bytes(lowerBound(k));
        if (k == BUCKETS - 1) {
            return low + "+";
        }
        long high = (1L << k) - 1;
        return low + "-" + Units.bytes(high);
    }
}
