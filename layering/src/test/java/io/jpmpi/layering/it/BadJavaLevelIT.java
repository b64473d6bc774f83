package io.jpmpi.layering.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.layering.tools.BrokenInit;
import io.jpmpi.layering.tools.CountLevel;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Java level that cannot be used stops every rank at its first MPI call with one line naming
 * the entry and the reason, exit status 78, and the program's MPI work never starts: a jar with
 * no interceptor, an interceptor class that fails to load, a missing jar, no JDK, a JDK too old,
 * no Java runtime classpath.
 */
class BadJavaLevelIT {
    record Case(String name, Function<MpiRun, MpiRun> setup, Function<String, String> expected) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final Path OLD_JDK = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");

    static Stream<Arguments> cases() {
        String count = Jars.of("jcount", CountLevel.class);
        String empty = Jars.withoutServices("empty", CountLevel.class);
        String broken = Jars.of("broken", BrokenInit.class);
        List<Case> cases = new ArrayList<>(List.of(
                new Case("no interceptor", run -> run.java().levels(empty),
                        e -> item(empty) + "has no interceptor: a Java level lists its classes .*META-INF/services/"
                                + "io.jpmpi.layering.Interceptor"),
                new Case("class fails to load", run -> run.java().levels(broken),
                        e -> item(broken) + "an interceptor cannot be loaded: .*BrokenInit.*broken on purpose.*"),
                new Case("missing jar", run -> run.java().levels(count + ".missing.jar"),
                        e -> item(count + ".missing.jar") + "no such file"),
                new Case("no JDK", run -> run.levels(count).env("JAVA_HOME", "/nonexistent"),
                        e -> item(count) + "JAVA_HOME=/nonexistent is not a JDK .*Java levels need a JDK >= 22"),
                new Case("no runtime classpath", run -> run.levels(count)
                        .env("JAVA_HOME", System.getProperty("java.home")),
                        e -> item(count) + "JPMPI_JAVA_CLASSPATH is not set.*")));
        if (Files.isRegularFile(OLD_JDK.resolve("release"))) {
            cases.add(new Case("JDK too old", run -> run.java().env("JAVA_HOME", OLD_JDK.toString()).levels(count),
                    e -> item(count) + "JAVA_HOME=" + OLD_JDK + " is JDK 17; Java levels need a JDK >= 22"));
        }
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
