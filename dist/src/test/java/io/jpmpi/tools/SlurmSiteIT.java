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
     * two-line wrapper naming the site's configuration, as a site writes it: tools = accounting and
     * where records go) in the cluster's slurm.conf; jobs submitted together with no jpmpi in them:
     * MPICH under srun --mpi=pmi2 on 3 and on 2 nodes, Open MPI under srun --mpi=pmix (a program that
     * prints what it sees of the preload and exits 5), Python with mpi4py (Open MPI, MPI loaded at run
     * time), a shell command and a Python script without MPI (exit 3); a user's own bin/jpmpi run
     * --tools profile job, and one with --tools accounting (jpmpi's process becomes srun), submitted
     * again when all have ended: that job starts from the plan the first kept (tools-entry/README.md,
     * "What `run` does", 9), without the launcher's JVM; and an MPICH job that sets
     * JPMPI_SITE_TOOLS=off. Each MPI job leaves one
     * record with its Slurm job id, nodes and ranks (the profiled one a complete profile too), the
     * opted-out and non-MPI ones none; every job's output and srun's exit status are those of the
     * programs, with no line of jpmpi's.
     */
    @Test
    void taskPrologAccountsEveryJobButTheOptedOut() throws Exception {
        Path slurmDir = slurm().slurmConf().getParent();
        String conf = Files.readString(slurm().slurmConf());
        assertTrue(conf.contains("TaskProlog=" + slurmDir.resolve("task-prolog")),
                "the test cluster's Slurm predates its TaskProlog hook: scripts/cluster.sh slurm-down, then run again");
        Path dir = jobDir("site-");
        Path accounting = dir.resolve("accounting.jsonl");
        Path siteConf = Files.writeString(dir.resolve("site.conf"), "tools = accounting\nset JPMPI_ACCOUNTING_FILE = "
                + accounting + "\n");
        Path site = slurmDir.resolve("task-prolog.site");
        Path prolog = Jpmpi.HOME.resolve(InstallLayout.SITE_TASK_PROLOG);
        assertTrue(Files.isExecutable(prolog), prolog::toString);
        Files.writeString(site, "#!/bin/sh\nJPMPI_SITE_CONFIG=" + siteConf + " exec " + prolog + "\n");
        Files.setPosixFilePermissions(site, PosixFilePermissions.fromString("rwxr-xr-x"));
        try {
            // id -> {nodes, ranks}; the jobs that leave no record apart.
            Map<String, int[]> jobs = new LinkedHashMap<>();
            String mpich = Impl.MPICH.file("pingpong");
            String openmpi = Impl.OPENMPI.file("preloadenv");
            String exit = "; echo srun-exit=$?";
            jobs.put(sbatch(Map.of(), List.of("-N3", "-n6", "-o", dir + "/mpich3-%j.out", "--wrap",
                    "srun --mpi=pmi2 " + mpich + " 2" + exit)), new int[] {3, 6});
            String openmpiJob = sbatch(Map.of(), List.of("-N3", "-n6", "-o", dir + "/openmpi3-%j.out", "--wrap",
                    "srun --mpi=pmix " + openmpi + " 5" + exit));
            jobs.put(openmpiJob, new int[] {3, 6});
            jobs.put(sbatch(Map.of(), List.of("-N2", "-n4", "-o", dir + "/mpich2-%j.out", "--wrap",
                    "srun --mpi=pmi2 " + mpich + " 2" + exit)), new int[] {2, 4});
            String python = sbatch(Map.of(), List.of("-N2", "-n2", "-o", dir + "/mpi4py-%j.out", "--wrap",
                    "srun --mpi=pmix " + PreloadIT.PYTHON + " " + PreloadIT.MPI4PY_SCRIPT + exit));
            jobs.put(python, new int[] {2, 2});
            Path output = dir.resolve("profile");
            String profiled = sbatch(Map.of(), List.of("-N3", "-n6", "-o", dir + "/profiled-%j.out", "--wrap",
                    Jpmpi.HOME.resolve("bin/jpmpi") + " run --tools profile --output " + output
                            + " -- srun --mpi=pmi2 " + mpich + " 2" + exit));
            jobs.put(profiled, new int[] {3, 6});
            // the user's own accounting job: jpmpi run becomes srun (InPlace), the site's level not added twice;
            // it keeps its plan, from which the same job submitted again starts, without the JVM (below)
            Map<String, String> plans = Map.of("XDG_CACHE_HOME", dir.resolve("cache").toString(),
                    "JAVA_TOOL_OPTIONS", "-Djpmpi.test.planned=1");
            List<String> accountedJob = List.of("-N3", "-n6", "-o", dir + "/accounted-%j.out", "--wrap",
                    Jpmpi.HOME.resolve("bin/jpmpi") + " run --tools accounting -- srun --mpi=pmi2 " + mpich + " 2" + exit);
            String accounted = sbatch(plans, accountedJob);
            jobs.put(accounted, new int[] {3, 6});
            List<String> noRecord = new ArrayList<>();
            String optedOut = sbatch(Map.of("JPMPI_SITE_TOOLS", "off"), List.of("-N3", "-n6", "-o",
                    dir + "/off-%j.out", "--wrap", "srun --mpi=pmi2 " + mpich + " 2" + exit));
            noRecord.add(optedOut);
            String shell = sbatch(Map.of(), List.of("-N3", "-n3", "-o", dir + "/shell-%j.out", "--wrap",
                    "srun /bin/sh -c 'echo shell task $SLURM_PROCID; exit 3'" + exit));
            noRecord.add(shell);
            String script = sbatch(Map.of(), List.of("-N1", "-n1", "-o", dir + "/python-%j.out", "--wrap",
                    "srun " + PreloadIT.PYTHON + " -c 'import sys; print(\"python without MPI\"); sys.exit(3)'" + exit));
            noRecord.add(script);
            List<String> ids = new ArrayList<>(jobs.keySet());
            ids.addAll(noRecord);
            Map<String, String> ended = new TreeMap<>(awaitEnd(ids));
            String again = sbatch(plans, accountedJob);
            jobs.put(again, new int[] {3, 6});
            ids.add(again);
            ended.putAll(awaitEnd(List.of(again)));
            String outputs = outputs(dir);
            for (String id : ids) {
                assertTrue(ended.get(id).startsWith("COMPLETED "), () -> id + ": " + ended + "\n" + outputs);
            }
            // What the programs printed and srun's status, as without jpmpi; nothing of jpmpi's.
            for (String id : ids) {
                String out = output(dir, id);
                String expected = id.equals(openmpiJob) || id.equals(shell) || id.equals(script) ? "5" : "0";
                expected = id.equals(shell) || id.equals(script) ? "3" : expected;
                assertTrue(out.contains("srun-exit=" + expected + "\n"), () -> id + ":\n" + out);
                assertFalse(out.contains("jpmpi:") && !id.equals(profiled), () -> id + ":\n" + out);
            }
            String first = output(dir, accounted);
            String second = output(dir, again);
            assertTrue(first.contains(PlansIT.PLANNED), first);
            assertFalse(second.contains(PlansIT.PLANNED), () -> "the second job from the first's plan, with its own"
                    + " SLURM_JOB_ID:\n" + second);
            assertEquals(3, output(dir, shell).lines().filter(l -> l.startsWith("shell task ")).count(), outputs);
            assertTrue(output(dir, script).contains("python without MPI\n"), outputs);
            assertEquals(2, output(dir, python).lines().filter(l -> l.matches("mpi4py rank [01]: ok")).count(), outputs);
            String openmpiOut = output(dir, openmpiJob);
            Path dispatcher = Jpmpi.HOME.resolve("lib/openmpi/libmpiprofilesupport.so");
            for (int rank = 0; rank < ClusterIT.RANKS; rank++) {
                String head = "preloadenv rank " + rank + ": ";
                assertTrue(openmpiOut.contains(head + "LD_PRELOAD=" + Jpmpi.HOME.resolve(InstallLayout.PRELOAD)
                        + " saved=unset\n"), openmpiOut);
                assertEquals(1, openmpiOut.lines().filter(l -> l.startsWith(head + "dispatcher ")).count(), openmpiOut);
                assertTrue(openmpiOut.contains(head + "dispatcher " + dispatcher + "\n"), openmpiOut);
            }
            List<String> lines = Files.exists(accounting) ? Files.readAllLines(accounting) : List.of();
            Map<String, AccountingRecord> byJob = new TreeMap<>();
            for (String line : lines) {
                AccountingRecord a = AccountingRecord.parse(line);
                assertFalse(byJob.containsKey(a.job()), () -> "two records of job " + a.job() + ": " + lines);
                byJob.put(a.job(), a);
            }
            assertEquals(new TreeSet<>(jobs.keySet()), byJob.keySet(),
                    () -> "without a record: " + noRecord + "\n" + lines + "\n" + ended + "\n" + outputs);
            jobs.forEach((id, shape) -> {
                AccountingRecord a = byJob.get(id);
                assertEquals(shape[0], a.nodes(), () -> id + ": " + a);
                assertEquals(shape[1], a.ranks(), () -> id + ": " + a);
                String nodes = ended.get(id).split(" ")[1];
                assertEquals(shape[0] == 3 ? "jpn[1-3]" : "jpn[1-2]", nodes, () -> id + ": " + ended);
            });
            assertTrue(byJob.get(python).exe().contains("python3"), byJob.get(python)::toString);
            assertFalse(byJob.get(profiled).sampled(), "counted: the user's profile recorder above the site's level");
            Profile p = ProfileJson.read(output.resolve("profile.json"));
            assertFalse(p.partial(), p::toString);
            assertEquals(ClusterIT.RANKS, p.rankRows().size(), p::toString);
            assertEquals(profiled, p.job().id(), "the job id");
        } finally {
            Files.deleteIfExists(site);
        }
    }

    /**
     * Outputs of their own for every step and array task, with the site's TaskProlog on: a job
     * (2 nodes, 4 tasks) whose script starts two {@code bin/jpmpi run --tools profile -- srun
     * --exact -n2} steps at once, in the same directory, with no --output; and an array job of two
     * tasks, each {@code jpmpi run --tools profile -- srun}. Each jpmpi run makes its own directory
     * named after the job (array: Slurm's {@code <array job>_<task>}) with a complete profile.json of
     * its 2 ranks; the site's records name the two steps of the first job apart (steps 0 and 1) and
     * each array task its own job.
     */
    @Test
    void stepsAndArrayTasksHaveOutputsOfTheirOwn() throws Exception {
        Path dir = jobDir("steps-");
        Path accounting = dir.resolve("accounting.jsonl");
        Path siteConf = Files.writeString(dir.resolve("site.conf"), "tools = accounting\nset JPMPI_ACCOUNTING_FILE = "
                + accounting + "\n");
        Path site = slurm().slurmConf().getParent().resolve("task-prolog.site");
        Files.writeString(site, "#!/bin/sh\nJPMPI_SITE_CONFIG=" + siteConf + " exec "
                + Jpmpi.HOME.resolve(InstallLayout.SITE_TASK_PROLOG) + "\n");
        Files.setPosixFilePermissions(site, PosixFilePermissions.fromString("rwxr-xr-x"));
        try {
            String run = Jpmpi.HOME.resolve("bin/jpmpi") + " run --tools profile -- srun --mpi=pmi2 ";
            String pingpong = Impl.MPICH.file("pingpong") + " 2";
            Path steps = Files.createDirectories(dir.resolve("steps"));
            String two = sbatch(Map.of(), List.of("-N2", "-n4", "-D", steps.toString(), "-o", dir + "/steps-%j.out",
                    "--wrap", run + "--exact -N1 -n2 " + pingpong + " & " + run + "--exact -N1 -n2 " + pingpong
                            + " & wait"));
            Path arrays = Files.createDirectories(dir.resolve("array"));
            String array = sbatch(Map.of(), List.of("--array=1-2", "-N1", "-n2", "-D", arrays.toString(), "-o",
                    dir + "/array-%A_%a.out", "--wrap", run + "-n2 " + pingpong));
            Map<String, String> ended = awaitEnd(List.of(two, array + "_1", array + "_2"));
            String outputs = outputs(dir);
            ended.forEach((id, state) -> assertTrue(state.startsWith("COMPLETED "), () -> ended + "\n" + outputs));

            List<Path> stepDirs = profiles(steps);
            assertEquals(2, stepDirs.size(), () -> stepDirs + "\n" + outputs);
            for (Path d : stepDirs) {
                assertTrue(d.getFileName().toString().startsWith("jpmpi-" + two + "-"), d::toString);
            }
            List<Path> taskDirs = profiles(arrays);
            assertEquals(List.of("jpmpi-" + array + "_1-", "jpmpi-" + array + "_2-"),
                    taskDirs.stream().map(d -> d.getFileName().toString().replaceAll("[0-9]{8}-[0-9]{6}.*$", "")).toList(),
                    () -> taskDirs + "\n" + outputs);
            List<String> stepIds = new ArrayList<>();
            for (Path d : concat(stepDirs, taskDirs)) {
                Profile p = ProfileJson.read(d.resolve("profile.json"));
                assertFalse(p.partial(), () -> d + ": " + p);
                assertEquals(2, p.rankRows().size(), () -> d + ": " + p);
                stepIds.add(p.job().id() + "." + p.job().step());
            }
            // profile.json names its job and step as the accounting record does (an array task's job
            // is its own job id, each task's srun its step 0)
            assertEquals(List.of(two + ".0", two + ".1"), stepIds.subList(0, 2).stream().sorted().toList(),
                    stepIds::toString);
            assertEquals(2, stepIds.subList(2, 4).stream().filter(s -> s.endsWith(".0") && !s.startsWith(two + "."))
                    .distinct().count(), stepIds::toString);

            List<AccountingRecord> records = new ArrayList<>();
            for (String line : Files.readAllLines(accounting)) {
                records.add(AccountingRecord.parse(line));
            }
            assertEquals(List.of("0", "1"), records.stream().filter(r -> r.job().equals(two)).map(AccountingRecord::step)
                    .sorted().toList(), records::toString);
            assertEquals(4, records.size(), records::toString);
            assertEquals(2, records.stream().filter(r -> !r.job().equals(two)).map(AccountingRecord::job).distinct()
                    .count(), records::toString);
        } finally {
            Files.deleteIfExists(site);
        }
    }

    /** The directories with a profile.json in {@code dir}, by name. */
    static List<Path> profiles(Path dir) throws Exception {
        try (var files = Files.list(dir)) {
            return files.filter(d -> Files.isRegularFile(d.resolve("profile.json"))).sorted().toList();
        }
    }

    static List<Path> concat(List<Path> a, List<Path> b) {
        List<Path> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /**
     * Stopping jpmpi run under srun (bin/jpmpi run --tools profile -- srun --mpi=pmi2 hold 600, MPICH,
     * 6 ranks on 3 hosts, the batch script {@code exec}s it): by {@code sbatch --signal=B:TERM@10}
     * before a one-minute time limit, and by {@code scancel --batch --signal=TERM} once every rank is
     * up. jpmpi passes srun one SIGINT (srun runs with --disable-status), srun passes it to the tasks,
     * every rank writes its dump and ends, and jpmpi merges the partial profile of all 6 ranks, each
     * ended by SIGINT. A third job passes its own {@code --export=NONE,...} to srun, which jpmpi run
     * joins with its variables: a complete profile.
     */
    @Test
    void stoppingJpmpiRunUnderSrunLeavesEveryRanksFigures() throws Exception {
        Path dir = jobDir("stop-");
        String run = "exec " + Jpmpi.HOME.resolve("bin/jpmpi") + " run --tools profile --output ";
        String hold = " -- srun --mpi=pmi2 " + Impl.MPICH.file("hold") + " 600";
        String limit = sbatch(Map.of(), List.of("-N3", "-n6", "--time=1", "--signal=B:TERM@10", "-o",
                dir + "/limit-%j.out", "--wrap", run + dir.resolve("limit") + hold));
        String told = sbatch(Map.of(), List.of("-N3", "-n6", "-o", dir + "/told-%j.out", "--wrap",
                run + dir.resolve("told") + hold));
        String export = sbatch(Map.of(), List.of("-N3", "-n6", "-o", dir + "/export-%j.out", "--wrap",
                run + dir.resolve("export") + " -- srun --export=NONE,HOME --mpi=pmi2 " + Impl.MPICH.file("pingpong")
                        + " 2"));
        // scancel once the 6 ranks of `told` are up
        for (int i = 0; i < WAIT_S && ready(dir, told) < ClusterIT.RANKS; i++) {
            Thread.sleep(1000);
        }
        slurm().run(slurm().hosts().get(0), Map.of(), List.of("scancel", "--batch", "--signal=TERM", told))
                .assertSuccess();
        Map<String, String> ended = awaitEnd(List.of(limit, told, export));
        String outputs = outputs(dir);
        for (String name : List.of("limit", "told")) {
            Profile p = ProfileJson.read(dir.resolve(name).resolve("profile.json"));
            assertTrue(p.partial(), () -> name + ": " + p + "\n" + outputs);
            assertEquals(ClusterIT.RANKS, p.rankRows().size(), () -> name + "\n" + outputs);
            List<String> expected = new ArrayList<>();
            for (int rank = 0; rank < ClusterIT.RANKS; rank++) {
                expected.add("rank " + rank + ": signal 2 (SIGINT)");
            }
            assertEquals(expected, p.partialReasons(), () -> name + "\n" + outputs);
        }
        assertTrue(ended.get(export).startsWith("COMPLETED "), () -> ended + "\n" + outputs);
        Profile p = ProfileJson.read(dir.resolve("export").resolve("profile.json"));
        assertFalse(p.partial(), outputs);
        assertEquals(ClusterIT.RANKS, p.rankRows().size(), outputs);
    }

    /**
     * The by-hand srun forms (no jpmpi run) of native-stubs/README.md, MPICH on 3 hosts: the entry
     * list in srun's environment and only the dispatcher in --export gives the profile; the list
     * inside --export, which srun cuts at its comma, leaves the ranks only "v", which rank 0 says in
     * one line (and the job runs as without tools).
     */
    @Test
    void bySrunByHandTheListSurvivesOrTheCutIsSaid() throws Exception {
        Path dir = jobDir("byhand-");
        String dispatcher = Jpmpi.HOME.resolve("lib/mpich/libmpiprofilesupport.so").toString();
        String recorder = Jpmpi.HOME.resolve("lib/mpich/libjpmpi-profile.so").toString();
        String pingpong = Impl.MPICH.file("pingpong") + " 2";
        Path output = dir.resolve("profile");
        String good = sbatch(Map.of(), List.of("-N3", "-n6", "-o", dir + "/good-%j.out", "--wrap",
                "export JPMPI_TOOLS_ENTRY=" + recorder + " JPMPI_OUTPUT_DIR=" + output + "; srun --mpi=pmi2 --export=ALL,"
                        + "LD_PRELOAD=" + dispatcher + " " + pingpong));
        String cut = sbatch(Map.of(), List.of("-N3", "-n6", "-o", dir + "/cut-%j.out", "--wrap",
                "srun --mpi=pmi2 --export=ALL,LD_PRELOAD=" + dispatcher + ",JPMPI_TOOLS_ENTRY=v," + recorder + " "
                        + pingpong));
        Map<String, String> ended = awaitEnd(List.of(good, cut));
        String outputs = outputs(dir);
        ended.forEach((id, state) -> assertTrue(state.startsWith("COMPLETED "), () -> ended + "\n" + outputs));
        // the recorder's figures of every rank: profile.json where the ranks write it, else their dumps
        // (jpmpi report merges them)
        if (Files.exists(output.resolve("profile.json"))) {
            assertEquals(ClusterIT.RANKS, ProfileJson.read(output.resolve("profile.json")).rankRows().size(), outputs);
        } else {
            for (int rank = 0; rank < ClusterIT.RANKS; rank++) {
                assertTrue(Files.isRegularFile(output.resolve("ranks/rank-" + rank + ".bin")), output + "\n" + outputs);
            }
        }
        String said = "jpmpi: JPMPI_TOOLS_ENTRY='v' names no tool, only keywords: cut at a comma by srun --export?";
        assertEquals(1, output(dir, cut).lines().filter(l -> l.startsWith(said)).count(), outputs);
        assertTrue(output(dir, cut).contains("pingpong result: ranks=6"), outputs);
    }

    /** How many ranks of hold job {@code id} have said they are ready (0 before its output is there). */
    static long ready(Path dir, String id) throws Exception {
        try (var files = Files.list(dir)) {
            if (files.noneMatch(p -> p.getFileName().toString().endsWith("-" + id + ".out"))) {
                return 0;
            }
        }
        return output(dir, id).lines().filter(l -> l.contains(" ready pid ")).count();
    }

    /** The output file of job {@code id} in {@code dir}. */
    static String output(Path dir, String id) throws Exception {
        try (var files = Files.list(dir)) {
            Path f = files.filter(p -> p.getFileName().toString().endsWith("-" + id + ".out")).findFirst().orElseThrow();
            return Files.readString(f);
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
