package io.jpmpi.tools.build;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Enumeration;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * Build time, for the launcher's AOT cache: rewrites the class files of a jar that are older than
 * version 50 (Java 6) as version 52 (Java 8) with stack map frames, in place. The JVM cannot put a
 * class file older than 50 into an AOT cache (it has no stack maps, so only the old verifier can check
 * it, at every start); picocli's jar is compiled for Java 5. The code is left as it is: only the
 * version number changes and the frames are computed (ASM), which the verifier then checks when the
 * cache is made. Class files of version 50 or later, and every other entry, are copied unchanged, so
 * a second run changes nothing. The output is the same for the same input: entries in their order,
 * with their own times.
 *
 * <p>Usage: {@code UpgradeClassFiles JAR}.
 */
public final class UpgradeClassFiles {
    /** The class files the JVM can only verify with the old verifier: older than this. */
    static final int FIRST_WITH_FRAMES = Opcodes.V1_6;
    /** What they become. */
    static final int TARGET = Opcodes.V1_8;

    private UpgradeClassFiles() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: UpgradeClassFiles JAR");
        }
        Path jar = Path.of(args[0]);
        Path tmp = jar.resolveSibling(jar.getFileName() + ".upgrading");
        int upgraded;
        try (OutputStream out = Files.newOutputStream(tmp)) {
            upgraded = upgrade(jar, out);
        }
        if (upgraded == 0) {
            Files.delete(tmp); // nothing old (a second run): the jar stays as it is, its time too
            return;
        }
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Writes {@code jar} with its old class files upgraded to {@code out}; returns how many were. */
    static int upgrade(Path jar, OutputStream out) throws IOException {
        int upgraded = 0;
        try (ZipFile zip = new ZipFile(jar.toFile());
             URLClassLoader types = new URLClassLoader(new URL[] {jar.toUri().toURL()},
                     ClassLoader.getPlatformClassLoader());
             ZipOutputStream z = new ZipOutputStream(out)) {
            for (Enumeration<? extends ZipEntry> all = zip.entries(); all.hasMoreElements(); ) {
                ZipEntry e = all.nextElement();
                byte[] bytes;
                try (InputStream in = zip.getInputStream(e)) {
                    bytes = in.readAllBytes();
                }
                if (!e.isDirectory() && e.getName().endsWith(".class") && !e.getName().startsWith("META-INF/")
                        && version(bytes) < FIRST_WITH_FRAMES) {
                    bytes = upgrade(bytes, types);
                    upgraded++;
                }
                ZipEntry copy = new ZipEntry(e.getName());
                copy.setTimeLocal(e.getTimeLocal());
                z.putNextEntry(copy);
                z.write(bytes);
                z.closeEntry();
            }
        }
        return upgraded;
    }

    /** The major version of a class file. */
    static int version(byte[] classFile) {
        return (classFile[6] & 0xff) << 8 | classFile[7] & 0xff;
    }

    /**
     * One class file as version {@link #TARGET} with frames; {@code types} loads the classes the frames
     * name (the jar's own, the JDK's), without initialising them, to find the common super class of two.
     */
    static byte[] upgrade(byte[] classFile, ClassLoader types) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
            @Override
            protected ClassLoader getClassLoader() {
                return types;
            }
        };
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public void visit(int version, int access, String name, String signature, String superName,
                              String[] interfaces) {
                super.visit(TARGET, access, name, signature, superName, interfaces);
            }
        }, ClassReader.SKIP_FRAMES);
        return writer.toByteArray();
    }
}
