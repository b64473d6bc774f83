package io.jpmpi.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jpmpi.platform.InstallLayout;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The tarball as a site gets it: unpacked outside the source tree, installed with its own
 * {@code bin/jpmpi install --prefix}, the installation moved once, and then used from there with
 * every build folder of the source tree hidden (a private mount namespace puts an empty read-only
 * file system over each {@code target/}), so nothing can reach back into the build.
 */
class InstallTreeIT {
    private static final Path SOURCE = Path.of(System.getProperty("jpmpi.source.root")).toAbsolutePath().normalize();
    private static final String VERSION_DIR = Path.of(System.getProperty("jpmpi.home")).getFileName().toString();
    private static Path work;
    private static Path prefix;
    private static List<Path> hidden;

    record Result(int exit, String out, String err) {
        String describe() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    @BeforeAll
    static void installAndMove() throws Exception {
        Path tarball = Path.of(System.getProperty("jpmpi.tarball"));
        assertTrue(Files.isRegularFile(tarball), () -> tarball + " is missing (the dist module's package makes it)");
        work = Files.createTempDirectory(Path.of("/tmp"), "jpmpi-install-it-");
        assertFalse(work.toRealPath().startsWith(SOURCE.toRealPath()), "the test prefix must be outside the source tree");
        Result untar = run(List.of("tar", "-xzf", tarball.toString(), "-C", work.toString()), Map.of(), work, false);
        assertEquals(0, untar.exit(), untar::describe);
        Path unpacked = work.resolve(VERSION_DIR);
        assertTrue(Files.isExecutable(unpacked.resolve("bin/jpmpi")), () -> "no bin/jpmpi in " + unpacked);
        try (Stream<Path> files = Files.walk(unpacked)) {
            assertTrue(files.noneMatch(p -> p.getFileName().toString().endsWith(".aot")),
                    "the tarball holds no AOT cache: a cache fits only the paths it was made for");
        }
        hidden = buildFolders();
        Path first = work.resolve("first");
        Result install = run(List.of(unpacked.resolve("bin/jpmpi").toString(), "install", "--prefix", first.toString()),
                Map.of(), work, true);
        assertEquals(0, install.exit(), install::describe);
        assertTrue(install.err().contains("installed jpmpi "), install::describe);
        prefix = work.resolve("moved");
        Files.move(first, prefix);
        // The demo program, compiled from the installation's example (the source tree's builds are hidden).
        for (String mpicc : List.of("mpicc.openmpi", "mpicc.mpich")) {
            Path exe = work.resolve("halo-" + mpicc.substring(6));
            Result cc = run(List.of(mpicc, "-O2", "-o", exe.toString(),
                    prefix.resolve("share/jpmpi/examples/halo-demo/halo.c").toString(), "-lm"), Map.of(), work, false);
            assertEquals(0, cc.exit(), cc::describe);
        }
    }

