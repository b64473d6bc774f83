package io.jpmpi.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Files that are given as tools but are not what they claim, made on the spot: an ELF shared
 * library header of another machine (no cross compiler needed: the launcher and the dispatcher
 * read only the header), a text file, an empty file, a directory, a FIFO.
 */
public final class BadFiles {
    /** ELF e_machine values. */
    public static final int AARCH64 = 183;
    public static final int I386 = 3;

    private BadFiles() {
    }

    /**
     * The header of a little-endian ELF shared library (ET_DYN) for {@code machine}, 64- or 32-bit;
     * nothing after it.
     */
    public static Path foreignLibrary(Path file, int machine, boolean is64) {
        ByteBuffer h = ByteBuffer.allocate(is64 ? 64 : 52).order(ByteOrder.LITTLE_ENDIAN);
        h.put(new byte[] {0x7f, 'E', 'L', 'F', (byte) (is64 ? 2 : 1), 1, 1});
        h.putShort(16, (short) 3).putShort(18, (short) machine).putInt(20, 1);
        return write(file, h.array());
    }

    public static Path text(Path file) {
        return write(file, "this is a text file, not what its name says\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    public static Path empty(Path file) {
        return write(file, new byte[0]);
    }

    public static Path directory(Path dir) {
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A named pipe (made once): reading it would block until someone writes. */
    public static Path fifo(Path file) {
        try {
            Files.createDirectories(file.getParent());
            if (!Files.exists(file) && new ProcessBuilder("mkfifo", file.toString()).inheritIO().start().waitFor() != 0) {
                throw new IllegalStateException("mkfifo " + file + " failed");
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Path write(Path file, byte[] bytes) {
        try {
            Files.createDirectories(file.getParent());
            return Files.write(file, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
