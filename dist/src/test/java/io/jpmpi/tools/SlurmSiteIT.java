package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jpmpi.platform.InstallLayout;
import io.jpmpi.profilers.accounting.AccountingRecord;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.testsupport.Cluster;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Sites and Slurm on the test cluster (scripts/cluster.sh, Slurm on 3 hosts of 2 CPUs): the
 * installation's TaskProlog turns the accounting tool on for every srun task of every sbatch job
 * with no jpmpi in the job script, and a job that opts out (JPMPI_SITE_TOOLS=off) leaves no
 * record; a profiled job that runs past its time limit leaves every rank's dump (Slurm's SIGTERM),
 * which jpmpi report merges into a partial profile. Skipped, with one line, where this machine
 * cannot make such hosts or has no Slurm.
 */
class SlurmSiteIT {
    /** At most this long (seconds) for the jobs submitted together to end. */
    static final int WAIT_S = 300;
    static final Set<String> ENDED = Set.of("COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL",
            "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE");

    private static Cluster slurm;

    static Cluster slurm() {
        if (slurm == null) {
            slurm = Cluster.upWithSlurm(ClusterIT.HOSTS);
        }
        return slurm;
    }

    @AfterAll
    static void down() {
        if (slurm != null) {
            slurm.close();
        }
    }

    /** sbatch on the first host with `env` added; the job id. */
    static String sbatch(Map<String, String> env, List<String> args) {
        List<String> command = new ArrayList<>(List.of("sbatch", "--parsable"));
        command.addAll(args);
        Result r = slurm().run(slurm().hosts().get(0), env, command);
        r.assertSuccess();
        String id = r.stdout().strip().split(";")[0];
        assertTrue(id.matches("[0-9]+"), r::describe);
        return id;
    }

    /** Waits (at most WAIT_S) until every job has ended; their states and node lists, by id. */
    static Map<String, String> awaitEnd(List<String> ids) throws InterruptedException {
        Map<String, String> ended = new TreeMap<>();
        String last = "";
        for (int i = 0; i < WAIT_S && ended.size() < ids.size(); i++) {
            Result q = slurm().run(slurm().hosts().get(0), Map.of(),
                    List.of("squeue", "-h", "-t", "all", "-j", String.join(",", ids), "-o", "%i %T %N"));
            q.assertSuccess();
            last = q.stdout();
            for (String line : q.out()) {
                String[] f = line.strip().split(" ");
                if (f.length == 3 && ENDED.contains(f[1])) {
                    ended.put(f[0], f[1] + " " + f[2]);
                }
            }
            if (ended.size() < ids.size()) {
                Thread.sleep(1000);
            }
        }
        if (ended.size() < ids.size()) {
            slurm().run(slurm().hosts().get(0), Map.of(), List.of("scancel", String.join(" ", ids)));
            fail("jobs " + ids + " not ended after " + WAIT_S + " s: " + last);
        }
        return ended;
    }

