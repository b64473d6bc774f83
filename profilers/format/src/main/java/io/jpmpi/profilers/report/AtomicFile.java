package io.jpmpi.profilers.report;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/** How every file of a profile directory is written: whole or not at all, as its readers see it. */
public final class AtomicFile {
    /** What a result file is created with: readable and writable by its user only (README.md, "Security"). */
    public static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private AtomicFile() {
    }

    /** What writes a file's content. */
    @FunctionalInterface
    public interface Content {
        void write(Writer w) throws IOException;
    }

    /**
     * Writes {@code file} (UTF-8) through a temporary file in the same directory, flushed to disk and
     * then renamed over it: readers see the old file or the whole new one, never a part. The file
     * is created new (never one that is there, never through a symbolic link), mode 0600.
     */
    public static void write(Path file, Content content) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = dir.resolve("." + file.getFileName() + "." + ProcessHandle.current().pid() + "."
                + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16) + ".tmp");
        // a new file, never through a link, readable by its user only (README.md, "Security")
        FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS), OWNER_ONLY);
        try {
            try (ch) {
                OutputStream out = Channels.newOutputStream(ch);
                Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
                content.write(w);
                w.flush();
                ch.force(true);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }
}
