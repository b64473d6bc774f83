package io.jpmpi.profilers.report;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The directories jpmpi writes its results in, as the recorder's C side treats them
 * (profilers/profile/src/main/c/recorder.c, jp_own_dir): made with mode 0700 (a job's figures are its
 * user's), or, when one is there, taken only if it is a real directory (not a symbolic link), owned
 * by this process's user and writable by no other user (group-writable only for the user's own
 * group). Another user of a shared directory (/tmp, a scratch area) can then neither put a file or a
 * link into it nor have jpmpi write into a directory of theirs.
 */
public final class OwnDirectory {
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private OwnDirectory() {
    }

    /** Makes {@code dir} (its parents as needed) or checks the one that is there; the reason if refused. */
    public static void make(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath();
        if (abs.getParent() != null) {
            Files.createDirectories(abs.getParent());
        }
        try {
            Files.createDirectory(abs, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            return;
        } catch (FileAlreadyExistsException e) {
            // there already: whose is it?
        }
        PosixFileAttributes a = Files.readAttributes(abs, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        String why = a.isSymbolicLink() ? "a symbolic link" : !a.isDirectory() ? "not a directory"
                : (int) Files.getAttribute(abs, "unix:uid", LinkOption.NOFOLLOW_LINKS) != self("unix:uid")
                        ? "owned by another user"
                        : a.permissions().contains(PosixFilePermission.OTHERS_WRITE)
                                || a.permissions().contains(PosixFilePermission.GROUP_WRITE)
                                && (int) Files.getAttribute(abs, "unix:gid", LinkOption.NOFOLLOW_LINKS) != self("unix:gid")
                                ? "writable by other users" : null;
        if (why != null) {
            throw new IOException(abs + " is " + why + ": jpmpi writes only in a directory it made or one that is"
                    + " this user's alone");
        }
    }

    /** How many numbered names {@link #fresh} tries before a random one. */
    public static final int NUMBERED = 20;

    /**
     * A new directory of this user's own (mode 0700) under {@code parent}: {@code name}, else
     * {@code name-2} .. {@code name-20}, else {@code name-<random>}. Never one that is there already: in a
     * directory other users can write, anyone can make the names a job would take next (README,
     * "Security"), and the caller still gets its own.
     */
    public static Path fresh(Path parent, String name) throws IOException {
        var ownerOnly = PosixFilePermissions.asFileAttribute(OWNER_ONLY);
        for (int n = 1; n <= NUMBERED; n++) {
            try {
                return Files.createDirectory(parent.resolve(n == 1 ? name : name + "-" + n), ownerOnly);
            } catch (FileAlreadyExistsException e) {
                // taken (by an earlier job, or planted): the next name
            }
        }
        return Files.createTempDirectory(parent.toAbsolutePath(), name + "-", ownerOnly);
    }

    /** This process's user or group: /proc/self belongs to them. */
    private static int self(String attribute) throws IOException {
        return (int) Files.getAttribute(Path.of("/proc/self"), attribute);
    }
}
