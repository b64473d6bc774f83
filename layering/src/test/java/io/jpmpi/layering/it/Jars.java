package io.jpmpi.layering.it;

import io.jpmpi.testsupport.MpiRun;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Interceptor jars for the tests, packed from the compiled test classes of io.jpmpi.layering.tools
 * (each class with its nested classes) and a META-INF/services file listing them, as a tool writer
 * would ship them. Written once per name under target/test-runs/jars.
 */
final class Jars {
    private static final Path CLASSES = Path.of(System.getProperty("jpmpi.test.classes", "target/test-classes"));
    private static final Path DIR = MpiRun.RUNS_DIR.resolve("jars");

    private Jars() {
    }

    /** A jar named {@code name}.jar with these interceptors listed in its services file. */
    static synchronized String of(String name, Class<?>... interceptors) {
        return write(name, List.of(interceptors), true);
    }

    /** A jar with the classes but no services file. */
    static synchronized String withoutServices(String name, Class<?>... classes) {
        return write(name, List.of(classes), false);
    }

    /** A jar whose services file lists {@code className}, a class that is not in it. */
    static synchronized String listingAbsent(String name, String className) {
        Path jar = DIR.resolve(name + ".jar");
        try {
            Files.createDirectories(DIR);
            try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
                out.putNextEntry(new JarEntry("META-INF/services/io.jpmpi.layering.Interceptor"));
                out.write((className + "\n").getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return jar.toString();
    }

    private static String write(String name, List<Class<?>> classes, boolean services) {
        Path jar = DIR.resolve(name + ".jar");
        try {
            Files.createDirectories(DIR);
            try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
                for (Class<?> c : classes) {
                    Path dir = CLASSES.resolve(c.getPackageName().replace('.', '/'));
                    try (Stream<Path> files = Files.list(dir)) {
                        for (Path f : files.filter(p -> isClassOrNested(p, c.getSimpleName())).sorted().toList()) {
                            out.putNextEntry(new JarEntry(CLASSES.relativize(f).toString()));
                            out.write(Files.readAllBytes(f));
                            out.closeEntry();
                        }
                    }
                }
                if (services) {
                    out.putNextEntry(new JarEntry("META-INF/services/io.jpmpi.layering.Interceptor"));
                    out.write((classes.stream().map(Class::getName).collect(Collectors.joining("\n")) + "\n")
                            .getBytes(StandardCharsets.UTF_8));
                    out.closeEntry();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return jar.toString();
    }

    private static boolean isClassOrNested(Path p, String simpleName) {
        String f = p.getFileName().toString();
        return f.equals(simpleName + ".class") || f.startsWith(simpleName + "$");
    }
}
