package io.jpmpi.profilers.report;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A file the tools are about to read (profile.json, a rank dump), checked first: one line naming
 * it when it is anything but a readable regular file of a sane size, rather than a read that blocks
 * (a FIFO), an error without the file's name (a directory), a misleading "no such file" (a link
 * loop) or an OutOfMemoryError (a huge file, a link to /dev/zero).
 */
public final class InputFile {
    private InputFile() {
    }

    /** Is there an entry at {@code file} at all (a dangling or looping link counts)? */
    public static boolean present(Path file) {
        return Files.exists(file, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Checks {@code file} before it is read as {@code what} ("a profile.json", "a rank dump"); returns
     * its size. {@code maxBytes} &lt;= 0: no limit. What the file is throws a {@link ProfileFormatException}
     * (one line, the file first); a file that is not there, its NoSuchFileException.
     */
    public static long check(Path file, String what, long maxBytes) throws IOException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            if (Files.isSymbolicLink(file)) {
                throw new ProfileFormatException(file + ": a symbolic link to nothing (" + Files.readSymbolicLink(file)
                        + "), not " + what);
            }
            throw e; // plainly missing: the caller's I/O error, as before
        } catch (FileSystemException e) {
            String reason = e.getReason() != null ? e.getReason() : e.toString();
            if (reason.contains("levels of symbolic links")) {
                throw new ProfileFormatException(file + ": a loop of symbolic links, not " + what);
            }
            throw e;
        }
        if (a.isDirectory()) {
            throw new ProfileFormatException(file + ": is a directory, not " + what);
        }
        if (!a.isRegularFile()) {
            throw new ProfileFormatException(file + ": is not a regular file (a FIFO, socket or device), not " + what);
        }
        if (maxBytes > 0 && a.size() > maxBytes) {
            throw new ProfileFormatException(file + ": " + a.size() + " bytes, too large for " + what + " (at most "
                    + maxBytes + ")");
        }
        if (!Files.isReadable(file)) {
            throw new IOException(file + ": not readable (permissions)");
        }
        return a.size();
    }
}