    @AfterAll
    static void removeIt() throws IOException {
        if (work != null) {
            try (Stream<Path> all = Files.walk(work)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** Every build folder of the source tree: what a moved installation must not need. */
    private static List<Path> buildFolders() throws IOException {
        try (Stream<Path> dirs = Files.find(SOURCE, 3, (p, a) -> a.isDirectory() && p.getFileName().toString().equals("target")
                && !p.toString().contains("/.git/"))) {
            List<Path> found = dirs.sorted().toList();
            assertTrue(found.contains(SOURCE.resolve("dist/target")), () -> "no build folders found: " + found);
            return found;
        }
    }

    /** Every place {@link InstallLayout} names is in the installation, for every MPI it was built for. */
    @Test
    void theInstallationHasEveryPartOfTheLayout() throws IOException {
        List<String> parts = new ArrayList<>(List.of(InstallLayout.LAUNCHER_SCRIPT, InstallLayout.PROPERTIES,
                InstallLayout.PRELOAD, InstallLayout.IN_PLACE, InstallLayout.PLAN_HELPER,
                InstallLayout.LIB + "/" + InstallLayout.STUB + "/libmpiprofilesupport.so", InstallLayout.INCLUDE + "/jpmpi.h",
                InstallLayout.JAVA_RUNTIME + "/" + InstallLayout.JVM_OPTIONS,
                InstallLayout.JAVA_RUNTIME + "/" + InstallLayout.TRAINING_JAR,
                InstallLayout.JAVA_LAUNCHER + "/jpmpi-probe.jar",
                InstallLayout.JAVA_LAUNCHER + "/licenses/jackson-core/META-INF/LICENSE",
                InstallLayout.JAVA_LAUNCHER + "/" + InstallLayout.LAUNCHER_JVM_OPTIONS,
                InstallLayout.JAVA_API + "/jpmpi-layering.jar", InstallLayout.JAVA_API + "/jpmpi-layering-sources.jar",
                InstallLayout.JAVA_API + "/jpmpi-layering-javadoc.jar",
                InstallLayout.JAVA_TOOLS + "/jpmpi-profile/jpmpi-profile.jar", InstallLayout.JAVA_TOOLS + "/jpmpi-hwc/jpmpi-hwc.jar",
                InstallLayout.JAVA_TOOLS + "/jpmpi-mpit/jpmpi-mpit.jar",
                InstallLayout.JAVA_TOOLS + "/java-counter/jpmpi-java-counter.jar",
                InstallLayout.EXAMPLES + "/halo-demo/halo.c", InstallLayout.EXAMPLES + "/c-tools/mpicount.c",
                InstallLayout.DOC + "/README.md", InstallLayout.NEW_TOOL + "/mvnw",
                InstallLayout.NEW_TOOL + "/maven-wrapper.properties", InstallLayout.BUILTIN_TOOLS, InstallLayout.RANK_ENTRY));
        String version = Files.readString(prefix.resolve(InstallLayout.PROPERTIES)).lines()
                .filter(l -> l.startsWith(InstallLayout.VERSION_KEY + "=")).findFirst().orElseThrow().substring(8);
        parts.add(InstallLayout.MODULEFILES + "/jpmpi/" + version);
        parts.add(InstallLayout.MODULEFILES + "/jpmpi/" + version + ".lua");
        for (String jar : InstallLayout.LAUNCHER_JARS) {
            parts.add(InstallLayout.JAVA_LAUNCHER + "/" + jar);
        }
        for (String jar : InstallLayout.RUNTIME_JARS) {
            parts.add(InstallLayout.JAVA_RUNTIME + "/" + jar);
        }
        for (String impl : List.of("openmpi", "mpich")) {
            for (String lib : List.of("libmpiprofilesupport.so", "libmpiprofilesupport-abi.so", "jpmpi-build.properties",
                    "libjpmpi-profile.so", "libjpmpi-hwc.so", "libjpmpi-accounting.so", "libmpicount.so")) {
                parts.add(InstallLayout.LIB + "/" + impl + "/" + lib);
            }
            parts.add(InstallLayout.LIBEXEC + "/" + impl + "/jpmpi-mpit-probe");
        }
        List<String> missing = parts.stream().filter(p -> !Files.isRegularFile(prefix.resolve(p))).toList();
        assertEquals(List.of(), missing, "missing from the installation " + prefix);
        assertTrue(Files.readString(prefix.resolve(InstallLayout.PROPERTIES)).contains(InstallLayout.JAVA_HOME_KEY + "="));
    }

    /**
     * The launcher's class path is two jars (tools-entry's pom, "launcher-jar"): every runtime dependency's
     * classes but jpmpi-platform's in one, with jackson-core's classes for later JDKs and the manifest's
     * Multi-Release that makes the JVM take them, both jackson jars' services files, no module descriptor,
     * and no class file older than the launcher's AOT cache can hold (picocli's, upgraded); and
     * jpmpi-platform.jar, small, with the launchers' grammars.
     */
    @Test
    void theLaunchersClassPathIsTwoJars() throws IOException {
        Path app = prefix.resolve(InstallLayout.JAVA_LAUNCHER);
        try (Stream<Path> files = Files.list(app)) {
            List<String> expected = new ArrayList<>(InstallLayout.LAUNCHER_JARS);
            expected.add("jpmpi-probe.jar");
            assertEquals(expected.stream().sorted().toList(), files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".jar")).sorted().toList());
        }
        assertFalse(Files.exists(app.resolve("lib")), "a lib/ beside the launcher's jars");
        try (JarFile platform = new JarFile(app.resolve("jpmpi-platform.jar").toFile())) {
            assertTrue(platform.getEntry("io/jpmpi/platform/launchers/hydra.grammar") != null, "no grammar in jpmpi-platform.jar");
            assertTrue(platform.size() < 100, () -> platform.size() + " entries in jpmpi-platform.jar");
        }
        try (JarFile jar = new JarFile(app.resolve(InstallLayout.LAUNCHER_JARS.getFirst()).toFile(), true,
                ZipFile.OPEN_READ, Runtime.version())) {
            assertTrue(jar.isMultiRelease(), "the launcher's jar is not multi-release");
            assertTrue(jar.getEntry("io/jpmpi/platform/LauncherGrammar.class") == null, "jpmpi-platform's classes merged");
            for (String c : List.of("io/jpmpi/tools/Main", "io/jpmpi/profilers/report/TextReport", "io/jpmpi/specs/SpecJson",
                    "io/jpmpi/layering/Interceptor", "picocli/CommandLine", "com/fasterxml/jackson/core/JsonFactory",
                    "com/fasterxml/jackson/databind/ObjectMapper", "org/objectweb/asm/ClassReader")) {
                assertTrue(jar.getEntry(c + ".class") != null, () -> c + " is not in the launcher's jar");
            }
            List<String> names = jar.stream().map(JarEntry::getName).toList();
            assertTrue(names.stream().anyMatch(n -> n.startsWith("META-INF/versions/21/com/fasterxml/jackson/core/")),
                    "jackson-core's classes for later JDKs are missing");
            assertTrue(names.contains("META-INF/services/com.fasterxml.jackson.core.JsonFactory")
                    && names.contains("META-INF/services/com.fasterxml.jackson.core.ObjectCodec"), "a services file is missing");
            assertEquals(List.of(), names.stream().filter(n -> n.endsWith("module-info.class")).toList());
            List<String> old = new ArrayList<>();
            List<String> concat = new ArrayList<>();
            for (JarEntry e : jar.stream().filter(e -> e.getName().endsWith(".class")).toList()) {
                try (var in = jar.getInputStream(e)) {
                    byte[] bytes = in.readAllBytes();
                    if (((bytes[6] & 0xff) << 8 | bytes[7] & 0xff) < 50) {
                        old.add(e.getName());
                    }
                    if (e.getName().startsWith("io/jpmpi/") && linksStringConcatenation(bytes)) {
                        concat.add(e.getName());
                    }
                }
            }
            assertEquals(List.of(), old, "class files older than version 50");
            assertEquals(List.of(), concat, "jpmpi's classes with invokedynamic string concatenation (the root pom's"
                    + " -XDstringConcat=inline: each such site costs the launcher's cold JVM a hidden class)");
        }
        try (JarFile platform = new JarFile(app.resolve("jpmpi-platform.jar").toFile())) {
            for (JarEntry e : platform.stream().filter(e -> e.getName().endsWith(".class")).toList()) {
                try (var in = platform.getInputStream(e)) {
                    assertFalse(linksStringConcatenation(in.readAllBytes()), () -> e.getName() + " concatenates strings"
                            + " through invokedynamic");
                }
            }
        }
    }

    /** Whether a class file names StringConcatFactory's bootstrap method (a `+` of strings compiled to invokedynamic). */
    private static boolean linksStringConcatenation(byte[] classFile) {
        String text = new String(classFile, StandardCharsets.ISO_8859_1);
        return text.contains("java/lang/invoke/StringConcatFactory");
    }

    @Test
    void runsBothMpisThroughTheLauncher() throws Exception {
        Map<String, List<String>> launchers = Map.of(
                "openmpi", List.of("mpirun", "--oversubscribe", "-np", "2"),
                "mpich", List.of("mpiexec.hydra", "-n", "2"));
        for (var e : launchers.entrySet()) {
            Path out = work.resolve("profile-" + e.getKey());
            List<String> command = new ArrayList<>(List.of(prefix.resolve("bin/jpmpi").toString(), "run", "--tools",
                    "profile,java-counter", "--output", out.toString(), "--"));
            command.addAll(e.getValue());
            command.add(work.resolve("halo-" + e.getKey()).toString());
            Result r = run(command, Map.of(), work, true);
            assertEquals(0, r.exit(), () -> e.getKey() + ": " + r.describe());
            assertCounted(r, e.getKey());
            for (String f : List.of("profile.json", "report.txt", "report.html")) {
                assertTrue(Files.isRegularFile(out.resolve(f)), () -> e.getKey() + ": no " + f + "\n" + r.describe());
            }
            assertTrue(Files.readString(out.resolve("profile.json")).contains("\"MPI_Isend\""), e.getKey());
            assertNothingFromTheSourceTree(r);
        }
    }

    /** The Open MPI way without the launcher: the dispatcher preloaded, the list in the MCA parameter. */
    @Test
    void runsByHandWithOnlyThePreloadAndTheMcaParameter() throws Exception {
        String jar = prefix.resolve("share/jpmpi/java/tools/java-counter/jpmpi-java-counter.jar").toString();
        String cTool = prefix.resolve("lib/openmpi/libmpicount.so").toString();
        List<String> command = List.of("mpirun", "--oversubscribe", "-np", "2", "--mca", "ompi_tools_entry",
                jar + "," + cTool, work.resolve("halo-openmpi").toString());
        Result r = run(command, Map.of("LD_PRELOAD", prefix.resolve("lib/openmpi/libmpiprofilesupport.so").toString()),
                work, true);
        assertEquals(0, r.exit(), r::describe);
        assertCounted(r, "openmpi");
        // The C tool below the Java level: its table (rank 0 prints it) has both ranks' 100 Isends.
        assertTrue(r.out().contains("mpicount: 2 ranks\n"), r::describe);
        assertEquals(1, r.out().lines().filter(l -> l.matches("mpicount: MPI_Isend +200 .*")).count(), r::describe);
        assertNothingFromTheSourceTree(r);
    }

    @Test
    void doctorIsReadyAndRemakesTheAotCacheOfTheMovedTree() throws Exception {
        String jpmpi = prefix.resolve("bin/jpmpi").toString();
        Result moved = run(List.of(jpmpi, "doctor"), Map.of(), work, true);
        assertEquals(0, moved.exit(), moved::describe);
        assertTrue(moved.out().lines().anyMatch(l -> l.startsWith("warn  the AOT cache was made for the runtime at "
                + work.resolve("first")) && l.endsWith("-- fix: " + jpmpi + " aot")), moved::describe);
        // the launcher's own cache too, which the moved bin/jpmpi left out quietly (the JVM would complain)
        assertTrue(moved.out().lines().anyMatch(l -> l.startsWith("warn  the launcher's AOT cache was made for the"
                + " launcher at " + work.resolve("first")) && l.endsWith("-- fix: " + jpmpi + " aot")), moved::describe);
        assertFalse(moved.err().contains("AOT cache"), () -> "the launcher's JVM complained\n" + moved.describe());
        assertTrue(moved.out().contains("2-rank smoke run through a Java level"), moved::describe);
        assertNothingFromTheSourceTree(moved);

        Result aot = run(List.of(jpmpi, "aot"), Map.of(), work, true);
        assertEquals(0, aot.exit(), aot::describe);
        Result again = run(List.of(jpmpi, "doctor", "--no-smoke"), Map.of(), work, true);
        assertEquals(0, again.exit(), again::describe);
        assertTrue(again.out().lines().anyMatch(l -> l.startsWith("ok    AOT cache for JDK ")), again::describe);
        assertTrue(again.out().lines().anyMatch(l -> l.startsWith("ok    launcher's AOT caches for JDK ")), again::describe);
        assertTrue(again.out().contains("jpmpi doctor: ready\n"), again::describe);
    }

    /**
     * The ranks' JVM is given the options of the installation's AOT cache's info file that map the
     * cache where it was made to be mapped (map.options; the JVM would refuse to start with an option
     * it does not know, and says nothing of the cache here): the dispatcher's vv listing names them.
     */
    @Test
    void theRanksJvmGetsTheCachesMapOptions() throws Exception {
        int major = Runtime.version().feature();
        assumeTrue(major >= 25, "an AOT cache needs JDK 25 or later");
        String jar = prefix.resolve("share/jpmpi/java/tools/java-counter/jpmpi-java-counter.jar").toString();
        List<String> command = List.of("mpirun", "--oversubscribe", "-np", "2", work.resolve("halo-openmpi").toString());
        Result r = run(command, Map.of("LD_PRELOAD", prefix.resolve("lib/openmpi/libmpiprofilesupport.so").toString(),
                "JPMPI_TOOLS_ENTRY", "vv," + jar), work, true);
        assertEquals(0, r.exit(), r::describe);
        assertCounted(r, "openmpi");
        String given = "with the AOT/CDS archive (map.options: -XX:+UnlockDiagnosticVMOptions -XX:ArchiveRelocationMode=0)";
        assertEquals(1, r.err().lines().filter(l -> l.startsWith("jpmpi: JVM start ") && l.contains(given)).count(),
                r::describe);
    }

    /** java-counter's line from each of the 2 ranks: the Java level ran in the moved installation. */
    private static void assertCounted(Result r, String impl) {
        for (int rank = 0; rank < 2; rank++) {
            String prefix = "count java-counter rank " + rank + ": ";
            assertEquals(1, (r.out() + r.err()).lines().filter(l -> l.startsWith(prefix) && l.contains("MPI_Isend=100"))
                    .count(), () -> impl + ": " + r.describe());
        }
        assertFalse(r.err().contains("AOT cache"), () -> impl + ": the JVM complained about its cache\n" + r.describe());
    }

    private static void assertNothingFromTheSourceTree(Result r) {
        assertFalse((r.out() + r.err()).contains(SOURCE + "/"), () -> "output names the source tree " + SOURCE + "\n"
                + r.describe());
    }

    /**
     * Runs {@code command} in {@code dir}; with {@code hide}, inside a private mount namespace whose
     * source-tree build folders are empty. The environment is the test's without any jpmpi, MPI tool or
     * JDK variable: the installation must find its parts and its JDK by itself.
     */
    private static Result run(List<String> command, Map<String, String> env, Path dir, boolean hide) throws Exception {
        List<String> full = new ArrayList<>();
        if (hide) {
            StringBuilder script = new StringBuilder("set -e; ");
            for (Path p : hidden) {
                script.append("mount -t tmpfs -o ro,size=4k jpmpi-hidden '").append(p).append("'; ");
            }
            script.append("exec \"$@\"");
            full.addAll(List.of("unshare", "--mount", "--propagation", "private", "sh", "-c", script.toString(), "sh"));
        }
        full.addAll(command);
        Path out = Files.createTempFile(work, "out-", ".txt");
        Path err = Files.createTempFile(work, "err-", ".txt");
        ProcessBuilder pb = new ProcessBuilder(full).directory(dir.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Map<String, String> e = pb.environment();
        e.keySet().removeIf(k -> k.startsWith("JPMPI_") || k.equals("LD_PRELOAD") || k.startsWith("OMPI_MCA_")
                || k.equals("JAVA_HOME") || k.startsWith("MAVEN") || k.equals("CLASSPATH"));
        e.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        e.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        e.putAll(env);
        Process p = pb.start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            return new Result(-1, Files.readString(out), Files.readString(err) + "\n(timed out after 5 minutes)");
        }
        return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    }
}
