package io.jpmpi.layering;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jpmpi.layering.generated.Constants;
import io.jpmpi.layering.runtime.Abi;

/**
 * Fields of an {@code MPI_Status}, given its address, in the running MPI's layout (Open MPI and
 * MPICH order the fields differently). Check for {@link Constants#MPI_STATUS_IGNORE} (and
 * {@link Constants#MPI_STATUSES_IGNORE}) before reading.
 */
public final class Status {
    /** sizeof(MPI_Status). */
    public static final int SIZE = Abi.statusSize();
    private static final int SOURCE = Abi.statusSource();
    private static final int TAG = Abi.statusTag();
    private static final int ERROR = Abi.statusError();

    private Status() {
    }

    /** True when {@code status} is MPI_STATUS_IGNORE or MPI_STATUSES_IGNORE (or NULL). */
    public static boolean ignored(long status) {
        return status == 0 || status == Constants.MPI_STATUS_IGNORE || status == Constants.MPI_STATUSES_IGNORE;
    }

    /** The address of element {@code i} of an array of statuses. */
    public static long at(long statuses, int i) {
        return statuses + (long) i * SIZE;
    }

    public static int source(long status) {
        return Memory.ALL.get(JAVA_INT, status + SOURCE);
    }

    public static int tag(long status) {
        return Memory.ALL.get(JAVA_INT, status + TAG);
    }

    public static int error(long status) {
        return Memory.ALL.get(JAVA_INT, status + ERROR);
    }
}
