package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bin/jpmpi doctor on this (healthy) machine and on deliberately broken setups. */
class DoctorIT {
    @Test
    void aHealthySetupPassesEveryCheckIncludingTheSmokeRuns() {
        String jar = Layout.current().javaCounterJar().orElseThrow().toString();
        Jpmpi.Result r = Jpmpi.run(List.of("doctor", "--tools", "v," + jar));
        assertEquals(0, r.exit(), r::describe);
        assertTrue(r.out().lines().noneMatch(l -> l.startsWith("FAIL")), r::describe);
        assertTrue(r.out().contains("jpmpi doctor: ready"), r::describe);
        MpiRun.implementations().forEach(impl -> {
            String name = impl == Impl.OPENMPI ? "Open MPI" : "MPICH";
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith("ok    " + name + ": 2-rank smoke run through a Java level")),
                    r::describe);
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith("ok    " + name + " dispatcher: built against ")),
                    r::describe);
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith("ok    " + name + ": tool list 'v," + jar + "' resolves")),
                    r::describe);
        });
    }

    @Test
    void aJdkTooOldForJavaLevelsFailsWithAFix(@TempDir Path dir) throws IOException {
        // A JDK 17 as its release file describes it (the machine's own may not be installed).
        Path old = Files.createDirectories(dir.resolve("jdk-17"));
        Files.writeString(old.resolve("release"), "JAVA_VERSION=\"17.0.13\"\n");
        Jpmpi.Result r = Jpmpi.run(Map.of("JPMPI_JAVA_HOME", old.toString()), List.of("doctor", "--no-smoke"));
        assertEquals(ExitCode.CHECKS_FAILED.code, r.exit(), r::describe);
        List<String> fails = r.out().lines().filter(l -> l.startsWith("FAIL")).toList();
        assertEquals(1, fails.size(), r::describe);
        assertTrue(fails.get(0).startsWith("FAIL  JDK for Java levels (JPMPI_JAVA_HOME): " + old + ": it is JDK 17"),
                r::describe);
        assertTrue(fails.get(0).contains(" -- fix: set JPMPI_JAVA_HOME to a JDK >= 22"), r::describe);
        assertTrue(r.out().contains("jpmpi doctor: 1 check(s) failed"), r::describe);
    }

    /**
     * A jpmpi whose dispatcher builds are swapped (the Open MPI directory holds the MPICH build and
     * the other way round), as after copying the wrong build onto a machine.
     */
    @Test
    void javaOptionsTheJvmRefusesFailWithTheJvmsReason() {
        Jpmpi.Result bad = Jpmpi.run(Map.of("JPMPI_JAVA_OPTIONS", "-Xmx1m"), List.of("doctor", "--no-smoke"));
        assertEquals(ExitCode.CHECKS_FAILED.code, bad.exit(), bad::describe);
        assertTrue(bad.out().lines().anyMatch(l -> l.startsWith("FAIL  JPMPI_JAVA_OPTIONS='-Xmx1m': the JVM does not start"
                + " with them: Error occurred during initialization of VM; Too small maximum heap -- fix: ")), bad::describe);
        Jpmpi.Result good = Jpmpi.run(Map.of("JPMPI_JAVA_OPTIONS", "-Xmx64m"), List.of("doctor", "--no-smoke"));
        assertTrue(good.out().contains("ok    JPMPI_JAVA_OPTIONS='-Xmx64m': the ranks' JVM starts with them\n"),
                good::describe);
    }

    @Test
    void aDispatcherBuiltForTheOtherMpiIsCaught(@TempDir Path fake) throws IOException {
        List<Impl> impls = MpiRun.implementations().toList();
        org.junit.jupiter.api.Assumptions.assumeTrue(impls.size() == 2, "needs both MPIs installed");
        Path home = Jpmpi.HOME;
        Files.createDirectories(fake.resolve("bin"));
        Files.copy(home.resolve("bin/jpmpi"), fake.resolve("bin/jpmpi"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.createSymbolicLink(fake.resolve("share"), home.resolve("share"));
        Path nativeDir = Files.createDirectories(fake.resolve("lib"));
        Path real = home.resolve("lib");
        Files.createSymbolicLink(nativeDir.resolve("openmpi"), real.resolve("mpich"));
        Files.createSymbolicLink(nativeDir.resolve("mpich"), real.resolve("openmpi"));

        Jpmpi.Result r = Jpmpi.run(fake.resolve("bin/jpmpi"), Map.of(), List.of("doctor", "--no-smoke"));
        assertEquals(ExitCode.CHECKS_FAILED.code, r.exit(), r::describe);
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("FAIL  Open MPI dispatcher ") && l.contains(
                "was built for MPICH (libmpich.so.12") && l.contains("-- fix: rebuild jpmpi")), r::describe);
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("FAIL  MPICH dispatcher ") && l.contains(
                "was built for Open MPI (libmpi.so.40")), r::describe);
        assertTrue(r.out().contains("jpmpi doctor: 2 check(s) failed"), r::describe);
    }
}
