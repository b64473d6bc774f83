package io.jpmpi.profilers.profile;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jpmpi.profilers.CLevels;
import java.io.BufferedReader;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The profile tool's C level (libjpmpi-profile.so), as the Java level sees it: found among the
 * levels of the dispatcher's table, then called through FFM for its snapshot and output directory.
 */
@SuppressWarnings("restricted") // the recorder is native code by design
public final class Recorder {
    public static final String LIBRARY = "libjpmpi-profile.so";

    private final String path;
    private final MethodHandle snapshotSize;
    private final MethodHandle snapshot;
    private final MethodHandle outputDir;
    private final MethodHandle written;

    private Recorder(String path, SymbolLookup lib) {
        this.path = path;
        this.snapshotSize = handle(lib, "jpmpi_profile_snapshot_size", FunctionDescriptor.of(JAVA_LONG));
        this.snapshot = handle(lib, "jpmpi_profile_snapshot", FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_LONG));
        this.outputDir = handle(lib, "jpmpi_profile_output_dir", FunctionDescriptor.of(ADDRESS));
        this.written = handle(lib, "jpmpi_profile_written", FunctionDescriptor.ofVoid());
    }

    private static MethodHandle handle(SymbolLookup lib, String name, FunctionDescriptor d) {
        return CLevels.handle(lib, Path.of(LIBRARY), name, d);
    }

    /** The recorder among the dispatcher's levels, if the entry list has it. */
    public static Optional<Recorder> find() {
        return CLevels.find(LIBRARY).map(p -> new Recorder(p.toString(), CLevels.open(p)));
    }

    public String path() {
        return path;
    }

    /** This rank's figures, added up over its threads. */
    public Snapshot snapshot() {
        try (Arena arena = Arena.ofConfined()) {
            long size = (long) snapshotSize.invokeExact();
            MemorySegment buf = arena.allocate(size, 8);
            long got = (long) snapshot.invokeExact(buf, size);
            if (got <= 0 || got > size) {
                throw new IllegalStateException(LIBRARY + " gave a snapshot of " + got + " bytes, at most " + size
                        + " expected");
            }
            // version 3: detail records only for the functions called, so usually less than the most
            return Snapshot.parse(buf.asSlice(0, got).asByteBuffer());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The output directory every rank agreed on at MPI_Init. */
    public Path outputDir() {
        try {
            MemorySegment s = (MemorySegment) outputDir.invokeExact();
            return Path.of(s.reinterpret(8192).getString(0));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Tells the loaded recorder that its output (the output directory, the rank dumps) is needed,
     * whatever another level that reads it (the accounting tool) said: jpmpi_profile_output(1).
     * Called while the dispatcher starts the JVM, when its level table cannot be asked yet, so the
     * recorder is found among the process's mappings (never loaded here). False if it is not
     * loaded, lacks the export, or the call fails.
     */
    static boolean needOutput() {
        // Plain loops, no lambdas: this runs in the JVM's first moments, where each costs its start.
        try (BufferedReader maps = Files.newBufferedReader(Path.of("/proc/self/maps"))) {
            String path = null;
            for (String line; path == null && (line = maps.readLine()) != null; ) {
                int slash = line.indexOf('/');
                if (slash > 0 && line.endsWith("/" + LIBRARY)) {
                    path = line.substring(slash);
                }
            }
            if (path == null) {
                return false;
            }
            Optional<MemorySegment> at = SymbolLookup.libraryLookup(Path.of(path), Arena.global())
                    .find("jpmpi_profile_output");
            if (at.isEmpty()) {
                return false;
            }
            Linker.nativeLinker().downcallHandle(at.get(), FunctionDescriptor.ofVoid(JAVA_INT)).invokeExact(1);
            return true;
        } catch (Throwable e) {
            return false; // the level says so at MPI_Finalize
        }
    }

    /** The profile is written: the recorder need not dump this rank at exit. */
    void written() {
        try {
            written.invokeExact();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
