package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two ordinary users for the shared-machine tests, jpmpi-alice and jpmpi-bob: made before the class's
 * tests (where they are not there yet) and removed after; each gets a home directory of their own under
 * a directory every user can read. Skipped with one line where that is impossible (not root, no
 * useradd or runuser).
 */
abstract class TwoUsers {
    static final String ALICE = "jpmpi-alice";
    static final String BOB = "jpmpi-bob";
    private static final List<String> CREATED = new ArrayList<>();

    @TempDir
    static Path base;

    record Run(int exit, String out) {
    }

    private static Run run(List<String> command, Path dir) throws Exception {
        Path out = Files.createTempFile(base, "run-", ".txt");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        if (dir != null) {
            pb.directory(dir.toFile());
        }
        pb.environment().keySet().removeIf(k -> k.startsWith("JPMPI_") || k.startsWith("OMPI_") || k.equals("LD_PRELOAD"));
        Process p = pb.start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("timed out: " + command);
        }
        return new Run(p.exitValue(), Files.readString(out));
    }

    @BeforeAll
    static void makeUsers() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "needs root to create two users");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/useradd")) && Files.isExecutable(
                Path.of("/usr/sbin/runuser")), "needs useradd and runuser to create and become two users");
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
        for (String u : List.of(ALICE, BOB)) {
            if (run(List.of("id", "-u", u), null).exit() != 0) {
                Run made = run(List.of("/usr/sbin/useradd", "--no-create-home", "--shell", "/bin/sh", u), null);
                assertEquals(0, made.exit(), made.out());
                CREATED.add(u);
            }
        }
    }

    @AfterAll
    static void removeUsers() throws Exception {
        for (String u : CREATED) {
            run(List.of("/usr/sbin/userdel", u), null);
        }
        CREATED.clear();
    }

    /** User's own directory (their HOME, TMPDIR and working directory), mode 0700. */
    static Path home(String user) throws Exception {
        Path h = base.resolve(user);
        if (!Files.isDirectory(h)) {
            Files.createDirectory(h, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Run own = run(List.of("chown", user, h.toString()), null);
            assertEquals(0, own.exit(), own.out());
        }
        return h;
    }

    /** Runs command as user in `dir` (their home if null), with USER and LOGNAME saying `claims`. */
    static Run as(String user, String claims, Path dir, Map<String, String> env, List<String> command) throws Exception {
        Path h = home(user);
        List<String> full = new ArrayList<>(List.of("/usr/sbin/runuser", "-u", user, "--", "env", "USER=" + claims,
                "LOGNAME=" + claims, "HOME=" + h, "TMPDIR=" + h, "JAVA_HOME=" + System.getProperty("java.home")));
        env.forEach((k, v) -> full.add(k + "=" + v));
        full.addAll(command);
        return run(full, dir != null ? dir : h);
    }

    static Run as(String user, List<String> command) throws Exception {
        return as(user, user, null, Map.of(), command);
    }
}
