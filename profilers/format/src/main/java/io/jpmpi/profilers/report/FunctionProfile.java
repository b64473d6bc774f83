package io.jpmpi.profilers.report;

import java.util.Arrays;
import java.util.Objects;

/**
 * One MPI function over the whole job. {@code calls}, {@code timeSeconds}, {@code bytesSent} and
 * {@code bytesRecv} are sums over ranks; {@code perRank} summarises the same four per rank;
 * {@code minCallSeconds}/{@code maxCallSeconds} are the shortest and longest single call on any
 * rank; {@code histogram[k]} counts calls whose size (see {@link Histogram}) falls in log2 bucket k.
 * {@code timedCalls} is how many calls were timed (all of them, unless the recorder sampled the
 * timing of calls too short to time honestly: then {@code timeSeconds} is an estimate with the
 * standard error {@code timeErrorSeconds}, and the shortest and longest call are the timed calls').
 */
public record FunctionProfile(String name, long calls, double timeSeconds, long bytesSent, long bytesRecv,
                              double minCallSeconds, double maxCallSeconds, PerRank perRank, long[] histogram,
                              long timedCalls, double timeErrorSeconds) {
    /** A function whose every call was timed. */
    public FunctionProfile(String name, long calls, double timeSeconds, long bytesSent, long bytesRecv,
                           double minCallSeconds, double maxCallSeconds, PerRank perRank, long[] histogram) {
        this(name, calls, timeSeconds, bytesSent, bytesRecv, minCallSeconds, maxCallSeconds, perRank, histogram, calls,
                0);
    }

    /** Whether the time is an estimate from a sample of the calls (PROFILE.md, "Sampled timing"). */
    public boolean sampled() {
        return timedCalls < calls;
    }

    /** Equal figures and equal histogram contents (a record's own equals compares arrays by identity). */
    @Override
    public boolean equals(Object o) {
        return o instanceof FunctionProfile f && Objects.equals(name, f.name) && calls == f.calls
                && Double.compare(timeSeconds, f.timeSeconds) == 0 && bytesSent == f.bytesSent
                && bytesRecv == f.bytesRecv && Double.compare(minCallSeconds, f.minCallSeconds) == 0
                && Double.compare(maxCallSeconds, f.maxCallSeconds) == 0 && Objects.equals(perRank, f.perRank)
                && Arrays.equals(histogram, f.histogram) && timedCalls == f.timedCalls
                && Double.compare(timeErrorSeconds, f.timeErrorSeconds) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, calls, timeSeconds, bytesSent, bytesRecv, minCallSeconds, maxCallSeconds, perRank,
                Arrays.hashCode(histogram), timedCalls, timeErrorSeconds);
    }

    @Override
    public String toString() {
        return "FunctionProfile[name=" + name + ", calls=" + calls + ", timeSeconds=" + timeSeconds + ", bytesSent="
                + bytesSent + ", bytesRecv=" + bytesRecv + ", minCallSeconds=" + minCallSeconds + ", maxCallSeconds="
                + maxCallSeconds + ", perRank=" + perRank + ", histogram=" + Arrays.toString(histogram) + ", timedCalls=" + timedCalls + ", timeErrorSeconds="
                + timeErrorSeconds + "]";
    }

    /** The per-rank spread of a function's figures. */
    public record PerRank(Stat calls, Stat timeSeconds, Stat bytesSent, Stat bytesRecv) {
    }
}
