package io.jpmpi.platform;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The compiler wrappers of one installed MPI implementation, and what can be read through them:
 * the preprocessed mpi.h, its macros, and the symbols of its Fortran binding libraries.
 *
 * @param id short key ({@code openmpi}, {@code mpich})
 * @param name human name
 * @param cc the C compiler wrapper
 * @param showFlag the wrapper's flag that prints the underlying command line
 * @param fc the Fortran compiler wrapper
 * @param mpirun the launcher
 */
public record Toolchain(String id, String name, String cc, String showFlag, String fc, String mpirun) {

    /** The implementations jpmpi knows how to find, by the Debian names of their wrappers. */
    public static final List<Toolchain> KNOWN = List.of(
            new Toolchain("mpich", "MPICH", "mpicc.mpich", "-show", "mpifort.mpich", "mpiexec.hydra"),
            new Toolchain("openmpi", "Open MPI", "mpicc.openmpi", "-showme", "mpifort.openmpi", "mpirun.openmpi"));

    /** The known implementations whose C wrapper is on the PATH. */
    public static List<Toolchain> installed() {
        return KNOWN.stream().filter(t -> onPath(t.cc)).toList();
    }

    public static Toolchain byId(String id) {
        return KNOWN.stream().filter(t -> t.id.equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown MPI implementation '" + id
                        + "' (known: openmpi, mpich)"));
    }

    static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The headers that declare the implementation's C API: mpi.h, and its extensions' header
     * mpi-ext.h where the implementation has one (Open MPI: MPIX_ persistent collectives, ...).
     */
    public List<String> headers() throws IOException {
        List<String> h = new ArrayList<>(List.of("mpi.h"));
        try {
            run(List.of(cc, "-E", "-x", "c", "-include", "mpi.h", "-include", "mpi-ext.h", "/dev/null"));
            h.add("mpi-ext.h");
        } catch (IOException none) {
            // no mpi-ext.h: MPICH declares its MPIX_ functions in mpi.h
        }
        return h;
    }

    /** {@code -include H} for each of {@link #headers()}. */
    public List<String> includeFlags() throws IOException {
        List<String> flags = new ArrayList<>();
        for (String h : headers()) {
            flags.add("-include");
            flags.add(h);
        }
        return flags;
    }

    /** The headers (mpi.h, mpi-ext.h where there is one) after the preprocessor, without line markers. */
    public String preprocessedHeader() throws IOException {
        List<String> command = new ArrayList<>(List.of(cc, "-E", "-P", "-x", "c"));
        command.addAll(includeFlags());
        command.add("/dev/null");
        return run(command);
    }

    /** Every macro mpi.h defines, by name. */
    public Map<String, String> macros() throws IOException {
        Map<String, String> out = new TreeMap<>();
        for (String line : run(List.of(cc, "-dM", "-E", "-x", "c", "-include", "mpi.h", "/dev/null")).split("\n")) {
            String[] parts = line.split("\\s+", 3);
            if (parts.length >= 2 && parts[0].equals("#define")) {
                out.put(parts[1], parts.length == 3 ? parts[2].trim() : "");
            }
        }
        return out;
    }

    /** "4.1.4" for Open MPI, "4.0.2" for MPICH, read from mpi.h. */
    public String version(Map<String, String> macros) {
        if (macros.containsKey("OMPI_MAJOR_VERSION")) {
            return macros.get("OMPI_MAJOR_VERSION") + "." + macros.get("OMPI_MINOR_VERSION") + "."
                    + macros.get("OMPI_RELEASE_VERSION");
        }
        String v = macros.getOrDefault("MPICH_VERSION", "unknown");
        return v.replace("\"", "");
    }

    /** The shared libraries the Fortran wrapper links, in link order. */
    public List<Path> fortranLibraries() throws IOException {
        if (!onPath(fc)) {
            return List.of();
        }
        List<String> fortranWords = words(fc);
        List<String> dirWords = new ArrayList<>(fortranWords);
        dirWords.addAll(words(cc));
        return linked(fortranWords, dirWords);
    }

    /** The C libraries the C wrapper links (libmpi.so for Open MPI, libmpich.so for MPICH), resolved. */
    public List<Path> cLibraries() throws IOException {
        List<String> words = words(cc);
        return linked(words, words);
    }

    /** The wrapper's underlying command line, word by word. */
    private List<String> words(String wrapper) throws IOException {
        return List.of(run(List.of(wrapper, showFlag)).trim().split("\\s+"));
    }

    /** The {@code -lX} of {@code libWords}, found in the {@code -L} directories of {@code dirWords} (or gcc's). */
    private List<Path> linked(List<String> libWords, List<String> dirWords) throws IOException {
        Set<Path> dirs = new LinkedHashSet<>();
        for (String w : dirWords) {
            if (w.startsWith("-L") && w.length() > 2) {
                dirs.add(Path.of(w.substring(2)));
            }
        }
        List<Path> out = new ArrayList<>();
        for (String w : libWords) {
            if (w.startsWith("-l") && w.length() > 2) {
                Path found = resolve(w.substring(2), dirs);
                if (found != null) {
                    out.add(found);
                }
            }
        }
        return out;
    }

    private Path resolve(String lib, Set<Path> dirs) throws IOException {
        String file = "lib" + lib + ".so";
        for (Path d : dirs) {
            if (Files.exists(d.resolve(file))) {
                return d.resolve(file).toRealPath();
            }
        }
        String p = run(List.of("gcc", "-print-file-name=" + file)).trim();
        return p.contains("/") && Files.exists(Path.of(p)) ? Path.of(p).toRealPath() : null;
    }

    /** The dynamic symbols a shared library defines ({@code nm -D --defined-only}). */
    public static Set<String> exportedSymbols(Path library) throws IOException {
        return defined(library, "");
    }

    /** The functions a shared library defines: {@link #exportedSymbols} of type T, W or i (not data). */
    public static Set<String> exportedFunctions(Path library) throws IOException {
        return defined(library, "TWi");
    }

    /** nm -D --defined-only, the symbols of the types listed (empty: all). */
    private static Set<String> defined(Path library, String types) throws IOException {
        Set<String> out = new TreeSet<>();
        for (String line : run(List.of("nm", "-D", "--defined-only", library.toString())).split("\n")) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length == 3 && (types.isEmpty() || types.contains(parts[1]))) {
                out.add(parts[2].replaceFirst("@.*$", ""));
            }
        }
        return out;
    }

    /** Runs a tool (nm, readelf, a compiler wrapper) and returns its stdout; fails on a non-zero exit. */
    public static String run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(false).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("timed out: " + String.join(" ", command));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed (exit " + p.exitValue() + "): "
                    + new String(err, StandardCharsets.UTF_8).trim());
        }
        return new String(out, StandardCharsets.UTF_8);
    }
}
