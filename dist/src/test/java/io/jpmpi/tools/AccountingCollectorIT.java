package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.profilers.accounting.AccountingRecord;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Accounting records nobody can forge (profilers/accounting/ACCOUNTING.md, "A store users cannot
 * forge"), with two ordinary users the test creates, jpmpi-alice and jpmpi-bob: `jpmpi accounting
 * collect` runs as root; alice's real jobs (bin/jpmpi run --tools accounting, 2 ranks, every installed
 * MPI) claim to be bob's through USER and LOGNAME and are stored as alice's; bob sends a record in
 * alice's name over the socket and it is stored as his; bob can neither append to, truncate nor remove
 * the store; a line that is not a record is refused and nothing is stored; after the file is moved away
 * (rotation) the next record makes a new file, the collector's again; the summary counts each user's
 * own jobs. Skipped, with one line, where users cannot be made (not root, no useradd).
 */
class AccountingCollectorIT extends TwoUsers {
    static List<AccountingRecord> records(Path file) throws Exception {
        List<AccountingRecord> all = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            all.add(AccountingRecord.parse(line));
        }
        return all;
    }

    /** What the user can do to the store: append, truncate, remove; each must fail. */
    static void cannotTouch(String user, Path file) throws Exception {
        byte[] before = Files.readAllBytes(file);
        assertNotEquals(0, as(user, List.of("sh", "-c", "echo '{}' >> " + file)).exit());
        assertNotEquals(0, as(user, List.of("truncate", "-s", "0", file.toString())).exit());
        assertNotEquals(0, as(user, List.of("rm", "-f", file.toString())).exit());
        assertNotEquals(0, as(user, List.of("mv", file.toString(), file + ".gone")).exit());
        assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(file)), "the store changed");
    }

    /** A client of user's that sends one line to the socket itself and prints the answer. */
    static Run send(String user, Path socket, String line) throws Exception {
        String py = "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\n"
                + "s.sendall(sys.argv[2].encode()+b'\\n')\nprint(s.recv(200).decode().strip())\n";
        return as(user, List.of("/usr/bin/python3", "-c", py, socket.toString(), line));
    }

    @Test
    void recordsCarryTheKernelsUserAndOnlyTheCollectorWritesTheStore() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "needs python3 for a hand-made client");
        Path store = Files.createDirectory(base.resolve("store"));
        Files.setPosixFilePermissions(store, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path socket = store.resolve("accounting.sock");
        Path file = store.resolve("jobs.jsonl");
        Path log = base.resolve("collector.log");
        Process collector = new ProcessBuilder(Jpmpi.HOME.resolve("bin/jpmpi").toString(), "accounting", "collect",
                "--socket", socket.toString(), "--file", file.toString()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        try {
            for (int i = 0; i < 300 && !Files.exists(socket); i++) {
                assertTrue(collector.isAlive(), () -> "the collector ended: " + read(log));
                Thread.sleep(100);
            }
            assertTrue(Files.exists(socket), () -> "no socket after 30 s: " + read(log));
            Map<String, String> unix = Map.of("JPMPI_ACCOUNTING_FILE", "unix:" + socket);
            List<Impl> impls = MpiRun.implementations().toList();
            for (Impl impl : impls) {
                String launcher = impl == Impl.OPENMPI ? "mpirun.openmpi" : "mpiexec.hydra";
                Run job = as(ALICE, BOB, null, unix, List.of(Jpmpi.HOME.resolve("bin/jpmpi").toString(), "run", "--tools",
                        "accounting", "--", launcher, "-np", "2", MpiRun.TEST_DIR.resolve(impl.id).resolve("pingpong")
                                .toString()));
                assertEquals(0, job.exit(), job.out());
                assertTrue(job.out().contains("pingpong result: ranks=2"), job.out());
            }
            List<AccountingRecord> alices = records(file);
            assertEquals(impls.size(), alices.size(), () -> read(file) + read(log));
            alices.forEach(r -> assertEquals(ALICE, r.user(), r.toJson()));
            alices.forEach(r -> assertEquals(2, r.ranks(), r.toJson()));

            // bob's own record in alice's name, sent by hand: stored as bob's
            String forged = new AccountingRecord("forged-1", ALICE, "/bin/forged", "vm", "openmpi 4.1.4",
                    alices.get(0).start(), alices.get(0).end(), 1, 2, 1, 2.0 / 3600, 10, List.of(), null, 0.1).toJson();
            Run sent = send(BOB, socket, forged);
            assertEquals("ok", sent.out().strip(), sent.out());
            AccountingRecord stored = records(file).getLast();
            assertEquals("forged-1", stored.job());
            assertEquals(BOB, stored.user(), "a record in another user's name is stored in the sender's");
            // not a record: refused, nothing stored
            long lines = Files.readAllLines(file).size();
            Run junk = send(BOB, socket, "{\"user\":\"" + ALICE + "\"");
            assertTrue(junk.out().startsWith("refused: not an accounting record"), junk.out());
            assertEquals(lines, Files.readAllLines(file).size());
            cannotTouch(BOB, file);
            cannotTouch(ALICE, file);

            // rotation: the file moved away, the next record makes a new one, the collector's
            Files.move(file, store.resolve("jobs.jsonl.1"));
            Run bobs = as(BOB, ALICE, null, unix, List.of(Jpmpi.HOME.resolve("bin/jpmpi").toString(), "run", "--tools",
                    "accounting", "--", impls.get(0) == Impl.OPENMPI ? "mpirun.openmpi" : "mpiexec.hydra", "-np", "2",
                    MpiRun.TEST_DIR.resolve(impls.get(0).id).resolve("pingpong").toString()));
            assertEquals(0, bobs.exit(), bobs.out());
            assertEquals(BOB, records(file).getFirst().user());
            assertEquals("root", Files.getOwner(file).getName());
            assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            cannotTouch(BOB, file);

            Jpmpi.Result summary = Jpmpi.run(List.of("accounting", "summary", store.resolve("jobs.jsonl.1").toString(),
                    file.toString()));
            assertEquals(0, summary.exit(), summary::describe);
            assertTrue(summary.out().lines().anyMatch(l -> l.contains(ALICE) && l.matches(".*\\b" + impls.size() + "\\b.*")),
                    summary::describe);
            assertTrue(summary.out().lines().anyMatch(l -> l.contains(BOB)), summary::describe);
        } finally {
            collector.destroy();
            collector.waitFor(30, TimeUnit.SECONDS);
            collector.destroyForcibly();
        }
        assertTrue(!Files.exists(socket), "the collector removes its socket when stopped");
    }

    static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "(no " + p + ")";
        } catch (IOException e) {
            return "(cannot read " + p + ": " + e + ")";
        }
    }
}
