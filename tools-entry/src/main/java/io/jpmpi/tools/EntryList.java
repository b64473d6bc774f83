package io.jpmpi.tools;

import io.jpmpi.platform.Toolchain;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.zip.ZipFile;

/**
 * An entry list (JPMPI_TOOLS_ENTRY syntax, plus the short names of jpmpi's own tools) checked on
 * the node that launches the job, so a bad item stops the job before any rank starts, and
 * rendered for the ranks with every tool as an absolute path.
 */
public record EntryList(List<Item> items) {
    /** The services file that lists a Java level's interceptors. */
    public static final String SERVICES = "META-INF/services/io.jpmpi.layering.Interceptor";
    public static final Set<String> KEYWORDS = Set.of("v", "vv", "fort", "fortran", "preload");
    /** How many levels the dispatcher holds: JPMPI_MAX_LEVELS of jpmpi.h (a test compares them). */
    public static final int MAX_LEVELS = 64;
    /** What {@code ldconfig -p} lists. */
    private static final Path LINKER_CACHE = Path.of("/etc/ld.so.cache");

    public enum Kind {
        KEYWORD, C_TOOL, JAVA_LEVEL
    }

    /** One item: as written, and what it resolved to (the keyword itself, or an absolute path). */
    public record Item(String written, Kind kind, String resolved) {
    }

    /**
     * Parses and checks {@code text} for a job on {@code impl}; fails with {@link ExitCode#BAD_ENTRY}
     * naming the first item that does not resolve.
     */
    public static EntryList resolve(String text, Layout layout, MpiImpl impl, Map<String, String> env)
            throws JpmpiException {
        List<Item> items = new ArrayList<>();
        if (text == null || text.isBlank()) {
            return new EntryList(List.of());
        }
        String[] parts = text.split(",", -1);
        // what each item resolved to, by its number: a tool is one level, listed once
        Map<String, Integer> firstPlace = new java.util.HashMap<>();
        for (int i = 0; i < parts.length; i++) {
            String w = parts[i].trim();
            String where = "tool list item " + (i + 1) + " '" + w + "'";
            if (w.isEmpty()) {
                throw new JpmpiException(ExitCode.BAD_ENTRY, "tool list item " + (i + 1) + " is empty (in '" + text + "')");
            }
            if (KEYWORDS.contains(w)) {
                items.add(new Item(w, Kind.KEYWORD, w));
                continue;
            }
            if (levels(items) == MAX_LEVELS) {
                throw tooMany(where);
            }
            Optional<BuiltinTools.Tool> builtin = BuiltinTools.byName(w);
            Integer before = firstPlace.putIfAbsent(builtin.isPresent() ? "tool " + w : "path " + w, i + 1);
            if (before != null) {
                throw new JpmpiException(ExitCode.BAD_ENTRY, where + ": listed already as item " + before
                        + "; a tool can be one level only");
            }
            Path path;
            if (builtin.isPresent()) {
                List<Path> paths = builtin.get().locate(layout, impl).orElseThrow(() -> new JpmpiException(
                        ExitCode.BAD_ENTRY, where + ": the built-in tool is not built (" + builtin.get().howToBuild() + ")"));
                for (int k = 0; k < paths.size(); k++) {
                    Plans.RECORDED.file(paths.get(k));
                    String part = paths.get(k).toString();
                    // Built-in tools share parts (profile and accounting: the recorder): one level each.
                    if (items.stream().noneMatch(it -> it.resolved.equals(part))) {
                        items.add(new Item(w, builtin.get().parts().get(k).kind(), part));
                    }
                }
                if (levels(items) > MAX_LEVELS) {
                    throw tooMany(where);
                }
                continue;
            }
            // a library of the user's: written down for a plan (the file, the names the loader would have
            // found first, what the loader says of it); a jar's checks are not (Java levels keep no plan)
            if (w.contains("/") || w.endsWith(".jar")) {
                path = pathOf(w, where);
            } else if (w.endsWith(".so") || w.contains(".so.")) {
                // as the dispatcher's dlopen does: the library path, never the working directory, where
                // anyone who can write there could plant one (./libx.so says the working directory)
                path = findLibrary(w, env).orElseThrow(() -> new JpmpiException(ExitCode.BAD_ENTRY, where + ": " + w
                        + " is not on LD_LIBRARY_PATH or in the linker cache (a library in the working directory is"
                        + " ./" + w + ")"));
            } else {
                path = findLibrary("lib" + w + ".so", env).orElseThrow(() -> new JpmpiException(ExitCode.BAD_ENTRY,
                        where + ": neither a built-in tool (" + String.join(", ", BuiltinTools.names())
                                + ") nor a keyword nor lib" + w + ".so on LD_LIBRARY_PATH or in the linker cache"));
            }
            if (!Files.exists(path)) {
                throw new JpmpiException(ExitCode.BAD_ENTRY, where + ": no such file " + path);
            }
            if (!Files.isRegularFile(path) && !Files.isDirectory(path)) {
                // a FIFO or a device: reading it could block (each kind says "is a directory" itself)
                throw new JpmpiException(ExitCode.BAD_ENTRY, where + ": is not a regular file");
            }
            // (before it is read: a change while it is read makes the plan outdated; its ELF header and
            // its symbols, read by nm, are the file's)
            Plans.RECORDED.file(path);
            Integer samePath = firstPlace.putIfAbsent("file " + realPath(path), i + 1);
            if (samePath != null && samePath != i + 1) {
                throw new JpmpiException(ExitCode.BAD_ENTRY, where + ": the same file as item " + samePath + " (" + path
                        + "); a tool can be one level only");
            }
            if (path.toString().endsWith(".jar")) {
                Plans.RECORDED.opaque("the Java level " + w);
                Optional<String> wrong = JavaLevelFile.whatIsWrong(path);
                if (wrong.isPresent()) {
                    throw new JpmpiException(ExitCode.BAD_ENTRY, where + ": " + wrong.get());
                }
                items.add(new Item(w, Kind.JAVA_LEVEL, path.toString()));
            } else {
                checkCTool(path, impl, where);
                items.add(new Item(w, Kind.C_TOOL, path.toString()));
            }
        }
        return new EntryList(List.copyOf(items));
    }

