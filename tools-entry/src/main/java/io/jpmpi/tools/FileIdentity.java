package io.jpmpi.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * What tells a file from another one at the same path, or from itself rewritten: its identity (device
 * and inode), size, modification and change times, as one value to compare ({@link Ahead}: the program
 * inspected is the one run; {@link EarlyMerge}: the dumps merged are the ones there after the job;
 * {@link Plans}: a plan's files are the ones it was made from).
 */
final class FileIdentity {
    private FileIdentity() {
    }

    /**
     * {@code p}'s device, inode, size, modification and change times (ns) of the file a link leads to,
     * as stat(2) gives them (a plan's native side compares them so: {@link Plans}); empty if it is not there.
     */
    static Optional<List<Long>> of(Path p) {
        try {
            Map<String, Object> a = Files.readAttributes(p, "unix:dev,ino,size,lastModifiedTime,ctime");
            return Optional.of(List.of((Long) a.get("dev"), (Long) a.get("ino"), (Long) a.get("size"),
                    ((FileTime) a.get("lastModifiedTime")).to(TimeUnit.NANOSECONDS),
                    ((FileTime) a.get("ctime")).to(TimeUnit.NANOSECONDS)));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
