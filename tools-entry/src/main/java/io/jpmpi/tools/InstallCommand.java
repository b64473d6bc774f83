package io.jpmpi.tools;

import io.jpmpi.platform.InstallLayout;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jpmpi install --prefix DIR}: copies the installation this launcher runs from (the build's
 * tree, or an unpacked tarball) to DIR, records the JDK the ranks start there, and makes the AOT
 * cache for that JDK and that place. Every path in the tree is relative, so DIR may be moved later;
 * only the AOT cache is then left unused (doctor says so, {@code jpmpi aot} remakes it).
 */
@Command(name = "install", mixinStandardHelpOptions = true,
        description = {"Install jpmpi into a prefix: bin/jpmpi, lib/<mpi>/ (dispatchers, C levels), share/jpmpi/"
                + " (Java runtime, tools, examples), include/, share/doc/jpmpi/; record the ranks' JDK; make the AOT"
                + " cache for it."})
public final class InstallCommand implements Callable<Integer> {
    @Option(names = "--prefix", paramLabel = "DIR", required = true, description = "Where to install (created).")
    Path prefix;

    @Option(names = "--java-home", paramLabel = "JDK", description = "The JDK (>= 22) ranks start for Java levels"
            + " when neither JPMPI_JAVA_HOME nor JAVA_HOME is set (default: the JDK running jpmpi).")
    Path javaHome;

    @Option(names = "--no-aot", description = "Do not make the AOT cache (Java levels then start slower).")
    boolean noAot;

    private final Context ctx;

    public InstallCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws JpmpiException {
        Path from = real(ctx.layout().home());
        Path to = prefix.toAbsolutePath().normalize();
        Jdk jdk = ranksJdk();
        if (Files.exists(to) && real(to).startsWith(from) || from.startsWith(Files.exists(to) ? real(to) : to)) {
            throw new JpmpiException(ExitCode.USAGE, "install: --prefix " + to + " overlaps the installation it"
                    + " copies (" + from + ")");
        }
        if (Files.isDirectory(to) && !isEmpty(to) && !Files.isRegularFile(to.resolve(InstallLayout.PROPERTIES))) {
            throw new JpmpiException(ExitCode.USAGE, "install: --prefix " + to + " is not empty and is not a jpmpi"
                    + " installation; choose an empty or new directory");
        }
        copyTree(from, to);
        to = real(to);
        Layout installed = new Layout(to);
        java.util.Properties built = ctx.layout().properties();
        String version = built.getProperty(InstallLayout.VERSION_KEY, "unknown");
        try {
            Files.writeString(installed.propertiesFile(), "# jpmpi installation (bin/jpmpi install)\n"
                    + InstallLayout.VERSION_KEY + "=" + version + "\n"
                    + InstallLayout.COMMIT_KEY + "=" + built.getProperty(InstallLayout.COMMIT_KEY, "unknown") + "\n"
                    + InstallLayout.BUILD_DATE_KEY + "=" + built.getProperty(InstallLayout.BUILD_DATE_KEY, "unknown") + "\n"
                    + InstallLayout.JAVA_HOME_KEY + "=" + jdk.home() + "\n");
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.CANNOT_START, "install: cannot write " + installed.propertiesFile()
                    + ": " + e.getMessage());
        }
        ctx.note("installed jpmpi " + version + " in " + to + "; ranks start JDK " + jdk.version() + " at "
                + jdk.home() + " unless JPMPI_JAVA_HOME or JAVA_HOME says otherwise");
        if (noAot || jdk.major() < AotCache.MIN_MAJOR) {
            ctx.note("no AOT cache" + (noAot ? " (--no-aot)" : " (JDK " + jdk.major() + " has none; "
                    + AotCache.MIN_MAJOR + " or later has)") + ": Java levels and bin/jpmpi start slower");
        } else {
            ctx.note("AOT cache for JDK " + jdk.major() + ": " + AotCache.make(installed, jdk));
            List<Path> launcher = AotCache.makeLauncher(installed, jdk);
            ctx.note("launcher's AOT caches for JDK " + jdk.major() + ": " + launcher.get(0) + ", " + launcher.get(1));
        }
        ctx.note("use it: " + to.resolve(InstallLayout.LAUNCHER_SCRIPT) + " run --tools profile -- mpirun ...; by hand:"
                + " LD_PRELOAD=" + installed.dispatcher("<mpi>") + " with JPMPI_TOOLS_ENTRY (or --mca ompi_tools_entry)");
        return ExitCode.OK.code;
    }

    private Jdk ranksJdk() throws JpmpiException {
        Path home = javaHome != null ? javaHome.toAbsolutePath().normalize() : Jdk.forRanks(ctx.env());
        Jdk jdk = Jdk.at(home).orElseThrow(() -> new JpmpiException(ExitCode.NO_JDK, "install: " + home
                + " is not a JDK (no release file)"));
        if (!jdk.problems().isEmpty()) {
            throw new JpmpiException(ExitCode.NO_JDK, "install: the JDK at " + home + " cannot serve Java levels: "
                    + String.join("; ", jdk.problems()));
        }
        return new Jdk(real(home), jdk.version(), jdk.major());
    }

    /** Copies the tree, keeping modes and times (the JVM checks a jar's time against the AOT cache's). */
    private static void copyTree(Path from, Path to) throws JpmpiException {
        try {
            Files.walkFileTree(from, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                    if (dir.equals(from.resolve(InstallLayout.EXAMPLES).resolve("halo-demo").resolve(DemoCommand.BUILD_DIR))) {
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    Files.createDirectories(to.resolve(from.relativize(dir)));
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    String name = file.getFileName().toString();
                    if (name.endsWith(".aot") || name.endsWith(".aot" + InstallLayout.AOT_INFO_SUFFIX)) {
                        return FileVisitResult.CONTINUE; // made again for the new place
                    }
                    Files.copy(file, to.resolve(from.relativize(file)), StandardCopyOption.REPLACE_EXISTING,
                            StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.CANNOT_START, "install: copying " + from + " to " + to + " failed: "
                    + e);
        }
    }

    private static boolean isEmpty(Path dir) throws JpmpiException {
        try (var s = Files.list(dir)) {
            return s.findAny().isEmpty();
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.USAGE, "install: cannot read " + dir + ": " + e.getMessage());
        }
    }

    /** {@code p} without symbolic links (as the dispatcher spells paths), or made absolute if it does not exist. */
    static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p.toAbsolutePath().normalize();
        }
    }
}
