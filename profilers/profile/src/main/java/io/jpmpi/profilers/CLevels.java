package io.jpmpi.profilers;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The C levels of the built-in tools as their Java levels see them: found by file name among the
 * levels of the dispatcher's table (so the library already loaded is the one called), then
 * called through FFM.
 */
@SuppressWarnings("restricted") // the C levels are native code by design
public final class CLevels {
    private static final Linker LINKER = Linker.nativeLinker();

    private CLevels() {
    }

    /** The loaded C level whose file is {@code library} (e.g. libjpmpi-hwc.so), if the entry list has it. */
    public static Optional<Path> find(String library) {
        SymbolLookup dispatcher = SymbolLookup.libraryLookup("libmpiprofilesupport.so", Arena.global());
        MethodHandle count = LINKER.downcallHandle(dispatcher.find("jpmpi_level_count").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT));
        MethodHandle entry = LINKER.downcallHandle(dispatcher.find("jpmpi_level_entry").orElseThrow(),
                FunctionDescriptor.of(ADDRESS, JAVA_INT));
        try {
            int n = (int) count.invokeExact();
            for (int i = 0; i < n; i++) {
                MemorySegment s = (MemorySegment) entry.invokeExact(i);
                if (s.address() == 0) {
                    continue;
                }
                String p = s.reinterpret(4096).getString(0);
                if (p.endsWith("/" + library) || p.equals(library)) {
                    return Optional.of(Path.of(p));
                }
            }
            return Optional.empty();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The symbols of the C level at {@code path}. */
    public static SymbolLookup open(Path path) {
        return SymbolLookup.libraryLookup(path, Arena.global());
    }

    /** A downcall handle to {@code name} in {@code lib}; fails naming the library if it lacks it. */
    public static MethodHandle handle(SymbolLookup lib, Path path, String name, FunctionDescriptor d) {
        MemorySegment at = lib.find(name).orElseThrow(() -> new IllegalStateException(path + " lacks " + name));
        return LINKER.downcallHandle(at, d);
    }
}
