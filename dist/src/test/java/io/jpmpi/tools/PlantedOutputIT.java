package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The predictable output directory of `jpmpi run` in a directory every user can write (README,
 * "Security"), with two ordinary users: bob makes, in a shared 1777 directory, every name alice's
 * `jpmpi run --tools profile` could take in the next minute (jpmpi-YYYYMMDD-HHMMSS and its
 * numbered -2 .. -20), each writable by all and full of links to alice's own files. Alice's job, run
 * there, still gets a profile, in a directory of her own (mode 0700) under a name bob could not
 * foresee, and her files are untouched; naming bob's directory with --output is refused with one
 * line. Each installed MPI.
 */
class PlantedOutputIT extends TwoUsers {
    static Stream<Impl> impls() {
        return MpiRun.implementations();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impls")
    void anotherUsersPlantedNamesNeitherRedirectNorStopTheProfile(Impl impl) throws Exception {
        Path shared = Files.createDirectories(base.resolve("shared-" + impl.id));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertEquals(0, new ProcessBuilder("chmod", "1777", shared.toString()).start().waitFor());
        Path bashrc = home(ALICE).resolve(".bashrc");
        Files.writeString(bashrc, "# alice's own\n");
        assertEquals(0, new ProcessBuilder("chown", ALICE, bashrc.toString()).start().waitFor());

        // bob: the next 60 seconds' names, each with its numbered ones, links inside to alice's file
        DateTimeFormatter stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");
        LocalDateTime now = LocalDateTime.now();
        StringBuilder plant = new StringBuilder("set -e\ncd " + shared + "\n");
        for (int s = 0; s < 60; s++) {
            String name = "jpmpi-" + stamp.format(now.plusSeconds(s));
            for (int n = 1; n <= RunCommand.NUMBERED; n++) {
                String d = n == 1 ? name : name + "-" + n;
                plant.append("mkdir -m 777 ").append(d).append(" && ln -s ").append(bashrc).append(' ').append(d)
                        .append("/profile.json && ln -s ").append(bashrc).append(' ').append(d).append("/ranks\n");
            }
        }
        Path script = Files.writeString(base.resolve("plant-" + impl.id + ".sh"), plant);
        Run planted = as(BOB, List.of("sh", script.toString()));
        assertEquals(0, planted.exit(), planted.out());

        String launcher = impl == Impl.OPENMPI ? "mpirun.openmpi" : "mpiexec.hydra";
        String app = MpiRun.TEST_DIR.resolve(impl.id).resolve("pingpong").toString();
        String jpmpi = Jpmpi.HOME.resolve("bin/jpmpi").toString();
        Run job = as(ALICE, ALICE, shared, Map.of(), List.of(jpmpi, "run", "--tools", "profile", "--", launcher, "-np",
                "2", app));
        assertEquals(0, job.exit(), job.out());
        assertTrue(job.out().contains("pingpong result: ranks=2"), job.out());
        assertEquals("# alice's own\n", Files.readString(bashrc), job.out());
        List<Path> alices;
        try (Stream<Path> all = Files.list(shared)) {
            alices = all.filter(p -> owner(p).equals(ALICE)).toList();
        }
        assertEquals(1, alices.size(), () -> alices + "\n" + job.out());
        Path mine = alices.getFirst();
        assertTrue(Files.isDirectory(mine, LinkOption.NOFOLLOW_LINKS), job.out());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(mine)));
        assertTrue(Files.isRegularFile(mine.resolve("profile.json"), LinkOption.NOFOLLOW_LINKS), job.out());
        assertTrue(job.out().contains(mine.getFileName().toString()), () -> "the job says where\n" + job.out());

        // bob's directory, named: refused with one line, nothing written through its links
        Path bobs = shared.resolve("jpmpi-" + stamp.format(now.plusSeconds(59)));
        Run named = as(ALICE, ALICE, shared, Map.of(), List.of(jpmpi, "run", "--tools", "profile", "--output",
                bobs.toString(), "--", launcher, "-np", "2", app));
        assertNotEquals(0, named.exit(), named.out());
        assertTrue(named.out().lines().anyMatch(l -> l.contains(bobs.toString()) && l.contains("owned by another user")),
                named.out());
        assertEquals("# alice's own\n", Files.readString(bashrc), named.out());
    }

    static String owner(Path p) {
        try {
            return Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName();
        } catch (java.io.IOException e) {
            return "?";
        }
    }
}
