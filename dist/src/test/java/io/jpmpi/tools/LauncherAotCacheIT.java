package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jpmpi.testsupport.MpiRun.Impl;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The launcher's own AOT cache of the development installation holds what a job's launcher runs:
 * the launcher's JVM started as bin/jpmpi starts it (the installation's jvm.options, the cache, the
 * class path its info file names, which bin/jpmpi compares with its own) runs a real
 * {@code jpmpi run --tools profile} of 2 ranks, and the JVM's class-loading log says where each
 * class came from: picocli's (class files rewritten by the build, tools-entry's UpgradeClassFiles) and
 * jpmpi's own (io.jpmpi: the launcher, the merge, the reports) from the cache ("shared objects file"),
 * none read from a jar; and bin/jpmpi gives its JVM that cache.
 */
class LauncherAotCacheIT {
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void picocliAndTheLaunchersClassesComeFromTheCache(Impl impl) throws Exception {
        Path cache = launcherCache("jpmpi-launcher-jdk");
        Properties info = info(cache);
        Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "launcher-aot-");
        Path log = dir.resolve("class-load.txt");
        Path aotLog = dir.resolve("aot.txt");
        List<String> command = launcher(cache, info, "-Xlog:class+load=info:file=" + log, "-Xlog:aot=info:file=" + aotLog);
        command.addAll(LauncherIT.run(List.of("--tools", "profile", "--output", dir.resolve("profile").toString()), impl,
                2, "pingpong"));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(dir.resolve("stdout.txt").toFile()).redirectError(dir.resolve("stderr.txt").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().keySet().removeIf(k -> k.startsWith("JPMPI_") || k.equals("LD_PRELOAD") || k.startsWith("OMPI_MCA_"));
        pb.environment().putAll(Map.of("OMPI_ALLOW_RUN_AS_ROOT", "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"));
        Process p = pb.start();
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the job did not end");
        String err = Files.readString(dir.resolve("stderr.txt"));
        String describe = "exit " + p.exitValue() + " (files in " + dir + ")\n--- stderr\n" + err;
        assertEquals(0, p.exitValue(), describe);
        assertFalse(err.contains("AOT") || err.contains("CDS"), () -> "the JVM complained about its cache\n" + describe);
        assertTrue(Files.isRegularFile(dir.resolve("profile/report.html")), describe);
        // the cache asked to be mapped where it was made (not at a random address, every pointer moved)
        assertTrue(Files.readString(aotLog).contains("ArchiveRelocationMode: 0"), () -> "the cache's map.options"
                + " did not reach the JVM (" + aotLog + ")");

        List<String> loaded = Files.readAllLines(log);
        List<String> picocli = loaded.stream().filter(l -> l.contains(" picocli.")).toList();
        assertTrue(picocli.size() > 100, () -> picocli.size() + " of picocli's classes loaded\n" + String.join("\n", picocli));
        assertEquals(List.of(), picocli.stream().filter(l -> !l.endsWith("source: shared objects file")).toList());
        // jpmpi's own classes (the launcher's, the merge's and the reports'), but for those the JVM
        // makes as it runs (lambdas): the training's job sends messages as pingpong does
        List<String> own = loaded.stream().filter(l -> l.contains(" io.jpmpi.") && !l.contains("$$Lambda")).toList();
        assertTrue(own.size() > 30, () -> String.join("\n", own));
        assertEquals(List.of(), own.stream().filter(l -> !l.endsWith("source: shared objects file")).toList());
    }
    /**
     * The launcher's cache of a run without the profile tool holds what such a run loads: a dry run
     * with the accounting tool (what the run does before it takes the launcher's process, less its last
     * step, which the training rehearses) loads picocli's classes and jpmpi's own from it, none from a jar.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void aRunWithoutTheProfileToolLoadsFromItsOwnCache(Impl impl) throws Exception {
        Path cache = launcherCache("jpmpi-launcher-run-jdk");
        Properties info = info(cache);
        assertTrue(Files.size(cache) < Files.size(launcherCache("jpmpi-launcher-jdk")), "the run's cache is the smaller one");
        Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "launcher-run-aot-");
        Path log = dir.resolve("class-load.txt");
        List<String> command = launcher(cache, info, "-Xlog:class+load=info:file=" + log);
        command.addAll(LauncherIT.run(List.of("--dry-run", "--tools", "accounting"), impl, 2, "pingpong"));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("output.txt").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "the dry run did not end");
        String out = Files.readString(dir.resolve("output.txt"));
        assertEquals(0, p.exitValue(), out);
        assertFalse(out.contains("AOT") || out.contains("CDS"), () -> "the JVM complained about its cache\n" + out);
        List<String> loaded = Files.readAllLines(log);
        List<String> ours = loaded.stream().filter(l -> (l.contains(" picocli.") || l.contains(" io.jpmpi."))
                && !l.contains("$$Lambda")).toList();
        assertTrue(ours.size() > 100, () -> String.join("\n", ours));
        assertEquals(List.of(), ours.stream().filter(l -> !l.endsWith("source: shared objects file")).toList());
    }

    /**
     * Which cache bin/jpmpi gives its JVM: the run's for {@code run} without the profile tool (in
     * --tools, -t, --tools=, or JPMPI_TOOLS_ENTRY when the command names none), every command's otherwise.
     */
    @Test
    void binJpmpiGivesARunWithoutTheProfileToolItsCache() throws Exception {
        String run = " -XX:AOTCache=" + launcherCache("jpmpi-launcher-run-jdk") + " ";
        String every = " -XX:AOTCache=" + launcherCache("jpmpi-launcher-jdk") + " ";
        List<String> job = List.of("--", "mpirun", "-np", "2", Impl.OPENMPI.file("pingpong"));
        record Case(Map<String, String> env, List<String> words, String cache) {
        }
        List<Case> cases = List.of(
                new Case(Map.of(), List.of("run", "--dry-run", "--tools", "accounting"), run),
                new Case(Map.of(), List.of("run", "--dry-run", "-t", "hwc,accounting"), run),
                new Case(Map.of("JPMPI_TOOLS_ENTRY", "profile"), List.of("run", "--dry-run", "--tools=accounting"), run),
                new Case(Map.of(), List.of("run", "--dry-run"), run),
                new Case(Map.of(), List.of("run", "--dry-run", "--tools", "accounting, profile"), every),
                new Case(Map.of(), List.of("run", "--dry-run", "-tprofile"), every),
                new Case(Map.of("JPMPI_TOOLS_ENTRY", "accounting,profile"), List.of("run", "--dry-run"), every),
                new Case(Map.of(), List.of("--version"), every));
        for (Case c : cases) {
            List<String> command = new ArrayList<>(List.of("bash", "-x", Jpmpi.HOME.resolve("bin/jpmpi").toString()));
            command.addAll(c.words());
            if (!c.words().get(0).startsWith("-")) {
                command.addAll(job);
            }
            ProcessBuilder pb = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            pb.environment().keySet().removeIf(k -> k.startsWith("JPMPI_"));
            pb.environment().putAll(Map.of("JAVA_HOME", System.getProperty("java.home"), "OMPI_ALLOW_RUN_AS_ROOT", "1",
                    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"));
            pb.environment().putAll(c.env());
            Process p = pb.start();
            p.getInputStream().transferTo(OutputStream.nullOutputStream());
            String trace = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(2, TimeUnit.MINUTES), c + " did not end");
            assertEquals(0, p.exitValue(), () -> c + "\n" + trace);
            String exec = trace.lines().filter(l -> l.startsWith("+ exec ")).findFirst().orElse("");
            assertTrue(exec.contains(c.cache()), () -> c + ": not" + c.cache() + "\n" + exec);
        }
    }

    /**
     * The launcher's JVM as bin/jpmpi starts it with {@code cache} (the installation's jvm.options, the
     * cache's map.options, the class path its info file names), {@code options} added, up to its main class.
     */
    static List<String> launcher(Path cache, Properties info, String... options) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + cache.resolveSibling("jvm.options")));
        command.addAll(mapOptions(info));
        command.add("-XX:AOTCache=" + cache);
        command.addAll(List.of(options));
        command.addAll(List.of("-Djpmpi.home=" + Jpmpi.HOME, "-cp", info.getProperty("classpath"), "io.jpmpi.tools.Main"));
        return command;
    }

    /** The launcher's cache {@code prefix}N.aot for this JDK's N (skipped before JDK 25). */
    static Path launcherCache(String prefix) {
        int major = Runtime.version().feature();
        assumeTrue(major >= 25, "an AOT cache needs JDK 25 or later");
        return Jpmpi.HOME.resolve("share/jpmpi/java/launcher").resolve(prefix + major + ".aot");
    }

    /** {@code cache}'s info file, read; the cache must be there. */
    static Properties info(Path cache) throws IOException {
        assertTrue(Files.isRegularFile(cache), () -> cache + " is missing (the dist module's package makes it)");
        Properties info = new Properties();
        try (InputStream in = Files.newInputStream(cache.resolveSibling(cache.getFileName() + ".info"))) {
            info.load(in);
        }
        return info;
    }

    /** The options the cache's info file gives to map it (map.options), word by word. */
    static List<String> mapOptions(Properties info) {
        String map = info.getProperty("map.options", "").trim();
        return map.isEmpty() ? List.of() : List.of(map.split("\\s+"));
    }

    /**
     * bin/jpmpi itself gives the JVM that cache: its own list of the launcher's jars (a bash script
     * cannot read InstallLayout.LAUNCHER_JARS) makes the class path the cache's info file names, and the
     * cache is newer than each of them. The script's trace (bash -x) shows the command it runs.
     */
    @Test
    void binJpmpiGivesItsJvmTheCache() throws Exception {
        Path cache = launcherCache("jpmpi-launcher-jdk");
        Properties info = info(cache);
        ProcessBuilder pb = new ProcessBuilder("bash", "-x", Jpmpi.HOME.resolve("bin/jpmpi").toString(), "--version")
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        p.getInputStream().transferTo(OutputStream.nullOutputStream());
        String trace = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "jpmpi --version did not end");
        assertEquals(0, p.exitValue(), trace);
        String exec = trace.lines().filter(l -> l.startsWith("+ exec ")).findFirst().orElse("");
        assertTrue(exec.contains(" -XX:AOTCache=" + cache + " "), () -> "no cache given to the JVM:\n" + trace);
        // and the options that map it where it was made, which JDK 25 takes (AotCache.mapOptions)
        assertEquals(List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:ArchiveRelocationMode=0"), mapOptions(info));
        assertTrue(exec.contains(" " + String.join(" ", mapOptions(info)) + " -XX:AOTCache=" + cache + " "),
                () -> "the cache's map.options not given to the JVM:\n" + exec);
        assertTrue(exec.contains(" -cp " + info.getProperty("classpath") + " "), () -> "another class path:\n" + exec);
    }
}
