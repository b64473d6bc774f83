package io.jpmpi.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;

/**
 * The test cluster of scripts/cluster.sh for the multi-host integration tests: hosts jpn1..jpnN,
 * each a network + UTS namespace of this machine with its own host name and address, all sharing
 * the file system; and, when asked, Slurm on them (a slurmctld, one slurmd inside each host).
 *
 * <p>{@link #up} brings the cluster up, or takes the one a developer brought up by hand (and leaves
 * it up); when this machine does not allow such hosts (not root, no namespaces, no bridge or veth
 * devices; for Slurm: not installed) it aborts the calling test with cluster.sh's one line, a JUnit
 * assumption: the test is reported skipped with that reason, never passed. {@link #close} takes
 * down what {@code up} brought up, and a shutdown hook does it if the JVM ends first.
 *
 * <p>{@link #run} runs a command on a host (cluster.sh run: this directory, the test's environment
 * cleaned as {@link MpiRun} cleans the launcher's, plus the cluster's launcher settings, so that
 * mpirun and mpiexec.hydra reach the other hosts through the cluster's ssh) with a time limit.
 */
public final class Cluster implements AutoCloseable {
    /** scripts/cluster.sh of the source tree (jpmpi.source.root, else found from the test programs' place). */
    public static final Path SCRIPT = Path.of(System.getProperty("jpmpi.source.root",
            MpiRun.TEST_DIR.resolve("../../..").toString())).toAbsolutePath().normalize().resolve("scripts/cluster.sh");
    /** What cluster.sh exits with when this machine does not allow it. */
    public static final int UNAVAILABLE = 77;
    static final Duration CONTROL_LIMIT = Duration.ofSeconds(150);

    private final List<String> hosts;
    private final boolean ownsHosts;
    private final boolean ownsSlurm;
    private final Thread hook;
    private boolean down;

    private Cluster(List<String> hosts, boolean ownsHosts, boolean ownsSlurm) {
        this.hosts = List.copyOf(hosts);
        this.ownsHosts = ownsHosts;
        this.ownsSlurm = ownsSlurm;
        this.hook = new Thread(this::takeDown, "cluster-down");
        if (ownsHosts || ownsSlurm) {
            Runtime.getRuntime().addShutdownHook(hook);
        }
    }

    /** At least `n` hosts with 2 slots each, up; the test is skipped (one line) where they cannot be made. */
    public static Cluster up(int n) {
        return up(n, false);
    }

    /** The same, with Slurm's daemons running on the hosts (nodes idle). */
    public static Cluster upWithSlurm(int n) {
        return up(n, true);
    }

    private static Cluster up(int n, boolean slurm) {
        assertTrue(Files.isExecutable(SCRIPT), () -> "missing " + SCRIPT);
        Result status = control("status");
        boolean ownsHosts = status.exit() != 0;
        if (ownsHosts) {
            // Ours for as long as this JVM runs: should it be killed, the next run does not take what
            // is left for a developer's cluster (scripts/cluster.sh, JPMPI_CLUSTER_OWNER).
            Result up = control(env -> env.put("JPMPI_CLUSTER_OWNER", Long.toString(ProcessHandle.current().pid())),
                    "up", Integer.toString(n), "2");
            skipIfUnavailable(up, "no test cluster on this machine: ");
            assertEquals(0, up.exit(), up::describe);
            status = control("status");
            assertEquals(0, status.exit(), status::describe);
        }
        List<String> hosts = status.out().stream().filter(l -> l.matches("jpn[0-9]+")).toList();
        boolean slurmUp = status.out().stream().anyMatch(l -> l.startsWith("slurm: "));
        boolean ownsSlurm = slurm && !slurmUp;
        // Made here, it is taken down here from now on, whatever happens next.
        Cluster cluster = new Cluster(hosts, ownsHosts, ownsSlurm);
        if (hosts.size() < n) {
            cluster.close();
            fail("the test cluster that is up has " + hosts.size() + " hosts, not " + n
                    + ": scripts/cluster.sh down, and run the test again");
        }
        if (ownsSlurm) {
            Result s = control("slurm-up");
            if (s.exit() != 0) {
                cluster.close();
            }
            skipIfUnavailable(s, "no Slurm for the test cluster: ");
            assertEquals(0, s.exit(), s::describe);
        }
        return cluster;
    }

