package io.jpmpi.profilers.report;

/**
 * One per-rank quantity summarised across ranks: the sum, the smallest and largest value with the
 * (lowest) world rank holding each, the mean, and the coefficient of variation (standard deviation
 * over mean; 0 when the mean is 0).
 */
public record Stat(double sum, double min, int minRank, double max, int maxRank, double avg, double cv) {
    public static final Stat ZERO = new Stat(0, 0, 0, 0, 0, 0, 0);

    /** Summary of one value per rank, {@code values[r]} belonging to world rank r. */
    public static Stat of(double[] values) {
        if (values.length == 0) {
            return ZERO;
        }
        double sum = 0;
        double sumSquares = 0;
        int minRank = 0;
        int maxRank = 0;
        for (int r = 0; r < values.length; r++) {
            sum += values[r];
            sumSquares += values[r] * values[r];
            if (values[r] < values[minRank]) {
                minRank = r;
            }
            if (values[r] > values[maxRank]) {
                maxRank = r;
            }
        }
        return fromMoments(sum, sumSquares, values.length, values[minRank], minRank, values[maxRank], maxRank);
    }

    /** The summary from the sum, the sum of squares and the extremes of {@code n} values. */
    public static Stat fromMoments(double sum, double sumSquares, int n, double min, int minRank, double max,
                                   int maxRank) {
        double avg = n == 0 ? 0 : sum / n;
        double variance = n == 0 ? 0 : Math.max(0, sumSquares / n - avg * avg);
        double cv = avg == 0 ? 0 : Math.sqrt(variance) / Math.abs(avg);
        return new Stat(sum, min, minRank, max, maxRank, avg, cv);
    }
}
