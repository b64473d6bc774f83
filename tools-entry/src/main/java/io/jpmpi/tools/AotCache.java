package io.jpmpi.tools;

import io.jpmpi.platform.InstallLayout;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * The AOT caches (JDK 25 and later) of the ranks' Java runtime and of the launcher's own JVM: each
 * made by a training run with that JVM's own options ({@link Layout#jvmOptions()},
 * {@link Layout#launcherJvmOptions()}), for one JDK and one class path, which the JVM checks; an
 * info file beside it records both, so the dispatcher (bin/jpmpi for the launcher's) uses the cache
 * only where it fits (a moved installation, or another JDK, start without it, quietly) and doctor
 * can say why it does not.
 */
final class AotCache {
    /** The first JDK whose AOT cache holds classes and their linkage. */
    static final int MIN_MAJOR = 25;

    private AotCache() {
    }

    /** Why the installation's cache would not be used by ranks on {@code jdk}; empty when it would. */
    static Optional<String> unfit(Layout layout, Jdk jdk) {
        return unfit(layout.aotCachePath(jdk.major()), layout.javaClasspath(), "", "runtime", jdk);
    }

    /**
     * One of the launcher's own caches: where it is, how doctor names it, and the training's arguments
     * ({@link LauncherTraining}).
     */
    private record LauncherCache(Path path, String whose, List<String> training) {
    }

    /** The launcher's caches for JDK {@code major}: every command's, and a run's without the profile tool. */
    private static List<LauncherCache> launcherCaches(Layout layout, int major) {
        return List.of(new LauncherCache(layout.launcherAotCachePath(major), "launcher's ", List.of()),
                new LauncherCache(layout.launcherRunAotCachePath(major), "launcher's run ", List.of(LauncherTraining.RUN)));
    }

    /**
     * Why bin/jpmpi would not give one of the launcher's own caches (every command's, and a run's without
     * the profile tool) to its JVM on {@code jdk}; empty when it would give either.
     */
    static Optional<String> unfitLauncher(Layout layout, Jdk jdk) {
        for (LauncherCache c : launcherCaches(layout, jdk.major())) {
            Optional<String> unfit = unfit(c.path(), layout.launcherClasspath(), c.whose(), "launcher", jdk);
            if (unfit.isPresent()) {
                return unfit;
            }
            // as bin/jpmpi checks it: newer than the JDK's classes and the launcher's jars
            List<Path> inputs = new ArrayList<>(List.of(jdk.home().resolve("lib/modules")));
            inputs.addAll(layout.launcherJars());
            try {
                for (Path p : inputs) {
                    if (Files.getLastModifiedTime(p).compareTo(Files.getLastModifiedTime(c.path())) >= 0) {
                        return Optional.of("the " + c.whose() + "AOT cache is older than " + p);
                    }
                }
            } catch (IOException e) {
                return Optional.of("cannot compare the " + c.whose() + "AOT cache with its jars: " + e.getMessage());
            }
        }
        return Optional.empty();
    }

    private static Optional<String> unfit(Path cache, String classpath, String whose, String jars, Jdk jdk) {
        if (jdk.major() < MIN_MAJOR) {
            return Optional.of("JDK " + jdk.major() + " has no AOT cache (JDK " + MIN_MAJOR + " or later does)");
        }
        if (!Files.isRegularFile(cache)) {
            return Optional.of("there is no " + whose + "AOT cache for JDK " + jdk.major() + " (" + cache + ")");
        }
        Properties info = new Properties();
        try (InputStream in = Files.newInputStream(info(cache))) {
            info.load(in);
        } catch (IOException e) {
            return Optional.of("the " + whose + "AOT cache has no readable " + info(cache).getFileName());
        }
        String madeHome = info.getProperty(InstallLayout.AOT_JAVA_HOME_KEY, "");
        String madeFor = info.getProperty(InstallLayout.AOT_CLASSPATH_KEY, "");
        if (!madeFor.equals(classpath)) {
            return Optional.of("the " + whose + "AOT cache was made for the " + jars + " at " + madeFor.split(":")[0]
                    + " (the installation has moved since)");
        }
        if (!InstallCommand.real(Path.of(madeHome)).equals(InstallCommand.real(jdk.home()))) {
            return Optional.of("the " + whose + "AOT cache was made with the JDK at " + madeHome + ", not " + jdk.home());
        }
        return Optional.empty();
    }

    /** Makes the cache for ranks on {@code jdk}, with the training run; returns the cache. */
    static Path make(Layout layout, Jdk jdk) throws JpmpiException {
        Path cache = layout.aotCachePath(jdk.major());
        return train(jdk, cache, layout.javaClasspath(), List.of("@" + layout.jvmOptions(), "-XX:AOTCacheOutput=" + cache,
                // classes and linkage only: the training's own method profiles would steer the
                // compiler of every rank's per-call path (a JDK without the flag ignores it)
                "-XX:+UnlockDiagnosticVMOptions", "-XX:+IgnoreUnrecognizedVMOptions", "-XX:-AOTRecordTraining",
                // which classes the cache cannot hold (old class files, JFR events) is no news
                "-Xlog:aot=error:stderr", "-cp", layout.javaClasspath(), "io.jpmpi.layering.runtime.Train",
                layout.trainingJar().toString()));
    }

    /**
     * Makes the launcher's own caches for bin/jpmpi on {@code jdk} (which uses one only where its info
     * file names that JDK and bin/jpmpi's class path), with the launcher's JVM options: every command's,
     * whose training ({@link LauncherTraining}) runs what {@code jpmpi run --tools profile} does, and a
     * run's without the profile tool, trained on such a run alone ({@link LauncherTraining#RUN}); returns
     * both.
     */
    static List<Path> makeLauncher(Layout layout, Jdk jdk) throws JpmpiException {
        List<Path> made = new ArrayList<>();
        for (LauncherCache c : launcherCaches(layout, jdk.major())) {
            List<String> options = new ArrayList<>(List.of("@" + layout.launcherJvmOptions(), "-XX:AOTCacheOutput=" + c.path(),
                    "-Djpmpi.home=" + layout.home(), "-cp", layout.launcherClasspath(), LauncherTraining.class.getName()));
            options.addAll(c.training());
            made.add(train(jdk, c.path(), layout.launcherClasspath(), options));
        }
        return made;
    }

    /** Runs {@code jdk}'s java with {@code options} to make {@code cache}, then its info file. */
    private static Path train(Jdk jdk, Path cache, String classpath, List<String> options) throws JpmpiException {
        if (jdk.major() < MIN_MAJOR) {
            throw new JpmpiException(ExitCode.NO_JDK, "an AOT cache needs JDK " + MIN_MAJOR + " or later, not "
                    + jdk.major() + " (" + jdk.home() + ")");
        }
        List<String> command = new ArrayList<>(List.of(jdk.home().resolve("bin/java").toString()));
        command.addAll(options);
        try {
            Files.deleteIfExists(info(cache));
            Files.deleteIfExists(cache);
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.CANNOT_START, "cannot replace " + cache + ": " + e.getMessage());
        }
        Path log;
        int rc;
        try {
            log = Files.createTempDirectory("jpmpi-aot-");
            rc = Processes.runToFiles(command, java.util.Map.of(), log.resolve("stdout"), log.resolve("stderr"), log,
                    600);
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.CANNOT_START, "cannot run the AOT training: " + e.getMessage());
        }
        if (rc != 0 || !Files.isRegularFile(cache)) {
            throw new JpmpiException(ExitCode.CANNOT_START, "the AOT training run failed (exit " + rc + "; its output"
                    + " is in " + log + "): " + String.join(" ", command));
        }
        List<String> map = mapOptions(jdk, log);
        try (var files = Files.walk(log)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        } catch (IOException e) {
            // a left-over temporary folder is no reason to fail an installation
        }
        String text = "# what " + cache.getFileName() + " was made for: the JVM uses it only with both\n"
                + InstallLayout.AOT_JAVA_HOME_KEY + "=" + InstallCommand.real(jdk.home()) + "\n"
                + InstallLayout.AOT_CLASSPATH_KEY + "=" + classpath + "\n"
                + "# the options that map it where it was made to be mapped, not at a random address\n"
                + InstallLayout.AOT_MAP_OPTIONS_KEY + "=" + String.join(" ", map) + "\n";
        try {
            Files.writeString(info(cache), text);
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.CANNOT_START, "cannot write " + info(cache) + ": " + e.getMessage());
        }
        return cache;
    }

    /**
     * The options that make a JVM map an AOT cache at the address it was made for, where nothing else
     * is mapped there (it moves it elsewhere when something is): {@code ArchiveRelocationMode=0}. JDK
     * 25's default (1) maps it at a random address every start and first moves every pointer in it,
     * writing to most of its pages: 5 to 9 MB of private memory in each rank with a Java level and
     * each launcher, where the file's pages could be shared (tools-entry/README.md, "The launcher's
     * own start"). A diagnostic option, so asked of {@code jdk} first ({@code -version} with it): a
     * JDK that no longer has it gets none, and starts as before.
     */
    static List<String> mapOptions(Jdk jdk, Path scratch) {
        // asked once per JDK in a process (jpmpi aot and install make two caches with one JDK)
        return MAP_OPTIONS.computeIfAbsent(jdk.home(), home -> {
            List<String> options = List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:ArchiveRelocationMode=0");
            List<String> probe = new ArrayList<>(List.of(home.resolve("bin/java").toString()));
            probe.addAll(options);
            probe.add("-version");
            try {
                int rc = Processes.runToFiles(probe, java.util.Map.of(), scratch.resolve("probe.out"),
                        scratch.resolve("probe.err"), scratch, 60);
                return rc == 0 ? options : List.of();
            } catch (JpmpiException e) {
                return List.of();
            }
        });
    }

    /** {@link #mapOptions}' answers by JDK. */
    private static final java.util.Map<Path, List<String>> MAP_OPTIONS = new java.util.concurrent.ConcurrentHashMap<>();

    private static Path info(Path cache) {
        return cache.resolveSibling(cache.getFileName() + InstallLayout.AOT_INFO_SUFFIX);
    }
}
