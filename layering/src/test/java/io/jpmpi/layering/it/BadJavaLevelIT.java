package io.jpmpi.layering.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jpmpi.layering.tools.BrokenInit;
import io.jpmpi.layering.tools.CountLevel;
import io.jpmpi.layering.tools.ThrowingConstructor;
import io.jpmpi.testsupport.BadFiles;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Java level that cannot be used stops every rank at its first MPI call with one line naming
 * the entry and the reason, exit status 78, and the program's MPI work never starts: a jar with
 * no interceptor, an interceptor class that fails to load, one listed but absent, one whose
 * constructor throws, a text file, an empty file or a directory named .jar, a missing jar, no JDK, a JDK too old,
 * no Java runtime classpath.
 */
class BadJavaLevelIT {
    record Case(String name, Function<MpiRun, MpiRun> setup, Function<String, String> expected) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** A JDK older than 22 on this machine (Debian's default JDK 17 is one), or null. */
    static final Path OLD_JDK = oldJdk();

    static Path oldJdk() {
        try (Stream<Path> jdks = Files.list(Path.of("/usr/lib/jvm"))) {
            return jdks.filter(j -> Files.isRegularFile(j.resolve("release")) && !Files.isSymbolicLink(j))
                    .filter(j -> feature(j) > 0 && feature(j) < 22).sorted().findFirst().orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    /** JAVA_VERSION's feature number in the JDK's release file, or 0. */
    static int feature(Path jdk) {
        try {
            Matcher m = Pattern.compile("(?m)^JAVA_VERSION=\"(?:1\\.)?(\\d+)").matcher(Files.readString(jdk.resolve("release")));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    static Stream<Arguments> cases() {
        String count = Jars.of("jcount", CountLevel.class);
        String empty = Jars.withoutServices("empty", CountLevel.class);
        String broken = Jars.of("broken", BrokenInit.class);
        String absent = Jars.listingAbsent("absent", "io.jpmpi.layering.tools.NotThere");
        String throwing = Jars.of("throwing", ThrowingConstructor.class);
        String text = BadFiles.text(MpiRun.RUNS_DIR.resolve("bad/text.jar")).toString();
        String empty0 = BadFiles.empty(MpiRun.RUNS_DIR.resolve("bad/empty.jar")).toString();
        String dir = BadFiles.directory(MpiRun.RUNS_DIR.resolve("bad/dir.jar")).toString();
        List<Case> cases = new ArrayList<>(List.of(
                new Case("no interceptor", run -> run.java().levels(empty),
                        e -> item(empty) + "has no interceptor: a Java level lists its classes .*META-INF/services/"
                                + "io.jpmpi.layering.Interceptor"),
                new Case("class fails to load", run -> run.java().levels(broken),
                        e -> item(broken) + "an interceptor cannot be loaded: .*BrokenInit.*broken on purpose.*"),
                // the launcher's words (io.jpmpi.tools.JavaLevelFile) for what is not a jar at all
                new Case("text file named .jar", run -> run.java().levels(text),
                        e -> item(text) + "not a readable jar \\(zip END header not found\\)"),
                new Case("empty file named .jar", run -> run.java().levels(empty0),
                        e -> item(empty0) + "not a readable jar \\(zip file is empty\\)"),
                new Case("directory named .jar", run -> run.java().levels(dir), e -> item(dir) + "is a directory"),
                new Case("listed class absent", run -> run.java().levels(absent),
                        e -> item(absent) + "an interceptor cannot be loaded: .*NotThere not found"),
                new Case("constructor throws", run -> run.java().levels(throwing),
                        e -> item(throwing) + "an interceptor cannot be loaded: .*ThrowingConstructor.*constructor broken"
                                + " on purpose.*"),
                new Case("missing jar", run -> run.java().levels(count + ".missing.jar"),
                        e -> item(count + ".missing.jar") + "no such file"),
                new Case("no JDK", run -> run.levels(count).env("JAVA_HOME", "/nonexistent"),
                        e -> item(count) + "JAVA_HOME=/nonexistent is not a JDK .*Java levels need a JDK >= 22"),
                new Case("no runtime classpath", run -> run.levels(count)
                        .env("JAVA_HOME", System.getProperty("java.home")),
                        e -> item(count) + "JPMPI_JAVA_CLASSPATH is not set.*")));
        // JVM options the JVM refuses: one line naming the variable and the JVM's own reason, whether the
        // JVM returns an error (an unknown option) or ends the process while it starts (a heap too small)
        for (String[] o : new String[][] {{"-Xmx1m", ".*[Hh]eap.*"}, {"-Xss1k", ".*stack size.*"},
                {"notanoption", ".*notanoption.*"}}) {
            cases.add(new Case("JPMPI_JAVA_OPTIONS " + o[0], run -> run.java().levels(count)
                    .env("JPMPI_JAVA_OPTIONS", o[0]), e -> item(count) + "the JVM did not start with JPMPI_JAVA_OPTIONS='"
                    + Pattern.quote(o[0]) + "': " + o[1]));
        }
        // Always listed: without an old JDK the case is a skip that says so, never a case that is not there.
        cases.add(new Case("JDK too old", run -> {
            assumeTrue(OLD_JDK != null, "no JDK older than 22 in /usr/lib/jvm (apt-get install openjdk-17-jdk-headless)");
            return run.java().env("JAVA_HOME", OLD_JDK.toString()).levels(count);
        }, e -> item(count) + "JAVA_HOME=" + Pattern.quote(String.valueOf(OLD_JDK)) + " is JDK " + feature(OLD_JDK)
                + "; Java levels need a JDK >= 22"));
        List<Arguments> all = new ArrayList<>();
        MpiRun.implementations().forEach(impl -> cases.forEach(c -> all.add(Arguments.of(impl, c))));
        return all.stream();
    }

    private static String item(String text) {
        return "JPMPI_TOOLS_ENTRY item 1 '" + Pattern.quote(text) + "': ";
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void oneLineAndStop(Impl impl, Case c) {
        Result r = c.setup().apply(MpiRun.on(impl).ranks(2)).run("pingpong", "3");
        assertNotEquals(0, r.exit(), r::describe);
        Pattern expected = Pattern.compile("jpmpi \\(rank \\d\\): " + c.expected().apply(""));
        List<String> lines = r.err().stream().filter(l -> l.startsWith("jpmpi")).toList();
        assertEquals(2, lines.size(), r::describe);
        for (String l : lines) {
            assertTrue(expected.matcher(l).matches(), "unexpected: " + l + "\nexpected: " + expected + "\n" + r.describe());
        }
        assertEquals(0, r.out().stream().filter(l -> l.startsWith("pingpong result")).count(), r::describe);
    }
}
