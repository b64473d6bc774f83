package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.testsupport.Pingpong;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An output directory another user prepared (README.md, "Security"): the job's JPMPI_OUTPUT_DIR
 * names a directory that belongs to another user (uid 65534, with links inside to the victim's
 * files where the recorder and the Java level would write), a symbolic link to a directory of the
 * victim's, or a directory everybody may write. Each time, on both MPIs and with each level, the
 * program runs and ends as ever, every rank says in one line which directory it refuses and why,
 * and the victim's files are untouched. Needs root (to give a directory to another uid); elsewhere
 * a skip that says so.
 */
class SharedDirectoryIT {
    static Stream<Arguments> cases() {
        return ProfileRun.cases().flatMap(a -> Stream.of("foreign", "link", "open")
                .map(kind -> Arguments.of(a.get()[0], a.get()[1], kind)));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cases")
    void anotherUsersDirectoryIsNotWrittenIn(Impl impl, Level level, String kind) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "giving a directory to another user needs root");
        Path base = Files.createTempDirectory(Files.createDirectories(Path.of("target", "shared-dirs")), kind + "-")
                .toAbsolutePath();
        Path victim = Files.createDirectories(base.resolve("victim"));
        Path bashrc = Files.writeString(victim.resolve("bashrc"), "the victim's own\n");
        Path out = base.resolve("out");
        String why;
        switch (kind) {
            case "foreign" -> {
                Files.createDirectories(out.resolve("ranks"));
                Files.createSymbolicLink(out.resolve("profile.json"), bashrc);
                for (int r = 0; r < 2; r++) {
                    Files.createSymbolicLink(out.resolve("ranks").resolve("rank-" + r + ".bin.tmp"), bashrc);
                }
                chown(out.resolve("ranks"));
                chown(out);
                why = "is owned by another user";
            }
            case "link" -> {
                Files.createSymbolicLink(out, victim);
                why = "is a symbolic link";
            }
            default -> {
                Files.createDirectories(out);
                Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rwxrwxrwx"));
                why = "is writable by other users";
            }
        }
        Result r = ProfileRun.run(impl, level, 2, run -> run.env("JPMPI_OUTPUT_DIR", out.toString()), "pingpong", "3")
                .assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(2, 3)), r::describe);
        for (int rank = 0; rank < 2; rank++) {
            String line = "jpmpi (rank " + rank + "): profile: the output directory " + out + " " + why
                    + ": nothing is written there";
            assertEquals(1, r.err().stream().filter(line::equals).count(), () -> line + "\n" + r.describe());
        }
        assertEquals("the victim's own\n", Files.readString(bashrc), r::describe);
        try (Stream<Path> files = Files.list(victim)) {
            assertEquals(1, files.count(), r::describe);
        }
    }

    private static void chown(Path p) throws IOException, InterruptedException {
        Process c = new ProcessBuilder("chown", "-h", "65534", p.toString()).inheritIO().start();
        assertEquals(0, c.waitFor());
    }
}
