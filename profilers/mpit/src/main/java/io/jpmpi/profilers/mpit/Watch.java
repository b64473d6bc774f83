package io.jpmpi.profilers.mpit;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jpmpi.layering.generated.MPI_T_pvar_handle;
import io.jpmpi.layering.generated.MPI_T_pvar_session;
import io.jpmpi.layering.generated.MpiFunctions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One allocated performance-variable handle (a variable, bound to one object or none) and what the
 * tool derived from its reads: the class-aware summary, and the deltas between reads charged to the
 * MPI function a read pair surrounded and to the Pcontrol region it fell in.
 */
final class Watch {
    /** Pseudo function id: deltas between two calls (MPI's progress threads, or modes that skip calls). */
    static final int BETWEEN = MpiFunctions.COUNT;

    final Variable var;
    /** The object it is bound to, as the report names it ("MPI_COMM_WORLD", "comm 3 (split of 0)", …). */
    final String object;
    /** The object's handle value (0 for unbound variables): to find the watches of a freed object. */
    final long objectHandle;
    final MPI_T_pvar_handle handle;
    final int count;
    private final MemorySegment buf;

    private final double[] last;
    private boolean valid;
    /** Readings taken (after the baseline). */
    long reads;
    /** Failed reads (the first one's message is kept). */
    long failures;
    String failure;

    // class-aware summary, per element
    final double[] first;
    final double[] min;
    final double[] max;
    final double[] sum;
    /** Watermarks: how often the value moved, and the sum of the moves' sizes. */
    final long[] moves;
    final double[] moved;

    /** Per function id (and BETWEEN): the sum of the deltas per element; null where none. */
    final double[][] byFunction = new double[MpiFunctions.COUNT + 1][];
    /** Per region: the sum of the deltas per element. */
    final List<double[]> byRegion = new ArrayList<>();
    /** The application freed the object it was bound to. */
    boolean objectFreed;
    /** MPI_T_pvar_start succeeded: stop it before freeing. */
    boolean started;

    Watch(Variable var, String object, long objectHandle, MPI_T_pvar_handle handle, int count, Arena arena) {
        this.var = var;
        this.object = object;
        this.objectHandle = objectHandle;
        this.handle = handle;
        this.count = count;
        this.buf = arena.allocate(Math.max(1, (long) count * Math.max(1, var.type().size)), 8);
        this.last = new double[count];
        this.first = new double[count];
        this.min = new double[count];
        this.max = new double[count];
        this.sum = new double[count];
        this.moves = new long[count];
        this.moved = new double[count];
    }

    /**
     * Reads the variable and charges the change since the last read to {@code function} and
     * {@code region}. Returns false if the read failed (the values stay as they were).
     */
    boolean read(Tools tools, MPI_T_pvar_session session, int function, int region) {
        int rc = tools.read(session, handle, buf.address());
        if (rc != 0) {
            failures++;
            if (failure == null) {
                failure = Tools.describe(rc);
            }
            return false;
        }
        if (!valid) {
            for (int i = 0; i < count; i++) {
                double v = value(i);
                last[i] = v;
                first[i] = v;
                min[i] = v;
                max[i] = v;
            }
            valid = true;
            return true;
        }
        reads++;
        double[] f = null;
        double[] r = null;
        for (int i = 0; i < count; i++) {
            double v = value(i);
            double d = v - last[i];
            if (v < min[i]) {
                min[i] = v;
            }
            if (v > max[i]) {
                max[i] = v;
            }
            sum[i] += v;
            if (d != 0) {
                moves[i]++;
                moved[i] += Math.abs(d);
                if (f == null) {
                    f = function >= 0 ? charge(byFunction, function) : null;
                    r = region >= 0 ? region(region) : null;
                }
                if (f != null) {
                    f[i] += d;
                }
                if (r != null) {
                    r[i] += d;
                }
            }
            last[i] = v;
        }
        return true;
    }

    private double[] charge(double[][] table, int function) {
        double[] a = table[function];
        if (a == null) {
            a = new double[count];
            table[function] = a;
        }
        return a;
    }

    private double[] region(int region) {
        while (byRegion.size() <= region) {
            byRegion.add(null);
        }
        double[] a = byRegion.get(region);
        if (a == null) {
            a = new double[count];
            byRegion.set(region, a);
        }
        return a;
    }

    /** Reads the variable and drops the value (to time reads). */
    int probe(Tools tools, MPI_T_pvar_session session) {
        return tools.read(session, handle, buf.address());
    }

    /** It never changed. */
    boolean quiet() {
        for (long m : moves) {
            if (m != 0) {
                return false;
            }
        }
        return true;
    }

    boolean valid() {
        return valid;
    }

    double[] last() {
        return Arrays.copyOf(last, count);
    }

    private double value(int i) {
        return switch (var.type()) {
            case INT -> buf.get(JAVA_INT, 4L * i);
            case UNSIGNED -> Integer.toUnsignedLong(buf.get(JAVA_INT, 4L * i));
            case UNSIGNED_LONG, UNSIGNED_LONG_LONG -> unsigned(buf.get(JAVA_LONG, 8L * i));
            case COUNT -> buf.get(JAVA_LONG, 8L * i);
            case DOUBLE -> buf.get(JAVA_DOUBLE, 8L * i);
            default -> 0;
        };
    }

    private static double unsigned(long v) {
        return v >= 0 ? v : (double) (v >>> 1) * 2.0 + (v & 1);
    }
}
