package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jpmpi.testsupport.MpiRun.Impl;
import java.io.File;
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
        int major = Runtime.version().feature();
        assumeTrue(major >= 25, "an AOT cache needs JDK 25 or later");
        Path app = Jpmpi.HOME.resolve("share/jpmpi/java/launcher");
        Path cache = app.resolve("jpmpi-launcher-jdk" + major + ".aot");
        assertTrue(Files.isRegularFile(cache), () -> cache + " is missing (the dist module's package makes it)");
        Properties info = new Properties();
        try (InputStream in = Files.newInputStream(cache.resolveSibling(cache.getFileName() + ".info"))) {
            info.load(in);
        }
        Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "launcher-aot-");
        Path log = dir.resolve("class-load.txt");
        Path aotLog = dir.resolve("aot.txt");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + app.resolve("jvm.options")));
        command.addAll(mapOptions(info));
        command.addAll(List.of("-XX:AOTCache=" + cache, "-Xlog:class+load=info:file=" + log,
                "-Xlog:aot=info:file=" + aotLog, "-Djpmpi.home=" + Jpmpi.HOME, "-cp", info.getProperty("classpath"),
                "io.jpmpi.tools.Main"));
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
        int major = Runtime.version().feature();
        assumeTrue(major >= 25, "an AOT cache needs JDK 25 or later");
        Path app = Jpmpi.HOME.resolve("share/jpmpi/java/launcher");
        Path cache = app.resolve("jpmpi-launcher-jdk" + major + ".aot");
        Properties info = new Properties();
        try (InputStream in = Files.newInputStream(cache.resolveSibling(cache.getFileName() + ".info"))) {
            info.load(in);
        }
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
