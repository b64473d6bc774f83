package io.jpmpi.profilers.report;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What schema {@code jpmpi-profile-3} added besides call sites (PROFILE.md, "Added in jpmpi-profile-3"):
 * jpmpi's own cost at the ends of the run, and per function its time by message size, and for
 * collectives the per-call buffer bytes mpiP reports and the calls and time by communicator size.
 * Part of {@link ProfileDetails}; null there when the profile has none of it (written by an older
 * recorder, or by the profile's Java level).
 *
 * @param cost      the recorder's own start inside MPI_Init and its work inside MPI_Finalize; null if unknown
 * @param functions one entry per function that has any of it, in the order of {@code functions}
 */
public record ProfileBreakdown(Cost cost, List<FunctionDetail> functions) {
    /** The communicator-size buckets: bucket k holds 2^k to 2^(k+1) - 1 processes, the last 2^20 and more. */
    public static final int COMM_BUCKETS = 21;

    public ProfileBreakdown {
        functions = List.copyOf(functions);
    }

    /** The entry of {@code name}, or null. */
    public FunctionDetail get(String name) {
        for (FunctionDetail f : functions) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        return null;
    }

    /**
     * jpmpi's own time at the ends of the run, per rank summarised across ranks.
     *
     * @param startSeconds        the recorder's start inside MPI_Init, after the library's own (its
     *                            communicator, the output directory, the calibration, the handlers)
     * @param finalizeSeconds     from the start of MPI_Finalize to the rank's snapshot (rank 0's:
     *                            {@code rank0FinalizeSeconds} when known)
     * @param rank0FinalizeSeconds rank 0's whole finalize work (it writes every rank's dump), 0 if unknown
     */
    public record Cost(Stat startSeconds, Stat finalizeSeconds, double rank0FinalizeSeconds) {
        public Cost {
            Objects.requireNonNull(startSeconds);
            Objects.requireNonNull(finalizeSeconds);
        }
    }

    /**
     * One function's detail, summed over ranks. Arrays are written without trailing zeros (empty: none).
     *
     * @param name            the function
     * @param bufferBytes     collectives: the per-call buffer bytes summed over calls and ranks (mpiP's
     *                        message size: the count and type of the buffer the rank gives; PROFILE.md)
     * @param timeBySize      seconds per log2 size bucket (the buckets of {@code histogram})
     * @param callsByComm     collectives: calls per log2 bucket of the communicator's size (bucket k: 2^k
     *                        to 2^(k+1) - 1 processes); empty for other functions
     * @param timeByComm      the seconds of the same
     */
    public record FunctionDetail(String name, long bufferBytes, double[] timeBySize, long[] callsByComm,
                                 double[] timeByComm) {
        public FunctionDetail {
            Objects.requireNonNull(name);
            timeBySize = timeBySize.clone();
            callsByComm = callsByComm.clone();
            timeByComm = timeByComm.clone();
        }

        /** A collective: it has calls by communicator size. */
        public boolean collective() {
            return callsByComm.length > 0;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof FunctionDetail f && name.equals(f.name) && bufferBytes == f.bufferBytes
                    && Arrays.equals(timeBySize, f.timeBySize) && Arrays.equals(callsByComm, f.callsByComm)
                    && Arrays.equals(timeByComm, f.timeByComm);
        }

        @Override
        public int hashCode() {
            return Objects.hash(name, bufferBytes, Arrays.hashCode(timeBySize), Arrays.hashCode(callsByComm),
                    Arrays.hashCode(timeByComm));
        }

        @Override
        public String toString() {
            return "FunctionDetail[name=" + name + ", bufferBytes=" + bufferBytes + ", timeBySize="
                    + Arrays.toString(timeBySize) + ", callsByComm=" + Arrays.toString(callsByComm) + ", timeByComm="
                    + Arrays.toString(timeByComm) + "]";
        }
    }

    /** {@code a} without its trailing zeros. */
    public static long[] trim(long[] a) {
        int n = a.length;
        while (n > 0 && a[n - 1] == 0) {
            n--;
        }
        return Arrays.copyOf(a, n);
    }

    /** {@code a} without its trailing zeros. */
    public static double[] trim(double[] a) {
        int n = a.length;
        while (n > 0 && a[n - 1] == 0) {
            n--;
        }
        return Arrays.copyOf(a, n);
    }
}
