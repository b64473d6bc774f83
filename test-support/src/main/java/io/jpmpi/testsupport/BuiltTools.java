package io.jpmpi.testsupport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.MpiRun.Impl;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the built-in tools' levels are for the tests that stack them: the profile tool's C level
 * and Java level jar, as the system properties {@code jpmpi.profile.native.dir} and
 * {@code jpmpi.profile.jar} (set by the tool modules' poms) say.
 */
public final class BuiltTools {
    private BuiltTools() {
    }

    /** The profile tool's C level for {@code impl} (fails the test if it was not built). */
    public static Path recorder(Impl impl) {
        Path p = Path.of(System.getProperty("jpmpi.profile.native.dir", "target/native")).toAbsolutePath()
                .normalize().resolve(impl.id).resolve("libjpmpi-profile.so");
        assertTrue(Files.isRegularFile(p), () -> "missing " + p + " (mvn compile of profilers/profile builds it)");
        return p;
    }

    /** The profile tool's Java level jar (fails the test if it was not built). */
    public static Path profileJar() {
        Path p = Path.of(System.getProperty("jpmpi.profile.jar", "target/jpmpi-profile/jpmpi-profile.jar"))
                .toAbsolutePath().normalize();
        assertTrue(Files.isRegularFile(p), () -> "missing " + p
                + " (mvn process-classes of profilers/profile builds it)");
        return p;
    }
}
