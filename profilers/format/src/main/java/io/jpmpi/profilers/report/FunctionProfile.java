package io.jpmpi.profilers.report;

import java.util.Arrays;
import java.util.Objects;

/**
 * One MPI function over the whole job. {@code calls}, {@code timeSeconds}, {@code bytesSent} and
 * {@code bytesRecv} are sums over ranks; {@code perRank} summarises the same four per rank;
 * {@code minCallSeconds}/{@code maxCallSeconds} are the shortest and longest single call on any
 * rank; {@code histogram[k]} counts calls whose size (see {@link Histogram}) falls in log2 bucket k.
 */
public record FunctionProfile(String name, long calls, double timeSeconds, long bytesSent, long bytesRecv,
                              double minCallSeconds, double maxCallSeconds, PerRank perRank, long[] histogram) {
    /** Equal figures and equal histogram contents (a record's own equals compares arrays by identity). */
    @Override
    public boolean equals(Object o) {
        return o instanceof FunctionProfile f && Objects.equals(name, f.name) && calls == f.calls
                && Double.compare(timeSeconds, f.timeSeconds) == 0 && bytesSent == f.bytesSent
                && bytesRecv == f.bytesRecv && Double.compare(minCallSeconds, f.minCallSeconds) == 0
                && Double.compare(maxCallSeconds, f.maxCallSeconds) == 0 && Objects.equals(perRank, f.perRank)
                && Arrays.equals(histogram, f.histogram);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, calls, timeSeconds, bytesSent, bytesRecv, minCallSeconds, maxCallSeconds, perRank,
                Arrays.hashCode(histogram));
    }

    @Override
    public String toString() {
        return "FunctionProfile[name=" + name + ", calls=" + calls + ", timeSeconds=" + timeSeconds + ", bytesSent="
                + bytesSent + ", bytesRecv=" + bytesRecv + ", minCallSeconds=" + minCallSeconds + ", maxCallSeconds="
                + maxCallSeconds + ", perRank=" + perRank + ", histogram=" + Arrays.toString(histogram) + "]";
    }

    /** The per-rank spread of a function's figures. */
    public record PerRank(Stat calls, Stat timeSeconds, Stat bytesSent, Stat bytesRecv) {
    }
}
