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
 * first host, each MPI with each launcher: {@code mpirun --hostfile H -np 6} (Open MPI) and
 * {@code mpiexec.hydra -f H -n 6} (MPICH), which reach the other hosts through the cluster's ssh;
 * under Slurm (slurmctld, a slurmd inside each host), {@code srun -N3 -n6} and {@code salloc -N3
 * -n6} around bin/jpmpi run with the MPI's own launcher. Checked: profile.json says 3 hosts and
 * puts each rank on its host, 2 per host, with its figures; java-counter counted on every rank;
 * every rank started its own JVM on its own host (each JVM writes a log file named after the host
 * name and pid it sees, -Xlog's %hn and %p, given through JPMPI_JAVA_OPTIONS); the accounting
 * record counts 3 nodes and 6 ranks; under Slurm, the job id of both is SLURM_JOB_ID. Skipped, with
 * one line, where this machine cannot make such hosts or has no Slurm.
 */
class ClusterIT {
    static final int HOSTS = 3;
    static final int PER_HOST = 2;
    static final int RANKS = HOSTS * PER_HOST;
    static final int K = 3;
    static final Pattern JVM_LOG = Pattern.compile("jvm-(.+)-([0-9]+)\\.log");

    private static Cluster cluster;
    private static Cluster slurm;

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

    /** The cluster with Slurm's daemons on it, the same way. */
    static Cluster slurm() {
        if (slurm == null) {
            slurm = Cluster.upWithSlurm(HOSTS);
        }
        return slurm;
    }

    @AfterAll
    static void down() {
        // Slurm first: whichever of the two brought the hosts up takes them down.
        for (Cluster c : new Cluster[] {slurm, cluster}) {
            if (c != null) {
                c.close();
            }
        }
    }

    /**
     * A job run through bin/jpmpi on the cluster's first host, and what it left: its output
     * directory, the JVMs' logs, the accounting records.
     */
    record Job(Cluster cluster, Result result, Path output, Path jvms, Path accounting) {
        /** {@code WRAPPER... bin/jpmpi run --tools ... -- LAUNCHER... pingpong K} on the first host. */
        static Job start(Cluster cluster, List<String> wrapper, List<String> launcher, Impl impl) throws IOException {
            return start(cluster, wrapper, launcher, impl, null);
        }

        /** The same with the profile written to `output` (null: beside the job's other files). */
        static Job start(Cluster cluster, List<String> wrapper, List<String> launcher, Impl impl, Path output)
                throws IOException {
            Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "cluster-" + impl.id + "-");
            Job job = new Job(cluster, null, output != null ? output : dir.resolve("profile"),
                    Files.createDirectory(dir.resolve("jvms")), dir.resolve("accounting.jsonl"));
            List<String> command = new ArrayList<>(wrapper);
            command.addAll(List.of(Jpmpi.HOME.resolve("bin/jpmpi").toString(), "run", "--tools",
                    "profile,java-counter,accounting", "--output", job.output.toString(), "--"));
            command.addAll(launcher);
            command.addAll(List.of(impl.file("pingpong"), Integer.toString(K)));
            Map<String, String> env = new TreeMap<>();
            env.put("JPMPI_JAVA_OPTIONS", "-Xlog:os=warning:file=" + job.jvms + "/jvm-%hn-%p.log");
            env.put("JPMPI_ACCOUNTING_FILE", job.accounting.toString());
            Result r = cluster.run(cluster.hosts().get(0), env, command);
            return new Job(cluster, r, job.output, job.jvms, job.accounting);
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
            assertEquals(Set.copyOf(cluster.hosts()), byHost.keySet(), () -> p.rankRows() + "\n" + result.describe());
            byHost.forEach((host, rows) -> {
                assertEquals(PER_HOST, rows.size(), () -> host + ": " + rows);
                assertTrue(rows.stream().allMatch(row -> row.calls() > 0 && row.appSeconds() > 0),
                        () -> host + ": " + rows);
            });
            assertEquals(cluster.hosts().get(0), p.rankRows().get(0).host(), p.rankRows()::toString);
            // The report (rendered by rank 0 in the job): the hosts, and a row per host with its 2 ranks.
            String report = Files.readString(output.resolve("report.txt"));
            assertTrue(report.contains("\nPer host (" + HOSTS + " hosts; "), report);
            for (String host : cluster.hosts()) {
                assertTrue(report.lines().anyMatch(l -> l.matches(Pattern.quote(host) + " +" + PER_HOST + " +[0-9]+ .*")),
                        () -> host + "\n" + report);
            }
            // java-counter counted in every rank, exactly what pingpong does there.
            for (int rank = 0; rank < RANKS; rank++) {
                Map<String, Long> c = result.counts("java-counter", rank);
                long sends = rank < 2 ? K : 0;
                List<Long> counted = Stream.of("MPI_Send", "MPI_Recv", "MPI_Barrier", "MPI_Allreduce").map(c::get)
                        .toList();
                assertEquals(List.of(sends, sends, 1L, 1L), counted, "rank " + rank + "\n" + result.describe());
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

    /** The MPI's own launcher over the cluster's hostfile: mpirun --hostfile H -np 6, mpiexec.hydra -f H -n 6. */
    static List<String> hostfileLauncher(Cluster c, Impl impl) {
        String hostfile = c.hostfile(impl).toString();
        String n = Integer.toString(RANKS);
        return impl == Impl.OPENMPI ? List.of("mpirun", "--hostfile", hostfile, "-np", n)
                : List.of("mpiexec.hydra", "-f", hostfile, "-n", n);
    }

    /** bin/jpmpi run on the first host over mpirun --hostfile (Open MPI) or mpiexec.hydra -f (MPICH). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void profileJavaCounterAndAccountingOnThreeHosts(Impl impl) throws Exception {
        List<String> launcher = hostfileLauncher(cluster(), impl);
        Job.start(cluster(), List.of(), launcher, impl).checkThreeHosts();
    }

    /**
     * mpit and hwc on every host: bin/jpmpi run --tools profile,mpit,hwc over mpirun --hostfile or
     * mpiexec.hydra -f on the 3 hosts; mpit.json and hwc.json hold every rank (2 on each host, as
     * profile.json places them), and hwc's summary counts 6 ranks (software events where the machine
     * has no usable PMU, as here).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void mpitAndHwcOnEveryHost(Impl impl) throws Exception {
        Cluster c = cluster();
        List<String> launcher = hostfileLauncher(c, impl);
        Path out = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "cluster-tools-" + impl.id + "-")
                .resolve("out");
        List<String> command = new ArrayList<>(List.of(Jpmpi.HOME.resolve("bin/jpmpi").toString(), "run", "--tools",
                "profile,mpit,hwc", "--output", out.toString(), "--"));
        command.addAll(launcher);
        command.addAll(List.of(impl.file("pingpong"), Integer.toString(K)));
        Result r = c.run(c.hosts().get(0), Map.of(), command).assertSuccess();
        Profile p = ProfileJson.read(out.resolve("profile.json"));
        assertEquals(Set.copyOf(c.hosts()), p.rankRows().stream().map(Profile.RankRow::host).collect(Collectors.toSet()),
                r::describe);
        for (String file : List.of("mpit.json", "hwc.json")) {
            String json = Files.readString(out.resolve(file));
            Set<Integer> ranks = new TreeSet<>();
            Matcher m = Pattern.compile("\"rank\": *([0-9]+)").matcher(json);
            while (m.find()) {
                ranks.add(Integer.parseInt(m.group(1)));
            }
            assertEquals(Set.of(0, 1, 2, 3, 4, 5), ranks, () -> file + "\n" + r.describe());
        }
        assertTrue(r.stderr().contains("hwc: " + RANKS + " ranks"), r::describe);
    }

    /**
     * The output directory on a file system only the first host has (PROFILE.md, "Where it is
     * written"): the other hosts see an empty read-only file system there. profile.json is still
     * whole, every rank's row in it: only rank 0, on the first host, writes.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void onlyTheFirstHostCanWriteTheOutputDirectory(Impl impl) throws Exception {
        Cluster c = cluster();
        List<String> launcher = hostfileLauncher(c, impl);
        Path scratch = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "scratch-" + impl.id + "-");
        for (String host : c.hosts().subList(1, HOSTS)) {
            c.hide(host, scratch);
        }
        try {
            Job job = Job.start(c, List.of(), launcher, impl, scratch.resolve("profile"));
            job.checkThreeHosts();
            assertTrue(Files.isRegularFile(job.output().resolve("report.txt")), job.result()::describe);
        } finally {
            for (String host : c.hosts().subList(1, HOSTS)) {
                c.hide(host);
            }
        }
    }

    /**
     * Under Slurm, srun as the launcher: bin/jpmpi run -- srun -N3 -n6 --mpi=pmi2 (MPICH) or
     * --mpi=pmix (Open MPI 4.1 of Debian has no PMI-2) on the first host; the job id is Slurm's.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void srun(Impl impl) throws Exception {
        String name = jobName();
        List<String> srun = List.of("srun", "-N", Integer.toString(HOSTS), "-n", Integer.toString(RANKS),
                impl == Impl.MPICH ? "--mpi=pmi2" : "--mpi=pmix", "-J", name);
        checkSlurmJob(Job.start(slurm(), List.of(), srun, impl), name);
    }

    /**
     * Under Slurm, the MPI's own launcher in an allocation: salloc -N3 -n6 bin/jpmpi run -- mpirun
     * (Open MPI) or mpiexec.hydra (MPICH) on the first host, which take the hosts from the
     * allocation and start their daemons through Slurm; the job id is Slurm's.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void sallocAndTheMpisLauncher(Impl impl) throws Exception {
        String name = jobName();
        List<String> salloc = List.of("salloc", "-N", Integer.toString(HOSTS), "-n", Integer.toString(RANKS), "-J",
                name);
        Job job = Job.start(slurm(), salloc, List.of(impl == Impl.OPENMPI ? "mpirun" : "mpiexec.hydra"), impl);
        checkSlurmJob(job, name);
    }

    /**
     * Under Slurm with a preload of the user's own (a site's XALT or Darshan puts one in every user's
     * environment): srun's --export=ALL gives the tasks srun's own LD_PRELOAD over the list's, so jpmpi
     * unsets it for srun and the list's, the dispatcher then the user's library, reaches every task.
     * Before, every rank ran with the user's preload alone: no dispatcher, no tool, nothing said.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void srunWithAPreloadOfTheUsersOwn(Impl impl) throws Exception {
        Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "cluster-preload-" + impl.id + "-");
        Path records = dir.resolve("accounting.jsonl");
        String theirs = "/lib/x86_64-linux-gnu/libm.so.6";
        List<String> command = List.of(Jpmpi.HOME.resolve("bin/jpmpi").toString(), "run", "--tools",
                "accounting," + impl.file("libcount.so"), "--", "srun", "-N", Integer.toString(HOSTS), "-n",
                Integer.toString(RANKS), impl == Impl.MPICH ? "--mpi=pmi2" : "--mpi=pmix", impl.file("preloadenv"), "0");
        Result r = slurm().run(slurm().hosts().get(0), Map.of("LD_PRELOAD", theirs,
                "JPMPI_ACCOUNTING_FILE", records.toString()), command);
        r.assertSuccess();
        String out = String.join("\n", r.out());
        for (int rank = 0; rank < RANKS; rank++) {
            String preload = "preloadenv rank " + rank + ": LD_PRELOAD=" + Layout.current().dispatcher(impl.id) + ":" + theirs
                    + " ";
            assertTrue(out.contains(preload), () -> preload + "\n" + r.describe());
            assertTrue(out.contains("preloadenv rank " + rank + ": dispatcher "), r::describe);
            assertTrue(r.counts("count", rank).get("MPI_Init") == 1L, r::describe);
        }
        List<String> lines = Files.readAllLines(records);
        assertEquals(1, lines.size(), r::describe);
        assertEquals(RANKS, AccountingRecord.parse(lines.get(0)).ranks(), lines::toString);
    }

    static String jobName() {
        return "jpmpi-it-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    }

    /**
     * The 3-host checks, and the job id of profile.json and of the accounting record: SLURM_JOB_ID,
     * as slurmctld knows the job (by its unique name; it keeps ended jobs for MinJobAge).
     */
    static void checkSlurmJob(Job job, String name) throws Exception {
        AccountingRecord a = job.checkThreeHosts();
        Result q = slurm().run(slurm().hosts().get(0), Map.of(),
                List.of("squeue", "-h", "-t", "all", "-n", name, "-o", "%i %N"));
        q.assertSuccess();
        List<String> lines = q.out();
        assertEquals(1, lines.size(), q::describe);
        String[] f = lines.get(0).split(" ");
        assertEquals("jpn[1-3]", f[1], q::describe);
        assertTrue(f[0].matches("[0-9]+"), q::describe);
        assertEquals(f[0], a.job(), "the accounting record's job id");
        assertEquals(f[0], ProfileJson.read(job.output().resolve("profile.json")).job().id(), "profile.json's job id");
    }
}
