package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * bin/jpmpi run with the real launchers: the launcher's exit status comes back, the variables
 * reach the ranks and not the launcher's own processes, and SIGTERM to jpmpi takes the job down
 * (and still merges and reports the profile).
 */
class LauncherIT {
    static List<String> launcher(Impl impl, int ranks) {
        return impl == Impl.OPENMPI ? List.of("mpirun", "--oversubscribe", "-np", Integer.toString(ranks))
                : List.of("mpiexec.hydra", "-n", Integer.toString(ranks));
    }

    static List<String> run(List<String> options, Impl impl, int ranks, String program, String... args) {
        List<String> a = new ArrayList<>(List.of("run"));
        a.addAll(options);
        a.add("--");
        a.addAll(launcher(impl, ranks));
        a.add(impl.file(program));
        a.addAll(List.of(args));
        return a;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void theLaunchersExitStatusComesBack(Impl impl) {
        String tool = impl.file("libcount.so");
        Jpmpi.Result ok = Jpmpi.run(run(List.of("--tools", tool), impl, 2, "exitcode", "0"));
        assertEquals(0, ok.exit(), ok::describe);
        Jpmpi.Result three = Jpmpi.run(run(List.of("--tools", tool), impl, 2, "exitcode", "3"));
        assertEquals(3, three.exit(), three::describe);
        // The C tool was in both ranks: it prints its count line at MPI_Finalize.
        for (int rank = 0; rank < 2; rank++) {
            String line = "count count rank " + rank + ": MPI_Init=1 MPI_Send=0 MPI_Recv=0 MPI_Barrier=1";
            assertEquals(1, three.out().lines().filter(l -> l.startsWith(line)).count(), three::describe);
        }
    }

    /** A jar in a directory named with an emoji (a 4-byte UTF-8 character): a real run, counted on every rank. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void aJarUnderAnEmojiPathCounts(Impl impl) throws IOException {
        Path dir = Files.createDirectories(Jpmpi.RUNS.resolve("\uD83D\uDE80"));
        Path jar = Files.copy(Path.of(CommandLineTest.javaCounter()), dir.resolve("java-counter.jar"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Jpmpi.Result r = Jpmpi.run(run(List.of("--tools", jar.toString()), impl, 2, "pingpong", "3"));
        assertEquals(0, r.exit(), r::describe);
        for (int rank = 0; rank < 2; rank++) {
            String line = "count java-counter rank " + rank + ": MPI_Send=3 MPI_Recv=3 MPI_Barrier=1 MPI_Allreduce=1";
            assertEquals(1, (r.out() + r.err()).lines().filter(l -> l.startsWith(line)).count(), r::describe);
        }
    }

    static java.util.stream.Stream<Impl> openMpi() {
        return io.jpmpi.testsupport.MpiRun.implementations().filter(i -> i == Impl.OPENMPI);
    }

    /** A job that spawns another (Open MPI; MPICH cannot spawn here): the launcher reports both profiles. */
    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("openMpi")
    void spawnedJobsProfilesAreReportedToo(Impl impl) throws IOException {
        Path out = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "spawn-").resolve("prof");
        Jpmpi.Result r = Jpmpi.run(run(List.of("--tools", "profile", "--output", out.toString()), impl, 2, "spawn", "2"));
        assertEquals(0, r.exit(), r::describe);
        assertTrue(r.err().contains("profile: " + out.resolve("report.txt")), r::describe);
        List<String> spawned = r.err().lines().filter(l -> l.contains("profile of a spawned job: " + out.resolve("spawned-")))
                .toList();
        assertEquals(1, spawned.size(), r::describe);
        assertTrue(spawned.get(0).contains("report.txt"), r::describe);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void variablesReachTheRanksOnlyAndSigtermStopsTheJob(Impl impl) throws Exception {
        String jar = Layout.current().javaCounterJar().orElseThrow().toString();
        Held held = Held.start(impl, List.of("--tools", jar));
        Process p = held.process();
        List<String> lines = held.lines();
        try {
            List<Long> rankPids = lines.stream().filter(l -> l.contains(" ready pid "))
                    .map(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1))).toList();
            // a tool list with nothing to do after the job: the launcher has taken jpmpi's process (InPlace)
            Path launcherFile = onPath(launcher(impl, 2).get(0)).toRealPath();
            assertEquals(launcherFile, Path.of("/proc", Long.toString(p.pid()), "exe").toRealPath(),
                    "the process bin/jpmpi started in is the launcher's now");
            List<ProcessHandle> tree = new ArrayList<>(p.descendants().toList());
            tree.add(0, p.toHandle());
            String dispatcher = Layout.current().dispatcher(impl.id).toString();
            int launcherProcesses = 0;
            for (ProcessHandle h : tree) {
                Map<String, String> env = environ(h.pid());
                if (env == null) {
                    continue; // gone meanwhile
                }
                if (rankPids.contains(h.pid())) {
                    assertTrue(env.getOrDefault("LD_PRELOAD", "").contains(dispatcher), () -> "rank " + h.pid() + ": " + env);
                    assertFalse(env.getOrDefault("LD_PRELOAD", "").contains("libjsig.so"), () -> "rank " + h.pid() + ": " + env);
                    assertEquals(jar, env.get("JPMPI_TOOLS_ENTRY"), () -> "rank " + h.pid());
                    assertEquals(System.getProperty("java.home"), env.get("JAVA_HOME"));
                    // the dispatcher finds the Java runtime from its own place in the installation
                    assertFalse(env.containsKey("JPMPI_JAVA_CLASSPATH"), () -> "rank " + h.pid() + ": " + env);
                } else {
                    launcherProcesses++;
                    String cmd = h.info().command().orElse("?");
                    assertFalse(env.getOrDefault("LD_PRELOAD", "").contains(dispatcher), () -> cmd + " " + env);
                    assertFalse(env.containsKey("JPMPI_TOOLS_ENTRY"), () -> cmd + " " + env);
                    assertFalse(env.containsKey("JPMPI_JAVA_CLASSPATH"), () -> cmd + " " + env);
                }
            }
            assertTrue(rankPids.stream().allMatch(pid -> tree.stream().anyMatch(h -> h.pid() == pid)),
                    () -> "ranks " + rankPids + " are not below jpmpi: " + tree);
            assertTrue(launcherProcesses >= 1, "no launcher process seen");

            p.destroy(); // SIGTERM to bin/jpmpi's process, the launcher now
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "jpmpi did not stop after SIGTERM");
            // (its exit status is then the launcher's own, whatever that is: hydra's after SIGTERM is 0, or
            // 141 when it meets a closed pipe on its way down, without jpmpi as with it)
            long deadline2 = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (tree.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline2) {
                Thread.sleep(100);
            }
            assertTrue(tree.stream().noneMatch(ProcessHandle::isAlive), () -> "left running after SIGTERM: "
                    + tree.stream().filter(ProcessHandle::isAlive).map(h -> h.pid() + " " + h.info().command().orElse("?")).toList());
        } finally {
            held.end();
        }
    }

    /**
     * A library name without a slash is looked up where the dispatcher's dlopen looks (the library
     * path), never in the working directory: a PMPI tool planted there (a shared scratch directory)
     * is refused in one line, and taken only as ./libplanted.so.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void aLibraryInTheWorkingDirectoryIsNotTakenByName(Impl impl) throws Exception {
        Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "planted-");
        Files.copy(Path.of(impl.file("libcount.so")), dir.resolve("libplanted.so"));
        for (String item : List.of("libplanted.so", "./libplanted.so")) {
            Process p = Jpmpi.builder(Jpmpi.HOME.resolve("bin/jpmpi"), Map.of(),
                    run(List.of("--dry-run", "--tools", item), impl, 2, "pingpong", "1")).directory(dir.toFile())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
            if (item.startsWith("./")) {
                assertEquals(0, p.exitValue(), out);
            } else {
                assertEquals(67, p.exitValue(), out);
                assertTrue(out.contains("jpmpi: tool list item 1 'libplanted.so': libplanted.so is not on LD_LIBRARY_PATH"
                        + " or in the linker cache (a library in the working directory is ./libplanted.so)"), out);
            }
        }
    }

    /**
     * The contexts of an appfile (Open MPI --app) or a configfile (hydra -configfile) get jpmpi's
     * variables as the command line's do: every rank has the tools. Open MPI 4.1 ignores -x with an
     * appfile; they go through --mca mca_base_env_list, joined with the user's own list, from the
     * command line or from the environment, which the ranks get too.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void theRanksOfAnAppfileGetTheTools(Impl impl) throws Exception {
        Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "appfile-");
        Files.writeString(dir.resolve("mine.c"), "#include <mpi.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
                + "int main(int c, char **v) { MPI_Init(&c, &v); int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);"
                + " const char *m = getenv(\"MINE\"); printf(\"mine rank %d: %s\\n\", r, m ? m : \"(unset)\");"
                + " fflush(stdout); MPI_Barrier(MPI_COMM_WORLD); MPI_Finalize(); return 0; }\n");
        Process cc = new ProcessBuilder(impl.cc, "-o", dir.resolve("mine").toString(), dir.resolve("mine.c").toString())
                .redirectErrorStream(true).start();
        String said = new String(cc.getInputStream().readAllBytes());
        assertTrue(cc.waitFor(2, TimeUnit.MINUTES) && cc.exitValue() == 0, said);
        String n = impl == Impl.OPENMPI ? "-np" : "-n";
        Path file = dir.resolve("contexts");
        Files.writeString(file, n + " 1 " + dir.resolve("mine") + "\n" + n + " 1 " + dir.resolve("mine") + "\n");
        List<List<String>> launchers = new ArrayList<>();
        List<Map<String, String>> envs = new ArrayList<>();
        List<String> mine = new ArrayList<>();
        if (impl == Impl.OPENMPI) {
            launchers.add(List.of("mpirun", "--app", file.toString()));
            envs.add(Map.of());
            mine.add("(unset)");
            launchers.add(List.of("mpirun", "--mca", "mca_base_env_list", "MINE=theirs", "--app", file.toString()));
            envs.add(Map.of());
            mine.add("theirs");
            launchers.add(List.of("mpirun", "--app", file.toString()));
            envs.add(Map.of("OMPI_MCA_mca_base_env_list", "MINE=env"));
            mine.add("env");
        } else {
            launchers.add(List.of("mpiexec.hydra", "-configfile", file.toString()));
            envs.add(Map.of());
            mine.add("(unset)");
        }
        for (int k = 0; k < launchers.size(); k++) {
            Path records = dir.resolve("records-" + k);
            List<String> args = new ArrayList<>(List.of("run", "--tools", "accounting," + impl.file("libcount.so"), "--"));
            args.addAll(launchers.get(k));
            Map<String, String> env = new HashMap<>(envs.get(k));
            env.put("JPMPI_ACCOUNTING_FILE", records.toString());
            Jpmpi.Result r = Jpmpi.run(env, args);
            assertEquals(0, r.exit(), r::describe);
            for (int rank = 0; rank < 2; rank++) {
                String count = "count count rank " + rank + ": MPI_Init=1 ";
                assertTrue(r.out().contains(count), () -> "the user's tool in every context's rank: " + r.describe());
                assertTrue(r.out().contains("mine rank " + rank + ": " + mine.get(k) + "\n"), r::describe);
            }
            assertEquals(1, Files.readAllLines(records).size(), () -> "accounting in the job: " + r.describe());
        }
    }

    /** The executable file {@code name} names on PATH. */
    static Path onPath(String name) {
        for (String dir : System.getenv("PATH").split(":")) {
            Path f = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isRegularFile(f) && Files.isExecutable(f)) {
                return f;
            }
        }
        throw new AssertionError(name + " is not on PATH");
    }

    /**
     * With tools that need nothing after the job, bin/jpmpi's process becomes the launcher (InPlace) in the
     * state the launcher would start in without jpmpi: the same signals blocked (the JVM's threads block
     * SIGQUIT) and ignored (an ignored SIGPIPE, which the JVM takes), and the same descriptors (not the
     * JVM's jars, AOT cache and JDK modules). The
     * launcher is a script first on PATH that notes its own state, then executes the real one.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void theLauncherStartsAsItWouldWithoutJpmpi(Impl impl) throws Exception {
        Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "state-");
        Path bin = Files.createDirectories(dir.resolve("bin"));
        List<String> launcher = launcher(impl, 2);
        Path notes = dir.resolve("notes");
        Path script = bin.resolve(launcher.get(0));
        Files.writeString(script, "#!/bin/sh\n"
                + "if [ \"$1\" != --version ]; then\n"
                // (the shell's builtins only: a child's look at the shell would catch it with every signal
                // blocked, as dash waits for its children)
                + "  while read -r k v; do case $k in SigBlk:|SigIgn:) echo \"$k $v\";; esac; done </proc/self/status >>'"
                + notes + "'\n"
                + "  fds=''; for f in /proc/self/fd/*; do fds=\"$fds ${f##*/}\"; done; echo \"$fds\" >>'" + notes + "'\n"
                + "fi\n"
                + "exec '" + onPath(launcher.get(0)) + "' \"$@\"\n");
        Files.setPosixFilePermissions(script, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Map<String, String> path = Map.of("PATH", bin + ":" + System.getenv("PATH"));
        List<String> plainArgs = new ArrayList<>(launcher.subList(1, launcher.size()));
        plainArgs.addAll(List.of(impl.file("exitcode"), "0"));
        // both started with SIGPIPE ignored, as a service's children are (systemd's IgnoreSIGPIPE), which
        // the JVM replaces with a handler of its own
        for (ProcessBuilder pb : List.of(Jpmpi.builder(script, path, plainArgs),
                Jpmpi.builder(Jpmpi.HOME.resolve("bin/jpmpi"), path, run(List.of("--tools", "accounting"), impl, 2,
                        "exitcode", "0")))) {
            pb.command().addAll(0, List.of("env", "--ignore-signal=PIPE"));
            Process p = pb.redirectErrorStream(true).redirectOutput(dir.resolve("job.out").toFile()).start();
            assertTrue(p.waitFor(120, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), () -> pb.command() + "\n" + read(dir.resolve("job.out")));
        }
        List<String> lines = Files.readAllLines(notes);
        assertEquals(6, lines.size(), () -> "the launcher started twice: " + lines);
        assertEquals(state(lines.subList(0, 3)), state(lines.subList(3, 6)), "without jpmpi, then through jpmpi run");
    }

    /**
     * SigBlk, SigIgn (without glibc's own two real-time signals, 32 and 33, which no program can set: how
     * a process was started leaves them ignored or not) and the descriptors.
     */
    static List<String> state(List<String> lines) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("SigIgn:")) {
                long ignored = Long.parseUnsignedLong(line.substring(7).trim(), 16) & ~(3L << 31);
                out.add("SigIgn: " + Long.toHexString(ignored));
            } else {
                out.add(line.trim());
            }
        }
        return out;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** bin/jpmpi run OPTIONS -- launcher -n 2 hold 600, until both ranks say they are ready. */
    record Held(Process process, List<String> lines, Path dir, Thread reader) {
        static Held start(Impl impl, List<String> options) throws Exception {
            return start(impl, options, Map.of());
        }

        /** The same with {@code env} added to jpmpi's environment. */
        static Held start(Impl impl, List<String> options, Map<String, String> env) throws Exception {
            Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "hold-");
            ProcessBuilder pb = Jpmpi.builder(Jpmpi.HOME.resolve("bin/jpmpi"), env, run(options, impl, 2, "hold", "600"))
                    .directory(dir.toFile()).redirectError(dir.resolve("stderr.txt").toFile());
            // SIGINT as a terminal gives it: a shell without job control starts its background commands
            // with SIGINT ignored, which every process below it (this JVM, jpmpi's) would inherit
            pb.command().addAll(0, List.of("env", "--default-signal=INT"));
            Process p = pb.start();
            List<String> lines = Collections.synchronizedList(new ArrayList<>());
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String l; (l = r.readLine()) != null; ) {
                        lines.add(l);
                    }
                } catch (IOException e) {
                    // the process went away
                }
            });
            reader.start();
            Held held = new Held(p, lines, dir, reader);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (lines.stream().filter(l -> l.contains(" ready pid ")).count() < 2) {
                if (System.nanoTime() > deadline || !p.isAlive()) {
                    held.end();
                    fail("the job did not come up: " + lines + "\n" + Files.readString(dir.resolve("stderr.txt")));
                }
                Thread.sleep(50);
            }
            return held;
        }

        String stderr() throws IOException {
            return Files.readString(dir.resolve("stderr.txt"));
        }

        void end() throws InterruptedException {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            reader.join(10_000);
        }
    }

    /**
     * SIGTERM or SIGINT to jpmpi while the job runs: the job is taken down, and before jpmpi ends
     * the ranks' dumps are merged into a partial profile and its report is said, as when a job
     * aborts. (Open MPI's ranks get SIGTERM from mpirun and dump; hydra passes the signal on too.)
     */
    @ParameterizedTest(name = "{0} SIG{1}")
    @MethodSource("signals")
    void aSignalledJpmpiStillMergesTheProfile(Impl impl, String signal) throws Exception {
        Held held = Held.start(impl, List.of("--tools", "profile", "--output", "prof"));
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(held.process().pid())).start();
            assertEquals(0, kill.waitFor());
            assertTrue(held.process().waitFor(90, TimeUnit.SECONDS), "jpmpi did not stop after SIG" + signal);
            int expected = 128 + (signal.equals("TERM") ? 15 : 2);
            assertEquals(expected, held.process().exitValue(), "jpmpi's exit status after SIG" + signal);
            Path prof = held.dir().resolve("prof");
            String err = held.stderr();
            assertTrue(Files.isRegularFile(prof.resolve("profile.json")), () -> "no profile.json\n" + err);
            assertTrue(err.contains("jpmpi: profile: " + prof.resolve("report.txt")), err);
            assertTrue(Files.readString(prof.resolve("profile.json")).contains("\"partial\": true")
                    || Files.readString(prof.resolve("profile.json")).contains("\"partial\":true"), err);
        } finally {
            held.end();
        }
    }

    /**
     * kill -USR1 of the ranks of a running job (what Slurm's --signal=USR1@N sends before a time
     * limit): each rank writes its figures so far (ranks/rank-R.bin, state FLUSH) and the job goes
     * on; the dumps merge into a partial profile with both ranks' MPI_Barrier.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void usr1WritesEveryRanksFiguresAndTheJobGoesOn(Impl impl) throws Exception {
        Held held = Held.start(impl, List.of("--tools", "profile", "--output", "prof"));
        try {
            Path ranks = held.dir().resolve("prof").resolve("ranks");
            List<String> ready = held.lines().stream().filter(l -> l.contains(" ready pid ")).toList();
            for (String line : ready) {
                String pid = line.substring(line.lastIndexOf(' ') + 1);
                assertEquals(0, new ProcessBuilder("kill", "-USR1", pid).start().waitFor(), line);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(Files.isRegularFile(ranks.resolve("rank-0.bin")) && Files.isRegularFile(ranks.resolve("rank-1.bin")))) {
                assertTrue(System.nanoTime() < deadline, () -> "no dumps in " + ranks + " 30 s after SIGUSR1: " + held.lines());
                Thread.sleep(50);
            }
            Thread.sleep(500);
            assertTrue(held.process().isAlive(), () -> "the job ended after SIGUSR1: " + held.lines());
            for (String line : ready) {
                long pid = Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
                assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), () -> "rank ended: " + line);
            }
            io.jpmpi.profilers.report.Profile p = io.jpmpi.profilers.profile.RankDumps.merge(held.dir().resolve("prof"));
            assertTrue(p.partial(), () -> "a running job's dumps make a partial profile: " + p.partialReasons());
            assertEquals(2, p.rankRows().size());
            assertEquals(2L, p.functions().stream().filter(f -> f.name().equals("MPI_Barrier")).findFirst()
                    .orElseThrow().calls(), () -> "MPI_Barrier, one per rank: " + p.functions());
        } finally {
            held.end();
        }
    }

    static Stream<Arguments> signals() {
        return MpiRun.implementations().flatMap(i -> Stream.of("TERM", "INT").map(sig -> Arguments.of(i, sig)));
    }

    /** /proc/PID/environ, or null if the process is gone. */
    private static Map<String, String> environ(long pid) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
            Map<String, String> env = new HashMap<>();
            for (String kv : new String(raw, StandardCharsets.UTF_8).split("\0")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    env.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
            return env;
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * --tools accounting, as a site would have it on for every job: the record, no JVM in any rank
     * (the test program looks for libjvm.so in its own /proc/self/maps), no output directory; with
     * --tools hwc,accounting the record has the counters (and the hwc tool's Java level a JVM).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void accountingAloneStartsNoJvm(Impl impl) throws Exception {
        Path acct = Path.of(System.getProperty("jpmpi.test.native.dir"), impl.id, "acct").normalize();
        assertTrue(Files.isExecutable(acct), () -> "missing " + acct + " (the test-support module builds it)");
        Path records = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "accounting-").resolve("a.jsonl");
        for (String tools : List.of("accounting", "hwc,accounting")) {
            List<String> args = new ArrayList<>(List.of("run", "--tools", tools, "--"));
            args.addAll(launcher(impl, 2));
            args.addAll(List.of(acct.toString(), "30"));
            Jpmpi.Result r = Jpmpi.run(Map.of("JPMPI_ACCOUNTING_FILE", records.toString(), "JPMPI_HWC_EVENTS", "software"),
                    args);
            assertEquals(0, r.exit(), r::describe);
            boolean jvm = tools.startsWith("hwc");
            for (int rank = 0; rank < 2; rank++) {
                String said = "acct rank=" + rank + " jvm=" + (jvm ? 1 : 0) + " ";
                assertEquals(1, r.out().lines().filter(l -> l.startsWith(said)).count(), r::describe);
            }
            if (!jvm) {
                try (var left = Files.list(r.dir())) {
                    List<Path> dirs = left.filter(Files::isDirectory).toList();
                    assertEquals(List.of(), dirs, r::describe);
                }
            }
        }
        List<String> lines = Files.readAllLines(records);
        assertEquals(2, lines.size(), () -> String.join("\n", lines));
        for (int i = 0; i < 2; i++) {
            io.jpmpi.profilers.accounting.AccountingRecord rec = io.jpmpi.profilers.accounting.AccountingRecord.parse(lines.get(i));
            assertEquals(2, rec.ranks(), lines.get(i));
            assertEquals(acct.toString(), rec.exe(), lines.get(i));
            assertEquals(i == 1, rec.hwc() != null, lines.get(i));
            assertTrue(rec.sampled() && rec.samples() >= 0, () -> "--tools accounting samples: " + rec);
        }
    }

    /**
     * --tools profile and --tools profile,accounting start no JVM in any rank (the test program looks
     * for libjvm.so in its own /proc/self/maps): at MPI_Finalize rank 0 writes every rank's figures,
     * and jpmpi run makes a complete profile.json and both reports of all 3 ranks from them after
     * the ranks exit, leaving no dumps; with the accounting tool listed below the recorder, the
     * profile is still written (JPMPI_PROFILE_OUTPUT=on) and the record takes the recorder's exact
     * counts.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void profileStartsNoJvm(Impl impl) throws Exception {
        Path acct = Path.of(System.getProperty("jpmpi.test.native.dir"), impl.id, "acct").normalize();
        Path base = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "profile-nojvm-");
        Path records = base.resolve("a.jsonl");
        for (String tools : List.of("profile", "profile,accounting")) {
            Path out = base.resolve(tools.replace(',', '-'));
            List<String> args = new ArrayList<>(List.of("run", "--tools", tools, "--output", out.toString(), "--"));
            args.addAll(launcher(impl, 3));
            args.addAll(List.of(acct.toString(), "30"));
            Jpmpi.Result r = Jpmpi.run(Map.of("JPMPI_ACCOUNTING_FILE", records.toString()), args);
            assertEquals(0, r.exit(), r::describe);
            for (int rank = 0; rank < 3; rank++) {
                String said = "acct rank=" + rank + " jvm=0 ";
                assertEquals(1, r.out().lines().filter(l -> l.startsWith(said)).count(), r::describe);
            }
            io.jpmpi.profilers.report.Profile p = io.jpmpi.profilers.report.ProfileJson.read(out.resolve("profile.json"));
            assertFalse(p.partial(), r::describe);
            assertEquals(3, p.ranks(), r::describe);
            assertEquals(3, p.rankRows().size(), r::describe);
            assertTrue(Files.size(out.resolve("report.txt")) > 0 && Files.size(out.resolve("report.html")) > 0,
                    r::describe);
            assertFalse(Files.exists(out.resolve("ranks")), () -> "dumps left beside a complete profile\n" + r.describe());
            assertFalse(r.err().contains("partial"), r::describe);
        }
        List<String> lines = Files.readAllLines(records);
        assertEquals(1, lines.size(), () -> String.join("\n", lines));
        io.jpmpi.profilers.accounting.AccountingRecord rec = io.jpmpi.profilers.accounting.AccountingRecord.parse(lines.get(0));
        assertEquals(3, rec.ranks(), lines.get(0));
        assertFalse(rec.sampled(), () -> "--tools profile,accounting counts exactly: " + rec);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void theDemoPrintsItsReport(Impl impl) {
        Jpmpi.Result r = Jpmpi.run(List.of("demo", "--mpi", impl.id));
        assertEquals(0, r.exit(), r::describe);
        assertTrue(r.out().contains("halo: field checksum "), r::describe);
        for (int rank = 0; rank < 4; rank++) {
            String prefix = "count java-counter rank " + rank + ": ";
            assertEquals(1, r.err().lines().filter(l -> l.startsWith(prefix) && l.contains("MPI_Isend=100")).count(),
                    r::describe);
        }
        // The profile's report: its banner, and the demo's 100 Isends per rank summed over 4 ranks.
        assertTrue(r.out().contains("| jpmpi profile"), r::describe);
        assertTrue(r.out().contains("ranks       4 on 1 host"), r::describe);
        assertTrue(r.out().lines().anyMatch(l -> l.matches("MPI_Isend +400 .*")), r::describe);
        Path dir = Jpmpi.HOME.resolve("share/jpmpi/examples/halo-demo/build").resolve(impl.id).resolve("profile");
        for (String f : List.of("profile.json", "report.txt", "report.html")) {
            assertTrue(Files.isRegularFile(dir.resolve(f)), () -> dir.resolve(f) + " missing\n" + r.describe());
        }
    }
}
