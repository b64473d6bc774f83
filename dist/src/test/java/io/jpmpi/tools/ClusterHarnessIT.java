package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.Cluster;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The test cluster itself (scripts/cluster.sh, scripts/cluster-ssh, test-support's Cluster): each
 * host has its own name and address and sees the others; the agent behaves as ssh; and taking it
 * down leaves the machine as it was: /etc/hosts byte for byte, no namespace, device or daemon.
 * Skipped where the machine does not allow the hosts, and where a cluster is up already (a
 * developer's: it is not taken down).
 */
class ClusterHarnessIT {
    static final Path ETC_HOSTS = Path.of("/etc/hosts");
    static final Path STATE = Path.of("/run/jpmpi-cluster");
    /** The subnet's first three octets, as cluster.sh takes them. */
    static final String NET = System.getenv().getOrDefault("JPMPI_CLUSTER_NET", "10.231.0");

    static Result sh(String... command) {
        return sh(Map.of(), command);
    }

    static Result sh(Map<String, String> env, String... command) {
        Path dir = Jpmpi.RUNS.resolve("harness-" + System.nanoTime());
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return MpiRun.execute(List.of(command), dir, e -> e.putAll(env), Duration.ofSeconds(90));
    }

    static String script() {
        return Cluster.SCRIPT.toString();
    }

    /** The pids in Slurm's pid files: munged, slurmctld, one slurmd per host. */
    static Map<String, Long> slurmDaemons() throws IOException {
        Map<String, Long> daemons = new TreeMap<>();
        try (Stream<Path> pids = Files.list(STATE.resolve("slurm/run"))) {
            for (Path p : pids.toList()) {
                daemons.put(p.getFileName().toString(), Long.parseLong(Files.readString(p).strip()));
            }
        }
        return daemons;
    }

    /**
     * SIGKILL, then at most 5 s until the process has ended: a zombie (its parent, often pid 1, has not
     * reaped it yet: /proc/PID still there, state Z) or gone. cluster.sh must take either for gone.
     */
    static void kill(long pid) throws InterruptedException {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        Path stat = Path.of("/proc/" + pid + "/stat");
        for (int i = 0; i < 100; i++) {
            try {
                String s = Files.readString(stat);
                String state = s.substring(s.lastIndexOf(')') + 2, s.lastIndexOf(')') + 3);
                if (state.equals("Z") || state.equals("X")) {
                    return;
                }
            } catch (IOException gone) {
                return;
            }
            Thread.sleep(50);
        }
    }

    /**
     * What a run killed with its daemons (a CI job's end, an OOM kill) leaves under /run is not taken for
     * a developer's cluster: Slurm whose daemons are gone is not reported up and slurm-up starts it
     * again; hosts whose owner (JPMPI_CLUSTER_OWNER) is gone are not up and the next `up` replaces them.
     */
    @Test
    void whatAKilledRunLeftIsNotTakenForACluster() throws Exception {
        Assumptions.assumeFalse(sh(script(), "status").exit() == 0,
                "a test cluster is up already (scripts/cluster.sh down to run this test)");
        Process owner = new ProcessBuilder("sleep", "600").start();
        try {
            Result up = sh(Map.of("JPMPI_CLUSTER_OWNER", Long.toString(owner.pid())), script(), "up", "2", "2");
            Assumptions.assumeFalse(up.exit() == Cluster.UNAVAILABLE, up::describe);
            assertEquals(0, up.exit(), up::describe);
            Result slurm = sh(script(), "slurm-up");
            Assumptions.assumeFalse(slurm.exit() == Cluster.UNAVAILABLE, slurm::describe);
            assertEquals(0, slurm.exit(), slurm::describe);
            Result status = sh(script(), "status");
            assertEquals(0, status.exit(), status::describe);
            assertTrue(status.out().stream().anyMatch(l -> l.startsWith("slurm: SLURM_CONF=")), status::describe);

            // The controller killed: Slurm is not up (the hosts are), and slurm-up starts it again.
            Map<String, Long> before = slurmDaemons();
            kill(before.get("slurmctld.pid"));
            status = sh(script(), "status");
            assertEquals(0, status.exit(), status::describe);
            assertEquals(List.of("jpn1", "jpn2"), status.out(), status::describe);
            assertTrue(status.stderr().contains("slurm: a daemon is gone"), status::describe);
            slurm = sh(script(), "slurm-up");
            assertEquals(0, slurm.exit(), slurm::describe);
            assertTrue(slurm.stderr().contains("starting Slurm again"), slurm::describe);
            Map<String, Long> again = slurmDaemons();
            assertEquals(4, again.size(), again::toString);
            for (Map.Entry<String, Long> d : before.entrySet()) {
                // The old daemons that were still running are stopped, none is kept.
                assertFalse(ProcessHandle.of(d.getValue()).map(ProcessHandle::isAlive).orElse(false),
                        () -> d.getKey() + " " + d.getValue() + " is left");
            }
            Result job = sh(script(), "run", "jpn1", "srun", "-N", "2", "-n", "2", "hostname");
            assertEquals(0, job.exit(), job::describe);
            assertEquals(List.of("jpn1", "jpn2"), job.out().stream().sorted().toList(), job::describe);

            // The owner and every daemon killed, as a killed run: nothing is up; an `up` replaces it.
            owner.destroyForcibly().waitFor();
            for (long pid : slurmDaemons().values()) {
                kill(pid);
            }
            status = sh(script(), "status");
            assertEquals(1, status.exit(), status::describe);
            assertTrue(status.stderr().contains("belongs to a run that has ended"), status::describe);
            try (Cluster cluster = Cluster.upWithSlurm(3)) {
                assertEquals(List.of("jpn1", "jpn2", "jpn3"), cluster.hosts());
                Result r = cluster.run("jpn2", Map.of(), List.of("srun", "-N", "3", "-n", "3", "hostname"));
                assertEquals(0, r.exit(), r::describe);
                assertEquals(List.of("jpn1", "jpn2", "jpn3"), r.out().stream().sorted().toList(), r::describe);
            }
            assertFalse(Files.exists(STATE), STATE + " is left");
        } finally {
            owner.destroyForcibly();
            if (Files.exists(STATE)) {
                sh(script(), "down");
            }
        }
    }

    @Test
    void hostsAgentAndATeardownThatLeavesNothing() throws Exception {
        Assumptions.assumeFalse(sh(script(), "status").exit() == 0,
                "a test cluster is up already (scripts/cluster.sh down to run this test)");
        byte[] hostsBefore = Files.readAllBytes(ETC_HOSTS);
        List<Long> daemons = new ArrayList<>();
        try (Cluster cluster = Cluster.upWithSlurm(3)) {
            assertEquals(List.of("jpn1", "jpn2", "jpn3"), cluster.hosts());
            String etc = Files.readString(ETC_HOSTS);
            for (String line : List.of(NET + ".254 jpctl", NET + ".1 jpn1", NET + ".2 jpn2", NET + ".3 jpn3")) {
                assertTrue(etc.lines().anyMatch(line::equals), () -> line + " not in /etc/hosts:\n" + etc);
            }
            // Each host its name and address; from jpn2, jpn3's ssh (the agent, first on PATH) runs
            // the joined command there, ssh's options skipped.
            Result r = cluster.run("jpn2", Map.of(), List.of("sh", "-c",
                    "hostname; ip -4 -o addr show dev eth0; ssh -x -o BatchMode=yes jpn3 'echo $(hostname)' and more"));
            r.assertSuccess();
            assertEquals("jpn2", r.out().get(0), r::describe);
            assertTrue(r.out().get(1).contains(" inet " + NET + ".2/24 "), r::describe);
            assertEquals("jpn3 and more", r.out().get(2), r::describe);
            Result stranger = cluster.run("jpn1", Map.of(), List.of("ssh", "jpn9", "true"));
            assertEquals(255, stranger.exit(), stranger::describe);
            assertTrue(stranger.stderr().contains("jpn9 is not a host of the test cluster"), stranger::describe);
            // Slurm's daemons, to see them gone afterwards.
            daemons.addAll(slurmDaemons().values());
            assertEquals(5, daemons.size(), daemons::toString); // munged, slurmctld, 3 slurmd
        }
        assertArrayEquals(hostsBefore, Files.readAllBytes(ETC_HOSTS), "/etc/hosts is not as it was");
        assertFalse(Files.exists(STATE), STATE + " is left");
        Result netns = sh("ip", "netns", "list");
        assertTrue(netns.out().stream().noneMatch(l -> l.matches("jpn[0-9]+.*")), netns::describe);
        Result links = sh("ip", "-o", "link", "show");
        assertTrue(links.out().stream().noneMatch(l -> l.contains(" jpv") || l.contains(" jpmpibr0")), links::describe);
        for (long pid : daemons) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "daemon " + pid + " is left");
        }
    }
}
