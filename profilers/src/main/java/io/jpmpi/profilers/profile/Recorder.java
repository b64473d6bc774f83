package io.jpmpi.profilers.profile;

import static java.lang.foreign.ValueLayout.ADDRESS;
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
    private final MethodHandle output;

    private Recorder(String path, SymbolLookup lib) {
        this.path = path;
        this.snapshotSize = handle(lib, "jpmpi_profile_snapshot_size", FunctionDescriptor.of(JAVA_LONG));
        this.snapshot = handle(lib, "jpmpi_profile_snapshot", FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_LONG));
        this.outputDir = handle(lib, "jpmpi_profile_output_dir", FunctionDescriptor.of(ADDRESS));
        this.written = handle(lib, "jpmpi_profile_written", FunctionDescriptor.ofVoid());
        this.output = handle(lib, "jpmpi_profile_output", FunctionDescriptor.ofVoid(JAVA_INT));
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
            if (got != size) {
                throw new IllegalStateException(LIBRARY + " gave a snapshot of " + got + " bytes, expected " + size);
            }
            return Snapshot.parse(buf.asByteBuffer());
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
     * Tells the recorder that its output (the output directory, the rank dumps) is needed, whatever
     * another level that reads it (the accounting tool) said; before MPI_Init returns to it.
     */
    void needOutput() {
        try {
            output.invokeExact(1);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
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