    /** A job's directory under the test runs, readable by the cluster's hosts (one file system). */
    static Path jobDir(String prefix) throws Exception {
        return Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), prefix);
    }

    /**
     * The site's TaskProlog (the installation's share/jpmpi/site/jpmpi-task-prolog, through a
     * two-line wrapper naming the accounting file, as a site writes it) in the cluster's
     * slurm.conf; three jobs without jpmpi in them, MPICH under srun --mpi=pmi2 on 3 and on 2
     * nodes, Open MPI under srun --mpi=pmix, each leave one record with their Slurm job id, nodes
     * and ranks; a fourth that sets JPMPI_SITE_TOOLS=off leaves none.
     */
    @Test
    void taskPrologAccountsEveryJobButTheOptedOut() throws Exception {
        Path slurmDir = slurm().slurmConf().getParent();
        String conf = Files.readString(slurm().slurmConf());
        assertTrue(conf.contains("TaskProlog=" + slurmDir.resolve("task-prolog")),
                "the test cluster's Slurm predates its TaskProlog hook: scripts/cluster.sh slurm-down, then run again");
        Path dir = jobDir("site-");
        Path accounting = dir.resolve("accounting.jsonl");
        Path site = slurmDir.resolve("task-prolog.site");
        Path prolog = Jpmpi.HOME.resolve(InstallLayout.SITE_TASK_PROLOG);
        assertTrue(Files.isExecutable(prolog), prolog::toString);
        Files.writeString(site, "#!/bin/sh\nJPMPI_SITE_ACCOUNTING_FILE=" + accounting + " exec " + prolog + "\n");
        Files.setPosixFilePermissions(site, PosixFilePermissions.fromString("rwxr-xr-x"));
        try {
            // id -> {nodes, ranks}; the opted-out job apart.
            Map<String, int[]> jobs = new LinkedHashMap<>();
            String mpich = Impl.MPICH.file("pingpong");
            String openmpi = Impl.OPENMPI.file("pingpong");
            jobs.put(sbatch(Map.of(), List.of("-N3", "-n6", "-o", dir + "/mpich3-%j.out", "--wrap",
                    "srun --mpi=pmi2 " + mpich + " 2")), new int[] {3, 6});
            jobs.put(sbatch(Map.of(), List.of("-N3", "-n6", "-o", dir + "/openmpi3-%j.out", "--wrap",
                    "srun --mpi=pmix " + openmpi + " 2")), new int[] {3, 6});
            jobs.put(sbatch(Map.of(), List.of("-N2", "-n4", "-o", dir + "/mpich2-%j.out", "--wrap",
                    "srun --mpi=pmi2 " + mpich + " 2")), new int[] {2, 4});
            String optedOut = sbatch(Map.of("JPMPI_SITE_TOOLS", "off"), List.of("-N3", "-n6", "-o",
                    dir + "/off-%j.out", "--wrap", "srun --mpi=pmi2 " + mpich + " 2"));
            List<String> ids = new ArrayList<>(jobs.keySet());
            ids.add(optedOut);
            Map<String, String> ended = awaitEnd(ids);
            String outputs = outputs(dir);
            for (String id : ids) {
                assertTrue(ended.get(id).startsWith("COMPLETED "), () -> id + ": " + ended + "\n" + outputs);
            }
            List<String> lines = Files.exists(accounting) ? Files.readAllLines(accounting) : List.of();
            Map<String, AccountingRecord> byJob = new TreeMap<>();
            for (String line : lines) {
                AccountingRecord a = AccountingRecord.parse(line);
                assertFalse(byJob.containsKey(a.job()), () -> "two records of job " + a.job() + ": " + lines);
                byJob.put(a.job(), a);
            }
            assertEquals(new TreeSet<>(jobs.keySet()), byJob.keySet(),
                    () -> "opted out: " + optedOut + "\n" + lines + "\n" + ended + "\n" + outputs);
            jobs.forEach((id, shape) -> {
                AccountingRecord a = byJob.get(id);
                assertEquals(shape[0], a.nodes(), () -> id + ": " + a);
                assertEquals(shape[1], a.ranks(), () -> id + ": " + a);
                String nodes = ended.get(id).split(" ")[1];
                assertEquals(shape[0] == 3 ? "jpn[1-3]" : "jpn[1-2]", nodes, () -> id + ": " + ended);
            });
        } finally {
            Files.deleteIfExists(site);
        }
    }

    /**
     * A profiled job (bin/jpmpi run --tools profile -- srun, MPICH, 6 ranks on 3 hosts) that would
     * run past its one-minute time limit (hold 600), submitted with {@code sbatch --signal=TERM@10}:
     * Slurm sends the job's steps SIGTERM before the limit (20 to 50 s after the start: slurmctld
     * looks every 30 s and sends it when the time left is at most 10 + 30 s), every rank writes its
     * dump and ends, and jpmpi report makes a partial profile of all 6 ranks, each ended by SIGTERM.
     * (The time limit alone also sends SIGTERM, but to the batch script's srun as well, which then
     * SIGKILLs the tasks: a rank's dump may be cut short. PROFILE.md, "Slurm's time limit".)
     */
    @Test
    void sbatchSignalTermBeforeTheTimeLimitLeavesAPartialProfile() throws Exception {
        Path dir = jobDir("signal-");
        Path output = dir.resolve("profile");
        String script = "exec " + Jpmpi.HOME.resolve("bin/jpmpi") + " run --tools profile --output " + output
                + " -- srun --mpi=pmi2 " + Impl.MPICH.file("hold") + " 600";
        String id = sbatch(Map.of(), List.of("-N3", "-n6", "--time=1", "--signal=TERM@10", "-o",
                dir + "/job-%j.out", "--wrap", script));
        Map<String, String> ended = awaitEnd(List.of(id));
        String outputs = outputs(dir);
        // Ended by the signal, before the limit: the batch script's status is jpmpi run's (srun's, non-zero).
        assertTrue(ended.get(id).startsWith("FAILED "), () -> ended + "\n" + outputs);
        for (int rank = 0; rank < ClusterIT.RANKS; rank++) {
            Path dump = output.resolve("ranks/rank-" + rank + ".bin");
            assertTrue(Files.isRegularFile(dump), () -> dump + " missing\n" + outputs);
        }
        Files.deleteIfExists(output.resolve("profile.json"));
        Result report = slurm().run(slurm().hosts().get(0), Map.of(),
                List.of(Jpmpi.HOME.resolve("bin/jpmpi").toString(), "report", "--no-html", "--quiet",
                        output.toString()));
        report.assertSuccess();
        Profile p = ProfileJson.read(output.resolve("profile.json"));
        assertTrue(p.partial(), p::toString);
        assertEquals(ClusterIT.RANKS, p.rankRows().size(), p::toString);
        assertEquals(id, p.job().id(), "the job id");
        List<String> expected = new ArrayList<>();
        for (int rank = 0; rank < ClusterIT.RANKS; rank++) {
            expected.add("rank " + rank + ": signal 15 (SIGTERM)");
        }
        assertEquals(expected, p.partialReasons(), p::toString);
    }

    /** The jobs' output files, for messages. */
    static String outputs(Path dir) throws Exception {
        StringBuilder b = new StringBuilder();
        try (var files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".out")).sorted().toList()) {
                b.append("--- ").append(f.getFileName()).append('\n').append(Files.readString(f));
            }
        }
        return b.toString();
    }
}