    /** The list as the ranks' dispatcher reads it. */
    public String render() {
        return String.join(",", items.stream().map(Item::resolved).toList());
    }

    public boolean hasJava() {
        return items.stream().anyMatch(i -> i.kind == Kind.JAVA_LEVEL);
    }

    public boolean preload() {
        return items.stream().anyMatch(i -> i.kind == Kind.KEYWORD && i.resolved.equals("preload"));
    }

    public boolean isEmpty() {
        return items.stream().noneMatch(i -> i.kind != Kind.KEYWORD);
    }

    public List<String> cTools() {
        return items.stream().filter(i -> i.kind == Kind.C_TOOL).map(Item::resolved).toList();
    }

    /** The interceptor classes a jar's services file lists (comments and blanks skipped). */
    public static List<String> interceptorsOf(Path jar) throws IOException {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            var e = zip.getEntry(SERVICES);
            if (e == null) {
                return List.of();
            }
            try (InputStream in = zip.getInputStream(e)) {
                List<String> out = new ArrayList<>();
                for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                    String t = line.replaceFirst("#.*", "").trim();
                    if (!t.isEmpty()) {
                        out.add(t);
                    }
                }
                return out;
            }
        }
    }

    /**
     * The item as a path. A JVM in a locale whose charset is not UTF-8 (the C locale's is ASCII)
     * cannot spell a path with other characters: it has lost them already, reading its arguments.
     */
    private static Path pathOf(String w, String where) throws JpmpiException {
        try {
            Path p = Path.of(w);
            if (!p.isAbsolute()) {
                Plans.RECORDED.workingDirectory();
            }
            return p.toAbsolutePath().normalize();
        } catch (java.nio.file.InvalidPathException e) {
            throw new JpmpiException(ExitCode.BAD_ENTRY, where + ": this JVM cannot spell the path in its file-system"
                    + " encoding " + System.getProperty("sun.jnu.encoding") + " (run jpmpi in a UTF-8 locale, e.g."
                    + " LANG=C.UTF-8; the ranks' locale does not matter)");
        }
    }

    private static int levels(List<Item> items) {
        return (int) items.stream().filter(it -> it.kind != Kind.KEYWORD).count();
    }

    private static JpmpiException tooMany(String where) {
        return new JpmpiException(ExitCode.BAD_ENTRY, where + ": more than " + MAX_LEVELS + " levels (JPMPI_MAX_LEVELS)");
    }

    /** The file itself, through links: the dispatcher's test for "the same library" is the loaded object. */
    private static Path realPath(Path path) {
        try {
            Path real = path.toRealPath();
            Plans.RECORDED.realPath(path, real);
            return real;
        } catch (IOException e) {
            Plans.RECORDED.opaque("no real path for " + path);
            return path;
        }
    }

    private static void checkCTool(Path lib, MpiImpl impl, String where) throws JpmpiException {
        try {
            Optional<String> wrong = CToolFile.whatIsWrong(lib);
            if (wrong.isEmpty()) {
                wrong = CToolFile.dependencyProblem(lib, impl);
            }
            if (wrong.isPresent()) {
                throw new JpmpiException(ExitCode.BAD_ENTRY, where + ": " + wrong.get());
            }
            Set<String> symbols = Toolchain.exportedSymbols(lib);
            if (symbols.stream().noneMatch(s -> s.startsWith("MPI_") || s.startsWith("mpi_"))) {
                throw new JpmpiException(ExitCode.BAD_ENTRY, where + ": defines no MPI_ function, so it is not a PMPI tool");
            }
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.BAD_ENTRY, where + ": cannot read it (" + e.getMessage() + ")");
        }
    }

    /**
     * {@code file} where the dynamic loader would find it: LD_LIBRARY_PATH, the linker cache, the default
     * dirs. Written down for a plan: each place it is not, the linker cache's file.
     */
    static Optional<Path> findLibrary(String file, Map<String, String> env) {
        Set<String> dirs = new LinkedHashSet<>();
        for (String d : env.getOrDefault("LD_LIBRARY_PATH", "").split(File.pathSeparator)) {
            if (!d.isEmpty()) {
                dirs.add(d);
            }
        }
        for (String d : dirs) {
            if (!d.startsWith("/")) {
                Plans.RECORDED.workingDirectory();
            }
            Optional<Path> p = regularFile(Path.of(d, file).toAbsolutePath());
            if (p.isPresent()) {
                return p;
            }
        }
        // ldconfig -p prints the linker cache: the cache file is what a plan writes down (its listing
        // is ~50 kB here, more on a site's login node, and would be run again from every plan)
        Plans.RECORDED.file(LINKER_CACHE);
        try {
            for (String line : Toolchain.run(List.of("/sbin/ldconfig", "-p")).split("\n")) {
                String t = line.trim();
                int arrow = t.lastIndexOf(" => ");
                if (t.startsWith(file + " ") && arrow > 0 && t.contains("x86-64") == isX86()) {
                    return Optional.of(Path.of(t.substring(arrow + 4)));
                }
            }
        } catch (IOException e) {
            // no linker cache: the default directories below
        }
        for (String d : List.of("/lib", "/usr/lib", "/lib64", "/usr/lib64")) {
            Optional<Path> p = regularFile(Path.of(d, file));
            if (p.isPresent()) {
                return p;
            }
        }
        return Optional.empty();
    }

    /** {@code p} if it is a regular file (links followed); else written down as not one. */
    private static Optional<Path> regularFile(Path p) {
        if (Files.isRegularFile(p)) {
            return Optional.of(p);
        }
        Plans.RECORDED.noFile(p);
        return Optional.empty();
    }

    private static boolean isX86() {
        return System.getProperty("os.arch").equals("amd64");
    }
}
