package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.profilers.accounting.AccountingRecord;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.testsupport.Cluster;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * jpmpi on a cluster: 3 hosts of 2 ranks each (scripts/cluster.sh: network + UTS namespaces of this
 * machine, one file system), bin/jpmpi run --tools profile,java-counter,accounting started on the
 * first host over {@code mpirun --hostfile H -np 6} (Open MPI) and {@code mpiexec.hydra -f H -n 6}
 * (MPICH), which reach the other hosts through the cluster's ssh. Checked: profile.json says 3
 * hosts and puts each rank on its host, 2 per host, with its figures; java-counter counted on
 * every rank; every rank started its own JVM on its own host (each JVM writes a log file named
 * after the host name and pid it sees, -Xlog's %hn and %p, given through JPMPI_JAVA_OPTIONS);
 * the accounting record counts 3 nodes and 6 ranks. Skipped, with one line, where this machine
 * cannot make such hosts.
 */
class ClusterIT {
    static final int HOSTS = 3;
    static final int PER_HOST = 2;
    static final int RANKS = HOSTS * PER_HOST;
    static final int K = 3;
    static final Pattern JVM_LOG = Pattern.compile("jvm-(.+)-([0-9]+)\\.log");

    private static Cluster cluster;

    /**
     * The cluster, brought up by the first test that asks: where it cannot be made, each test is
     * skipped with the reason (an assumption in a @BeforeAll would skip the class without a count).
     */
    static Cluster cluster() {
        if (cluster == null) {
            cluster = Cluster.up(HOSTS);
        }
        return cluster;
    }

    @AfterAll
    static void down() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** What a job run through bin/jpmpi on the cluster leaves: its output directory, JVM logs, records. */
    record Job(Result result, Path output, Path jvms, Path accounting) {
        static Job start(String host, List<String> wrapper, List<String> launcher, Impl impl, Map<String, String> env)
                throws IOException {
            Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "cluster-" + impl.id + "-");
            Job job = new Job(null, dir.resolve("profile"), Files.createDirectory(dir.resolve("jvms")),
                    dir.resolve("accounting.jsonl"));
            List<String> command = new ArrayList<>(wrapper);
            command.addAll(List.of(Jpmpi.HOME.resolve("bin/jpmpi").toString(), "run", "--tools",
                    "profile,java-counter,accounting", "--output", job.output.toString(), "--"));
            command.addAll(launcher);
            command.addAll(List.of(impl.file("pingpong"), Integer.toString(K)));
            Map<String, String> all = new TreeMap<>(env);
            all.put("JPMPI_JAVA_OPTIONS", "-Xlog:os=warning:file=" + job.jvms + "/jvm-%hn-%p.log");
            all.put("JPMPI_ACCOUNTING_FILE", job.accounting.toString());
            Result r = cluster().run(host, all, command);
            return new Job(r, job.output, job.jvms, job.accounting);
        }

        /** Every check of a 3-host, 6-rank pingpong job; the accounting record, for more. */
        AccountingRecord checkThreeHosts() throws Exception {
            result.assertSuccess();
            Profile p = ProfileJson.read(output.resolve("profile.json"));
            assertEquals(HOSTS, p.job().hosts(), result::describe);
            assertEquals(RANKS, p.rankRows().size(), result::describe);
            // Each host its 2 ranks, with figures of their own; rank 0 where the launcher ran.
            Map<String, List<Profile.RankRow>> byHost = p.rankRows().stream()
                    .collect(Collectors.groupingBy(Profile.RankRow::host, TreeMap::new, Collectors.toList()));
            assertEquals(Set.copyOf(cluster().hosts()), byHost.keySet(), () -> p.rankRows() + "\n" + result.describe());
            byHost.forEach((host, rows) -> {
                assertEquals(PER_HOST, rows.size(), () -> host + ": " + rows);
                assertTrue(rows.stream().allMatch(row -> row.calls() > 0 && row.appSeconds() > 0), () -> host + ": " + rows);
            });
            assertEquals(cluster().hosts().get(0), p.rankRows().get(0).host(), p.rankRows()::toString);
            // java-counter counted in every rank, exactly what pingpong does there.
            for (int rank = 0; rank < RANKS; rank++) {
                Map<String, Long> c = result.counts("java-counter", rank);
                long sends = rank < 2 ? K : 0;
                assertEquals(List.of(sends, sends, 1L, 1L), Stream.of("MPI_Send", "MPI_Recv", "MPI_Barrier", "MPI_Allreduce")
                        .map(c::get).toList(), "rank " + rank + "\n" + result.describe());
            }
            // One JVM per rank process, started on the rank's host: (host, pid) as the JVMs saw them.
            Set<String> jvmsSeen = new TreeSet<>();
            try (Stream<Path> logs = Files.list(jvms)) {
                for (Path log : logs.toList()) {
                    Matcher m = JVM_LOG.matcher(log.getFileName().toString());
                    assertTrue(m.matches(), log::toString);
                    jvmsSeen.add(m.group(1) + " " + m.group(2));
                }
            }
            Set<String> ranksSeen = p.rankRows().stream().map(row -> row.host() + " " + row.pid())
                    .collect(Collectors.toCollection(TreeSet::new));
            assertEquals(ranksSeen, jvmsSeen, result::describe);
            // The accounting record: one line, 3 nodes, 6 ranks.
            List<String> lines = Files.readAllLines(accounting);
            assertEquals(1, lines.size(), () -> lines + "\n" + result.describe());
            AccountingRecord a = AccountingRecord.parse(lines.get(0));
            assertEquals(HOSTS, a.nodes(), lines::toString);
            assertEquals(RANKS, a.ranks(), lines::toString);
            return a;
        }
    }

    /** bin/jpmpi run on the first host over mpirun --hostfile (Open MPI) or mpiexec.hydra -f (MPICH). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void profileJavaCounterAndAccountingOnThreeHosts(Impl impl) throws Exception {
        String hostfile = cluster().hostfile(impl).toString();
        String n = Integer.toString(RANKS);
        List<String> launcher = impl == Impl.OPENMPI ? List.of("mpirun", "--hostfile", hostfile, "-np", n)
                : List.of("mpiexec.hydra", "-f", hostfile, "-n", n);
        Job.start(cluster().hosts().get(0), List.of(), launcher, impl, Map.of()).checkThreeHosts();
    }
}
