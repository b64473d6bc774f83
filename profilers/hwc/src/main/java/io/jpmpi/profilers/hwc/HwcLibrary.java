package io.jpmpi.profilers.hwc;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jpmpi.profilers.CLevels;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The hwc tool's C level (libjpmpi-hwc.so) as the Java level sees it: this rank's counts (the
 * exported {@code jpmpi_hwc_totals}, {@code jpmpi_hwc_seconds}, {@code jpmpi_hwc_function},
 * {@code jpmpi_hwc_method}), read through FFM.
 */
@SuppressWarnings("restricted") // reading C strings the library returns
final class HwcLibrary {
    static final String LIBRARY = "libjpmpi-hwc.so";
    /** HWC_MAX of hwc.h. */
    static final int MAX_EVENTS = 8;
    private static final int NAME = 32;

    private final MethodHandle totals;
    private final MethodHandle seconds;
    private final MethodHandle function;
    private final MethodHandle method;
    private final MethodHandle mode;
    private final MethodHandle functionSamples;

    private HwcLibrary(Path path) {
        SymbolLookup lib = CLevels.open(path);
        this.totals = CLevels.handle(lib, path, "jpmpi_hwc_totals",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        this.seconds = CLevels.handle(lib, path, "jpmpi_hwc_seconds", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        this.function = CLevels.handle(lib, path, "jpmpi_hwc_function",
                FunctionDescriptor.of(ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        this.method = CLevels.handle(lib, path, "jpmpi_hwc_method", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        this.mode = CLevels.handle(lib, path, "jpmpi_hwc_mode", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        this.functionSamples = CLevels.handle(lib, path, "jpmpi_hwc_function_samples",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT));
    }

    /** The C level among the dispatcher's levels, if the entry list has it. */
    static Optional<HwcLibrary> find() {
        return CLevels.find(LIBRARY).map(HwcLibrary::new);
    }

    /** This rank's counts (all threads), as MPI_Finalize froze them. */
    RankCounts rank(int rank) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment names = arena.allocate((long) NAME * MAX_EVENTS);
            MemorySegment total = arena.allocate(JAVA_LONG, MAX_EVENTS);
            MemorySegment in = arena.allocate(JAVA_LONG, MAX_EVENTS);
            MemorySegment hw = arena.allocate(JAVA_INT);
            int n = (int) totals.invokeExact(MAX_EVENTS, names, total, in, hw);
            MemorySegment s = arena.allocate(JAVA_DOUBLE, 2);
            int threads = (int) seconds.invokeExact(s, s.asSlice(8));
            String[] events = new String[n];
            for (int i = 0; i < n; i++) {
                events[i] = names.getString((long) NAME * i);
            }
            Mode m = mode();
            return new RankCounts(rank, threads, hw.get(JAVA_INT, 0) != 0, s.getAtIndex(JAVA_DOUBLE, 0),
                    s.getAtIndex(JAVA_DOUBLE, 1), List.of(events), slice(total, n), slice(in, n), m.samples(),
                    m.mpiSamples());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static long[] slice(MemorySegment m, int n) {
        return m.asSlice(0, 8L * n).toArray(JAVA_LONG);
    }

    /** Every wrapped function's in-MPI figures on this rank: name, calls, nanoseconds, events[nev]. */
    List<FunctionCounts> functions(int nev) {
        List<FunctionCounts> all = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment calls = arena.allocate(JAVA_LONG);
            MemorySegment sec = arena.allocate(JAVA_DOUBLE);
            MemorySegment ev = arena.allocate(JAVA_LONG, MAX_EVENTS);
            for (int id = 0;; id++) {
                MemorySegment name = (MemorySegment) function.invokeExact(id, calls, sec, ev);
                if (name.address() == 0) {
                    return all;
                }
                long samples = (long) functionSamples.invokeExact(id);
                all.add(new FunctionCounts(name.reinterpret(256).getString(0), calls.get(JAVA_LONG, 0),
                        sec.get(JAVA_DOUBLE, 0), slice(ev, nev), samples));
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** How the counters were read ("rdpmc" or "read") and what one read of all cost at MPI_Init (ns, -1: not measured). */
    ReadMethod method() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ns = arena.allocate(JAVA_DOUBLE, 2);
            MemorySegment name = (MemorySegment) method.invokeExact(ns, ns.asSlice(8));
            return new ReadMethod(name.reinterpret(64).getString(0), ns.getAtIndex(JAVA_DOUBLE, 0),
                    ns.getAtIndex(JAVA_DOUBLE, 1));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** How the counts were split: "calls" or "sampled", this rank's samples and the rate (overflows per second). */
    Mode mode() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment n = arena.allocate(JAVA_LONG, 2);
            MemorySegment rate = arena.allocate(JAVA_DOUBLE);
            MemorySegment name = (MemorySegment) mode.invokeExact(n, n.asSlice(8), rate);
            return new Mode(name.reinterpret(64).getString(0), n.getAtIndex(JAVA_LONG, 0), n.getAtIndex(JAVA_LONG, 1),
                    rate.get(JAVA_DOUBLE, 0));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    record ReadMethod(String name, double rdpmcNs, double readNs) {
    }

    record Mode(String name, long samples, long mpiSamples, double rate) {
        boolean sampled() {
            return name.equals("sampled");
        }
    }

    /** One function's in-MPI figures: calls (calls mode) or samples (sampled mode). */
    record FunctionCounts(String name, long calls, double seconds, long[] events, long samples) {
    }
}
