package io.jpmpi.tools;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where jpmpi's parts are, below its home directory (the checkout bin/jpmpi belongs to; the script
 * passes it as the system property {@code jpmpi.home}). This is the one place that knows the
 * layout; everything else asks it.
 */
public record Layout(Path home) {
    public static final String HOME_PROPERTY = "jpmpi.home";

    /** The layout of the installation this JVM runs from. */
    public static Layout current() {
        String home = System.getProperty(HOME_PROPERTY);
        if (home == null || home.isEmpty()) {
            throw new IllegalStateException("the system property " + HOME_PROPERTY + " is not set (bin/jpmpi sets it)");
        }
        return new Layout(Path.of(home).toAbsolutePath().normalize());
    }

    /** native/&lt;impl&gt;: the dispatcher built for one MPI implementation. */
    public Path nativeDir(String impl) {
        return home.resolve("native-stubs/target/classes/native").resolve(impl);
    }

    public Path dispatcher(String impl) {
        return nativeDir(impl).resolve("libmpiprofilesupport.so");
    }

    /** What the dispatcher build was made for (written by native-stubs/src/main/sh/build-info.sh). */
    public Path buildInfo(String impl) {
        return nativeDir(impl).resolve("jpmpi-build.properties");
    }

    /** The Java runtime the ranks' JVM loads (JPMPI_JAVA_CLASSPATH). */
    public Path javaRuntimeDir() {
        return home.resolve("layering/target/jpmpi-java");
    }

    public String javaClasspath() {
        return javaRuntimeDir().resolve("jpmpi-layering.jar") + ":" + javaRuntimeDir().resolve("asm.jar");
    }

    /** The AOT cache the build made for JDK {@code major}, if any. */
    public Optional<Path> aotCache(int major) {
        Path p = javaRuntimeDir().resolve("jpmpi-jdk" + major + ".aot");
        return Files.isRegularFile(p) ? Optional.of(p) : Optional.empty();
    }

    /** This launcher's own jars. */
    public Path appDir() {
        return home.resolve("tools-entry/target/jpmpi-app");
    }

    /** The Java level doctor's smoke run goes through. */
    public Path probeJar() {
        return appDir().resolve("jpmpi-probe.jar");
    }

    /** The example Java level (examples/java-counter), if built. */
    public Optional<Path> javaCounterJar() {
        Path dir = home.resolve("examples/java-counter/target");
        try (var files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().matches("jpmpi-example-java-counter-.*\\.jar"))
                    .sorted().findFirst();
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
    }

    /** The profile tool's C level for {@code impl} (profilers module). */
    public Path profileRecorder(MpiImpl impl) {
        return home.resolve("profilers/target/native").resolve(impl.id()).resolve("libjpmpi-profile.so");
    }

    /** The profile tool's Java level (profilers module), its libraries in lib/ beside it. */
    public Path profileJar() {
        return home.resolve("profilers/target/jpmpi-profile/jpmpi-profile.jar");
    }

    /** The mpit tool's Java level (profilers module; its classes are those of the profile jar). */
    public Path mpitJar() {
        return home.resolve("profilers/target/jpmpi-mpit/jpmpi-mpit.jar");
    }

    /** The one-rank program {@code jpmpi mpit list} runs for {@code impl}. */
    public Path mpitProbe(MpiImpl impl) {
        return home.resolve("profilers/target/native").resolve(impl.id()).resolve("jpmpi-mpit-probe");
    }

    /** The hwc tool's C level for {@code impl} (profilers module). */
    public Path hwcLevel(MpiImpl impl) {
        return home.resolve("profilers/target/native").resolve(impl.id()).resolve("libjpmpi-hwc.so");
    }

    /** The hwc tool's Java level (profilers module), its libraries in lib/ beside it. */
    public Path hwcJar() {
        return home.resolve("profilers/target/jpmpi-hwc/jpmpi-hwc.jar");
    }

    /** The accounting tool's C level for {@code impl} (profilers module), below the profile recorder. */
    public Path accountingLevel(MpiImpl impl) {
        return home.resolve("profilers/target/native").resolve(impl.id()).resolve("libjpmpi-accounting.so");
    }

    /** The example C tool (examples/c-tools), built per MPI by the demo. */
    public Path cToolsDir() {
        return home.resolve("examples/c-tools");
    }

    public Path demoDir() {
        return home.resolve("examples/halo-demo");
    }

    /** The Maven wrapper that builds everything. */
    public Path mavenWrapper() {
        return home.resolve("mvnw");
    }
}
