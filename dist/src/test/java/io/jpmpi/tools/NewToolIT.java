package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code jpmpi new-tool}: the project it writes builds and passes its own test (its interceptor on 2
 * ranks under mpirun through bin/jpmpi) OFFLINE ({@code -o}: nothing but the local repository this
 * build filled and the installation), with its Maven wrapper on Open MPI and with Debian's Maven
 * 3.8.7 ({@code /usr/bin/mvn}, package maven, installed by scripts/lib.sh) on MPICH. The environment
 * is a user's: no OMPI_ALLOW_RUN_AS_ROOT, so as root it is the launcher's root rule that lets mpirun run.
 */
class NewToolIT {
    private static final Path REPO = Path.of(System.getProperty("jpmpi.maven.repo"));
    private static final Path DEBIAN_MAVEN = Path.of("/usr/bin/mvn");
    private static final Pattern TESTS = Pattern.compile("Tests run: (\\d+), Failures: (\\d+), Errors: (\\d+), Skipped: (\\d+)\\s*$",
            Pattern.MULTILINE);

    @Test
    void theProjectBuildsOfflineAndItsTestPassesWithTheWrapperAndDebiansMaven() throws Exception {
        assertTrue(Files.isExecutable(DEBIAN_MAVEN), DEBIAN_MAVEN + " is missing: Debian's package maven"
                + " (scripts/lib.sh installs it; ./test.sh)");
        Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "new-tool-");
        Path project = dir.resolve("barrier-count");

        Jpmpi.Result made = Jpmpi.run(List.of("new-tool", "barrier-count", "--dir", project.toString()));
        assertEquals(0, made.exit(), made::describe);
        assertTrue(made.err().contains("wrote the tool project barrier-count in " + project), made::describe);
        for (String f : List.of("pom.xml", "mvnw", ".mvn/wrapper/maven-wrapper.properties", "README.md",
                "src/main/java/tool/barriercount/BarrierCount.java", "src/test/java/tool/barriercount/BarrierCountTest.java",
                "src/main/resources/META-INF/services/io.jpmpi.layering.Interceptor", "src/test/c/app.c")) {
            assertTrue(Files.isRegularFile(project.resolve(f)), f);
        }
        assertTrue(Files.isExecutable(project.resolve("mvnw")));

        String wrapper = maven(project, List.of("./mvnw", "-B", "-o", "-Dmaven.repo.local=" + REPO, "verify"));
        assertOneTestPassed(wrapper);
        assertTrue(Files.isRegularFile(project.resolve("target/barrier-count-1.0.jar")));

        String debian = maven(project, List.of(DEBIAN_MAVEN.toString(), "-B", "-o", "-Dmaven.repo.local=" + REPO,
                "-Dmpicc=mpicc.mpich", "-Dmpirun=mpiexec.hydra", "clean", "verify"));
        assertOneTestPassed(debian);

        // The test's own check can fail: a jar whose interceptor counts wrong makes it fail, with its line.
        Path source = project.resolve("src/main/java/tool/barriercount/BarrierCount.java");
        Files.writeString(source, Files.readString(source).replace("barriers.incrementAndGet();",
                "barriers.addAndGet(2);"));
        String broken = maven(project, List.of("./mvnw", "-B", "-o", "-Dmaven.repo.local=" + REPO, "verify"), 1);
        assertTrue(broken.contains("no line 'barrier-count rank 0: MPI_Barrier=3 MPI_Allreduce_bytes=8'"), broken);
    }

    private static void assertOneTestPassed(String log) {
        Matcher m = TESTS.matcher(log);
        String last = null;
        while (m.find()) {
            last = m.group();
        }
        assertEquals("Tests run: 1, Failures: 0, Errors: 0, Skipped: 0", last == null ? null : last.strip(), log);
        assertTrue(log.contains("BUILD SUCCESS"), log);
    }

    private static String maven(Path project, List<String> command) throws IOException, InterruptedException {
        return maven(project, command, 0);
    }

    /** Runs Maven in {@code project} with a user's environment and the JDK of this test; its log, after status {@code expect}. */
    private static String maven(Path project, List<String> command, int expect) throws IOException, InterruptedException {
        Path log = Files.createTempFile(project.getParent(), "maven-", ".log");
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(command)).directory(project.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("JPMPI_") || k.startsWith("OMPI_") || k.equals("LD_PRELOAD")
                || k.startsWith("MAVEN_"));
        env.put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        String out = Files.readString(log);
        assertEquals(expect, p.waitFor(), () -> String.join(" ", command) + "\n" + out);
        return out;
    }
}
