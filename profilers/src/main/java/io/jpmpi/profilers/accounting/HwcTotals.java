package io.jpmpi.profilers.accounting;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jpmpi.profilers.profile.Recorder;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Optional;

/**
 * This rank's hardware counter totals, from the counters tool's C level (libjpmpi-hwc.so) when the
 * entry list has it:
 * <pre>
 * int jpmpi_hwc_totals(int max, char names[][32], unsigned long long *total,
 *                      unsigned long long *in_mpi, int *hardware);
 * </pre>
 * Looked up defensively: a library without the export gives no totals and a reason.
 *
 * @param names    event names
 * @param total    counts, all threads, everywhere
 * @param inMpi    the part inside MPI calls
 * @param hardware true for PMU events, false for the software fallback
 */
@SuppressWarnings("restricted") // the counters tool is native code by design
record HwcTotals(String[] names, long[] total, long[] inMpi, boolean hardware) {
    static final String LIBRARY = "libjpmpi-hwc.so";
    static final String SYMBOL = "jpmpi_hwc_totals";
    static final int MAX = 64;
    static final int NAME = 32;

    /** The outcome of a look-up: totals (possibly of no events), or why there are none. */
    record Found(Optional<HwcTotals> totals, String notice) {
    }

    /** The counters tool's export, looked up once (at MPI_Init, so that MPI_Finalize only calls it). */
    static final class Source {
        private final String path;
        private final MethodHandle totals;
        private final String notice;

        private Source(String path, MethodHandle totals, String notice) {
            this.path = path;
            this.totals = totals;
            this.notice = notice;
        }

        /** The library among the dispatcher's levels; without it, a source of no totals and no notice. */
        static Source find() {
            String path = io.jpmpi.profilers.CLevels.find(LIBRARY).map(Path::toString).orElse(null);
            if (path == null) {
                return new Source(null, null, null);
            }
            try {
                SymbolLookup lib = SymbolLookup.libraryLookup(Path.of(path), Arena.global());
                Optional<MemorySegment> at = lib.find(SYMBOL);
                if (at.isEmpty()) {
                    return new Source(path, null, path + " has no " + SYMBOL + "; no counters in the record");
                }
                return new Source(path, Linker.nativeLinker().downcallHandle(at.get(),
                        FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS)), null);
            } catch (RuntimeException e) {
                return new Source(path, null, "cannot use " + path + " (" + e + "); no counters in the record");
            }
        }

        /** This rank's totals now: empty without the library (no notice), or with a notice when it cannot be used. */
        Found read() {
            if (totals == null) {
                return new Found(Optional.empty(), notice);
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment names = arena.allocate((long) MAX * NAME, 8);
                MemorySegment total = arena.allocate(8L * MAX, 8);
                MemorySegment inMpi = arena.allocate(8L * MAX, 8);
                MemorySegment hw = arena.allocate(4, 4);
                int n = (int) totals.invokeExact(MAX, names, total, inMpi, hw);
                if (n < 0 || n > MAX) {
                    return new Found(Optional.empty(), SYMBOL + " returned " + n + "; no counters in the record");
                }
                String[] ns = new String[n];
                for (int i = 0; i < n; i++) {
                    MemorySegment one = names.asSlice((long) i * NAME, NAME);
                    one.set(JAVA_BYTE, NAME - 1, (byte) 0); // NUL-terminated whatever it wrote
                    ns[i] = one.getString(0);
                }
                long[] t = total.asSlice(0, 8L * n).toArray(JAVA_LONG);
                long[] m = inMpi.asSlice(0, 8L * n).toArray(JAVA_LONG);
                return new Found(Optional.of(new HwcTotals(ns, t, m, hw.get(JAVA_INT, 0) != 0)), null);
            } catch (Throwable e) {
                return new Found(Optional.empty(), "cannot read the counters of " + path + " (" + e + ")");
            }
        }
    }
}
