package io.jpmpi.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Optional;

/**
 * What tells a file from another one at the same path, or from itself rewritten: its identity (device
 * and inode), size and modification time, as one value to compare ({@link Ahead}: the program
 * inspected is the one run; {@link EarlyMerge}: the dumps merged are the ones there after the job).
 */
final class FileIdentity {
    private FileIdentity() {
    }

    /** {@code p}'s identity, size and time (the file a link leads to); empty if it is not there. */
    static Optional<Object> of(Path p) {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            return Optional.of(List.of(String.valueOf(a.fileKey()), a.size(), a.lastModifiedTime()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