    /** An assumption (skipped, "Assumption failed: " and the reason, as scripts/test-summary.sh lists skips). */
    private static void skipIfUnavailable(Result r, String what) {
        Assumptions.assumeTrue(r.exit() != UNAVAILABLE, () -> what + r.err().stream()
                .filter(l -> l.startsWith("cluster: unavailable: ")).findFirst()
                .map(l -> l.substring("cluster: unavailable: ".length())).orElse(r.stderr().strip()));
    }

    /** cluster.sh with `args`, from this JVM's environment. */
    private static Result control(String... args) {
        return control(env -> { }, args);
    }

    /** The same, with `environment` changed first. */
    private static Result control(Consumer<Map<String, String>> environment, String... args) {
        List<String> command = new ArrayList<>(List.of(SCRIPT.toString()));
        command.addAll(List.of(args));
        return MpiRun.execute(command, runDir("control-"), environment, CONTROL_LIMIT);
    }

    private static Path runDir(String prefix) {
        try {
            return Files.createTempDirectory(Files.createDirectories(MpiRun.RUNS_DIR), "cluster-" + prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The host names, jpn1 first. */
    public List<String> hosts() {
        return hosts;
    }

    /** The hostfile in `impl`'s syntax: every host, 2 slots. */
    public Path hostfile(Impl impl) {
        Result r = control("hostfile", impl.id);
        assertEquals(0, r.exit(), r::describe);
        return Path.of(r.stdout().strip());
    }

    /** The slurm.conf of the cluster's Slurm (its clients need SLURM_CONF; commands on hosts have it). */
    public Path slurmConf() {
        Result r = control("status");
        return r.out().stream().filter(l -> l.startsWith("slurm: SLURM_CONF=")).findFirst()
                .map(l -> Path.of(l.substring("slurm: SLURM_CONF=".length())))
                .orElseGet(() -> fail("Slurm is not up on the test cluster\n" + r.describe()));
    }

    /**
     * Runs `command` on `host` in a new directory of its own (the result's runDir) with `env` added
     * to the test's cleaned environment; waits at most {@link MpiRun#TIMEOUT}.
     */
    public Result run(String host, Map<String, String> env, List<String> command) {
        List<String> all = new ArrayList<>(List.of(SCRIPT.toString(), "run", host));
        all.addAll(command);
        return MpiRun.execute(all, runDir(host + "-"), penv -> {
            penv.keySet().removeIf(k -> MpiRun.CLEANED.contains(k) || k.startsWith("OMPI_MCA_")
                    || k.startsWith("JPMPI_") || k.startsWith("SLURM_") || k.startsWith("HYDRA_"));
            penv.put("JAVA_HOME", System.getProperty("java.home"));
            penv.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
            penv.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
            penv.putAll(env);
        }, MpiRun.TIMEOUT);
    }

    /**
     * From now on, commands on `host` see an empty read-only file system over each of `dirs` (a node
     * that does not mount a site's scratch area); no dirs: none again (scripts/cluster.sh private).
     */
    public void hide(String host, Path... dirs) {
        List<String> all = new ArrayList<>(List.of(SCRIPT.toString(), "private", host));
        for (Path d : dirs) {
            all.add(d.toAbsolutePath().toString());
        }
        MpiRun.execute(all, runDir("private-"), penv -> { }, MpiRun.TIMEOUT).assertSuccess();
    }

    /** Takes down what {@link #up} brought up: Slurm, then the hosts. */
    @Override
    public void close() {
        takeDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // shutting down already, or never registered
        }
    }

    private synchronized void takeDown() {
        if (down) {
            return;
        }
        down = true;
        if (ownsHosts) {
            Result r = control("down");
            assertEquals(0, r.exit(), r::describe);
        } else if (ownsSlurm) {
            Result r = control("slurm-down");
            assertEquals(0, r.exit(), r::describe);
        }
    }
}
