package io.jpmpi.tools;

import io.jpmpi.platform.InstallLayout;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * Where jpmpi's parts are in the installation this launcher belongs to ({@link InstallLayout};
 * bin/jpmpi passes the installation's prefix as the system property {@code jpmpi.home}). The
 * development build assembles the same tree, so nothing here knows the source tree.
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

    /** lib/&lt;impl&gt;: the dispatcher built for one MPI implementation, and the C levels of the tools. */
    public Path nativeDir(String impl) {
        return home.resolve(InstallLayout.LIB).resolve(impl);
    }

    public Path dispatcher(String impl) {
        return nativeDir(impl).resolve("libmpiprofilesupport.so");
    }

    /** What the dispatcher build was made for (written by native-stubs/src/main/sh/build-info.sh). */
    public Path buildInfo(String impl) {
        return nativeDir(impl).resolve("jpmpi-build.properties");
    }

    /** The Java runtime the ranks' JVM loads; the dispatcher finds it from its own place. */
    public Path javaRuntimeDir() {
        return home.resolve(InstallLayout.JAVA_RUNTIME);
    }

    /** The runtime's class path, as the dispatcher makes it. */
    public String javaClasspath() {
        StringBuilder b = new StringBuilder();
        for (String jar : InstallLayout.RUNTIME_JARS) {
            b.append(b.isEmpty() ? "" : ":").append(javaRuntimeDir().resolve(jar));
        }
        return b.toString();
    }

    /** The ranks' JVM options, one per line (the AOT training reads them). */
    public Path jvmOptions() {
        return javaRuntimeDir().resolve(InstallLayout.JVM_OPTIONS);
    }

    /** The AOT training's interceptor jar. */
    public Path trainingJar() {
        return javaRuntimeDir().resolve(InstallLayout.TRAINING_JAR);
    }

    /** Where the AOT cache for JDK {@code major} is, made or not. */
    public Path aotCachePath(int major) {
        return javaRuntimeDir().resolve(InstallLayout.aotCache(major));
    }

    /** The AOT cache made for JDK {@code major}, if any. */
    public Optional<Path> aotCache(int major) {
        Path p = aotCachePath(major);
        return Files.isRegularFile(p) ? Optional.of(p) : Optional.empty();
    }

    /** share/jpmpi/jpmpi.properties: the version and the JDK the installation was made for. */
    public Path propertiesFile() {
        return home.resolve(InstallLayout.PROPERTIES);
    }

    /** The installation's properties (empty if the file is missing or unreadable). */
    public Properties properties() {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(propertiesFile())) {
            p.load(in);
        } catch (IOException e) {
            // an installation without the file: no recorded JDK
        }
        return p;
    }

    /** This launcher's own directory: its jar, JVM options, AOT cache and sample. */
    public Path appDir() {
        return home.resolve(InstallLayout.JAVA_LAUNCHER);
    }

    /** The launcher's jars: its classes and its dependencies' (tools-entry's pom, "launcher-jar"), jpmpi-platform's. */
    public List<Path> launcherJars() {
        return InstallLayout.LAUNCHER_JARS.stream().map(appDir()::resolve).toList();
    }

    /**
     * The launcher's class path, exactly as bin/jpmpi gives it to its JVM (the AOT cache of the
     * launcher is made for this string, and bin/jpmpi compares it).
     */
    public String launcherClasspath() {
        return String.join(File.pathSeparator, launcherJars().stream().map(Path::toString).toList());
    }

    /** The launcher's JVM options, one per line (bin/jpmpi and the launcher's AOT training). */
    public Path launcherJvmOptions() {
        return appDir().resolve(InstallLayout.LAUNCHER_JVM_OPTIONS);
    }

    /** Where the launcher's own AOT cache for JDK {@code major} is, made or not. */
    public Path launcherAotCachePath(int major) {
        return appDir().resolve(InstallLayout.launcherAotCache(major));
    }

    /** Where the launcher's AOT cache of a run without the profile tool, for JDK {@code major}, is, made or not. */
    public Path launcherRunAotCachePath(int major) {
        return appDir().resolve(InstallLayout.launcherRunAotCache(major));
    }

    /**
     * The ranks' dumps of a small job (ranks/), made with the launcher's AOT cache by its training: what
     * {@link Warmup} merges while a job runs.
     */
    public Path launcherSample() {
        return appDir().resolve("jpmpi-launcher-sample");
    }

    /** What the launcher's JVM loads to become the job's launcher ({@link InPlace}). */
    public Path inPlaceLibrary() {
        return home.resolve(InstallLayout.IN_PLACE);
    }

    /** The Java level doctor's smoke run goes through. */
    public Path probeJar() {
        return appDir().resolve("jpmpi-probe.jar");
    }

    /** A built-in Java level: share/jpmpi/java/tools/&lt;dir&gt;/&lt;jar&gt;. */
    private Path toolJar(String dir, String jar) {
        return home.resolve(InstallLayout.JAVA_TOOLS).resolve(dir).resolve(jar);
    }

    /** The example Java level (examples/java-counter), if installed. */
    public Optional<Path> javaCounterJar() {
        Path jar = toolJar("java-counter", "jpmpi-java-counter.jar");
        return Files.isRegularFile(jar) ? Optional.of(jar) : Optional.empty();
    }

    /** The profile tool's C level for {@code impl}. */
    public Path profileRecorder(MpiImpl impl) {
        return nativeDir(impl.id()).resolve(Job.PROFILE_RECORDER);
    }

    /** The profile tool's Java level, its libraries in lib/ beside it. */
    public Path profileJar() {
        return toolJar("jpmpi-profile", "jpmpi-profile.jar");
    }

    /** The mpit tool's Java level. */
    public Path mpitJar() {
        return toolJar("jpmpi-mpit", "jpmpi-mpit.jar");
    }

    /** The one-rank program {@code jpmpi mpit list} runs for {@code impl}. */
    public Path mpitProbe(MpiImpl impl) {
        return home.resolve(InstallLayout.LIBEXEC).resolve(impl.id()).resolve("jpmpi-mpit-probe");
    }

    /** The hwc tool's C level for {@code impl}. */
    public Path hwcLevel(MpiImpl impl) {
        return nativeDir(impl.id()).resolve("libjpmpi-hwc.so");
    }

    /** The hwc tool's Java level. */
    public Path hwcJar() {
        return toolJar("jpmpi-hwc", "jpmpi-hwc.jar");
    }

    /** The accounting tool's C level for {@code impl}. */
    public Path accountingLevel(MpiImpl impl) {
        return nativeDir(impl.id()).resolve("libjpmpi-accounting.so");
    }

    /** The example C tool (examples/c-tools) for {@code impl}. */
    public Path exampleCTool(MpiImpl impl, String file) {
        return nativeDir(impl.id()).resolve(file);
    }

    /** The demo program's sources. */
    public Path demoDir() {
        return home.resolve(InstallLayout.EXAMPLES).resolve("halo-demo");
    }
}
