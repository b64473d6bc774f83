package io.jpmpi.tools.build;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The build's rewrite of picocli's jar (the one the launcher ships): every class file becomes version
 * 52 with frames that the JVM's verifier accepts, the other entries stay as they were, the same input
 * gives the same bytes, and a second run changes nothing. The launcher's AOT cache holding the
 * rewritten classes is dist's LauncherAotCacheIT.
 */
class UpgradeClassFilesTest {
    private static Path picocli() throws Exception {
        Path jar = Path.of(picocli.CommandLine.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertTrue(jar.toString().endsWith(".jar"), jar::toString);
        return jar;
    }

    @Test
    void picocliBecomesVersion52AndEveryClassVerifies(@TempDir Path dir) throws Exception {
        Path original = picocli();
        Path jar = Files.copy(original, dir.resolve("picocli.jar"));
        List<String> old = classes(original, 0, UpgradeClassFiles.FIRST_WITH_FRAMES - 1);
        assertTrue(old.size() > 100, () -> "picocli's jar is no longer compiled for Java 5: " + old.size()
                + " old class files (the rewrite may no longer be needed)");
        UpgradeClassFiles.main(new String[] {jar.toString()});
        assertEquals(List.of(), classes(jar, 0, UpgradeClassFiles.TARGET - 1));
        assertEquals(old, classes(jar, UpgradeClassFiles.TARGET, UpgradeClassFiles.TARGET));
        assertEquals(entries(original), entries(jar));
        // Initialising a class links it, and linking verifies it with the type-checking verifier (the
        // class files have frames now): a frame ASM got wrong is a VerifyError here.
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            for (String name : old) {
                Class<?> c = Class.forName(name.replace('/', '.').replaceFirst("\\.class$", ""), true, loader);
                assertEquals(loader, c.getClassLoader(), name);
            }
        }
    }

    @Test
    void theSameJarGivesTheSameBytesAndASecondRunChangesNothing(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream one = new ByteArrayOutputStream();
        ByteArrayOutputStream two = new ByteArrayOutputStream();
        assertTrue(UpgradeClassFiles.upgrade(picocli(), one) > 100);
        assertTrue(UpgradeClassFiles.upgrade(picocli(), two) > 100);
        assertArrayEquals(one.toByteArray(), two.toByteArray());
        Path jar = Files.write(dir.resolve("picocli.jar"), one.toByteArray());
        long time = Files.getLastModifiedTime(jar).toMillis();
        assertEquals(0, UpgradeClassFiles.upgrade(jar, new ByteArrayOutputStream()));
        UpgradeClassFiles.main(new String[] {jar.toString()});
        assertArrayEquals(one.toByteArray(), Files.readAllBytes(jar));
        assertEquals(time, Files.getLastModifiedTime(jar).toMillis());
        try (var left = Files.list(dir)) {
            assertEquals(List.of(jar), left.toList());
        }
    }

    /** The class files of {@code jar} (outside META-INF) whose major version is from {@code min} to {@code max}. */
    private static List<String> classes(Path jar, int min, int max) throws IOException {
        List<String> out = new ArrayList<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (ZipEntry e : Collections.list(zip.entries())) {
                if (e.getName().endsWith(".class") && !e.getName().startsWith("META-INF/")) {
                    try (InputStream in = zip.getInputStream(e)) {
                        int v = UpgradeClassFiles.version(in.readNBytes(8));
                        if (v >= min && v <= max) {
                            out.add(e.getName());
                        }
                    }
                }
            }
        }
        return out;
    }

    /** Every entry's name, with the content of those that are not upgraded class files. */
    private static List<String> entries(Path jar) throws IOException {
        List<String> out = new ArrayList<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (ZipEntry e : Collections.list(zip.entries())) {
                boolean upgraded = e.getName().endsWith(".class") && !e.getName().startsWith("META-INF/");
                try (InputStream in = zip.getInputStream(e)) {
                    out.add(e.getName() + (upgraded ? "" : " " + java.util.Arrays.hashCode(in.readAllBytes())));
                }
            }
        }
        return out;
    }
}
