package io.jpmpi.tools;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An MPI C library asked about itself in this JVM, through FFM: {@code MPI_Get_library_version}
 * may be called before MPI_Init, so nothing is started.
 */
public final class MpiLibrary {
    /** Larger than MPI_MAX_LIBRARY_VERSION_STRING of both (Open MPI 256, MPICH 8192). */
    private static final int MAX_VERSION = 16384;
    private static final Pattern OPEN_MPI = Pattern.compile("Open MPI v(\\d+\\.\\d+\\.\\d+)");
    private static final Pattern MPICH = Pattern.compile("MPICH Version:\\s*(\\d+\\.\\d+(?:\\.\\d+)?)");

    /** What the library says: its first line and the version number in it. */
    public record Answer(String soname, String firstLine, String version) {
    }

    private MpiLibrary() {
    }

    /** Loads {@code soname} as the dynamic loader would for a rank and asks it; empty if it does not load. */
    @SuppressWarnings("restricted")
    public static Optional<Answer> ask(String soname) throws JpmpiException {
        SymbolLookup lib;
        try {
            lib = SymbolLookup.libraryLookup(soname, Arena.global());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        MemorySegment fn = lib.find("MPI_Get_library_version").orElseThrow(() -> new JpmpiException(
                ExitCode.NOT_MPI, soname + " has no MPI_Get_library_version: not an MPI 3 library"));
        MethodHandle h = Linker.nativeLinker().downcallHandle(fn,
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(MAX_VERSION);
            MemorySegment len = arena.allocate(ValueLayout.JAVA_INT);
            int rc = (int) h.invokeExact(text, len);
            if (rc != 0) {
                throw new JpmpiException(ExitCode.NOT_MPI, soname + ": MPI_Get_library_version returned " + rc);
            }
            String s = text.getString(0);
            String first = s.lines().map(l -> l.trim().replaceAll("\\s+", " ")).filter(l -> !l.isEmpty()).findFirst()
                    .orElse("");
            return Optional.of(new Answer(soname, first, versionIn(s)));
        } catch (JpmpiException e) {
            throw e;
        } catch (Throwable t) {
            throw new JpmpiException(ExitCode.INTERNAL, soname + ": MPI_Get_library_version failed: " + t);
        }
    }

    /** "4.1.4" from Open MPI's or MPICH's version text, else "unknown". */
    static String versionIn(String text) {
        for (Pattern p : new Pattern[] {OPEN_MPI, MPICH}) {
            Matcher m = p.matcher(text);
            if (m.find()) {
                return m.group(1);
            }
        }
        return "unknown";
    }
}
