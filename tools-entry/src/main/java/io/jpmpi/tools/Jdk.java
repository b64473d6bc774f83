package io.jpmpi.tools;

import io.jpmpi.platform.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JDK as the ranks' JVM needs it: its {@code release} file's version (22 or later, the first
 * release with a final java.lang.foreign) and {@code lib/server/libjvm.so}. Its {@code libjsig.so} is
 * not preloaded: the dispatcher keeps the program's crash-signal handlers apart from the JVM's itself
 * (layering/README.md, "Signals").
 */
public record Jdk(Path home, String version, int major) {
    public static final int MIN_MAJOR = 22;
    private static final Pattern VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"?([^\"\\s]+)\"?\\s*$");

    /** Reads {@code home/release}; empty if it is not a JDK at all. */
    public static Optional<Jdk> at(Path home) {
        try {
            Matcher m = VERSION.matcher(Files.readString(home.resolve("release")));
            if (!m.find()) {
                return Optional.empty();
            }
            String v = m.group(1);
            String first = v.startsWith("1.") ? v.substring(2) : v;
            Matcher digits = Pattern.compile("^(\\d+)").matcher(first);
            return digits.find() ? Optional.of(new Jdk(home, v, Integer.parseInt(digits.group(1)))) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The JDK the ranks' Java levels use: JPMPI_JAVA_HOME if set, else the JDK running jpmpi (the
     * one bin/jpmpi found: JAVA_HOME, then /usr/lib/jvm).
     */
    public static Path forRanks(java.util.Map<String, String> env) {
        String v = env.get(Settings.JAVA_HOME.env());
        return v != null && !v.isEmpty() ? Path.of(v) : Path.of(System.getProperty("java.home"));
    }

    public Path libjvm() {
        return home.resolve("lib/server/libjvm.so");
    }

    /** What keeps this JDK from serving Java levels; empty when nothing. */
    public List<String> problems() {
        List<String> p = new ArrayList<>();
        if (major < MIN_MAJOR) {
            p.add("it is JDK " + major + ", Java levels need " + MIN_MAJOR + " or later");
        }
        if (!Files.isRegularFile(libjvm())) {
            p.add("it has no lib/server/libjvm.so");
        }
        return p;
    }
}
