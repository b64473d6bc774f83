package io.jpmpi.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jpmpi.platform.Toolchain;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs one of the test programs of src/test/c under a real MPI launcher and captures what it did.
 *
 * <p>Per implementation it knows the launcher ({@code mpirun.openmpi --oversubscribe -np N -x
 * VAR=VAL} or {@code mpiexec.hydra -n N -genv VAR VAL}); every variable given with {@link #env}
 * reaches the ranks only, never the launcher, and the launcher's own environment is cleaned of
 * anything jpmpi reads. A run has a time limit (the whole process tree is killed after it), its
 * own directory under target/test-runs (stdout, stderr, and the per-rank logs of logtool.c when
 * {@link #withLog} asked for them), and returns a {@link Result}.
 */
public final class MpiRun {
    /** Normalized, as the programs see their own paths (a module's pom may give a path through "..") */
    public static final Path NATIVE_DIR = Path.of(System.getProperty("jpmpi.native.dir", "target/classes/native"))
            .toAbsolutePath().normalize();
    public static final Path TEST_DIR = Path.of(System.getProperty("jpmpi.test.native.dir", "target/test-native"))
            .toAbsolutePath().normalize();
    /** Where runs keep their files: the module's own target/test-runs unless told. */
    public static final Path RUNS_DIR = Path.of(System.getProperty("jpmpi.test.runs.dir",
            TEST_DIR.resolveSibling("test-runs").toString())).toAbsolutePath();
    public static final Duration TIMEOUT = Duration.ofSeconds(120);
    /** What the launcher must not see: jpmpi reads these, and they must reach the ranks only. */
    public static final Set<String> CLEANED = Set.of("JPMPI_TOOLS_ENTRY", "OMPI_MCA_ompi_tools_entry", "LD_PRELOAD",
            "JPMPI_TEST_LOG");

    /** The MPI implementations jpmpi is built for. */
    public enum Impl {
        OPENMPI("openmpi", "libmpi.so.40"),
        MPICH("mpich", "libmpich.so.12");

        public final String id;
        /** As the dispatcher names it in its messages. */
        public final String displayName;
        public final String cc;
        public final String launcher;
        /** The soname of its C library. */
        public final String libmpi;

        /** The names come from the one table of implementations (platform's Toolchain). */
        Impl(String id, String libmpi) {
            Toolchain t = Toolchain.byId(id);
            this.id = id;
            this.displayName = t.name();
            this.cc = t.cc();
            this.launcher = t.mpirun();
            this.libmpi = libmpi;
        }

        public boolean installed() {
            return onPath(cc);
        }

        public Path testDir() {
            return TEST_DIR.resolve(id);
        }

        public Path dispatcherDir() {
            return NATIVE_DIR.resolve(id);
        }

        public Path dispatcher() {
            return dispatcherDir().resolve("libmpiprofilesupport.so");
        }

        /** A tool library or program built by tests.mk, as an absolute path. */
        public String file(String name) {
            return testDir().resolve(name).toString();
        }

        @Override
        public String toString() {
            return id;
        }
    }

    /**
     * The implementations to test: every one whose compiler is installed or whose test build is
     * there. An installed one whose build is missing is not left out: its tests fail. Where
     * {@value #REQUIRED} lists implementations (./test.sh sets it to every one, having installed
     * them), one that is not installed fails every test that asks, instead of leaving it out.
     */
    public static Stream<Impl> implementations() {
        String required = System.getenv(REQUIRED);
        if (required != null && !required.isBlank()) {
            for (String id : required.split(",")) {
                Impl impl = Arrays.stream(Impl.values()).filter(i -> i.id.equals(id.trim())).findFirst()
                        .orElseThrow(() -> new IllegalStateException(REQUIRED + " names '" + id + "', not an MPI jpmpi knows"));
                if (!impl.installed()) {
                    throw new IllegalStateException(REQUIRED + "=" + required + " but " + impl.displayName + " is not"
                            + " installed (" + impl.cc + " is not on PATH): this run would test less than it should");
                }
            }
        }
        return Arrays.stream(Impl.values()).filter(i -> i.installed() || Files.isDirectory(i.testDir()));
    }

    /** The implementations a run must test (comma-separated ids), set by ./test.sh. */
    public static final String REQUIRED = "JPMPI_TEST_MPIS";

    /** Comma-joins entry-list items (paths, keywords, names) as JPMPI_TOOLS_ENTRY wants them. */
    public static String entry(String... items) {
        return String.join(",", items);
    }

    private final Impl impl;
    private final Path runDir;
    private int ranks = 2;
    private boolean direct;
    private final Map<String, String> env = new LinkedHashMap<>();
    private final Map<String, String> mca = new LinkedHashMap<>();

    private MpiRun(Impl impl) {
        this.impl = impl;
        assertTrue(Files.isDirectory(impl.testDir()), () -> impl.id + " is installed (" + impl.cc
                + ") but its test build " + impl.testDir() + " is missing: run `make tests` (mvn test-compile)");
        assertTrue(Files.isRegularFile(impl.dispatcher()), () -> "missing " + impl.dispatcher());
        assertTrue(onPath(impl.launcher), () -> impl.launcher + " is not on PATH");
        try {
            Files.createDirectories(RUNS_DIR);
            runDir = Files.createTempDirectory(RUNS_DIR, impl.id + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A run on `impl`, 2 ranks, no jpmpi until asked. */
    public static MpiRun on(Impl impl) {
        return new MpiRun(impl);
    }

    public MpiRun ranks(int n) {
        ranks = n;
        return this;
    }

    /** Runs the program itself, one process, no launcher; {@link #env} then goes to it directly. */
    public MpiRun direct() {
        direct = true;
        return this;
    }

    /** Sets a variable in the ranks' environment (not the launcher's). */
    public MpiRun env(String name, String value) {
        env.put(name, value);
        return this;
    }

    /** Switches jpmpi on in the ranks: LD_PRELOAD of the real dispatcher. */
    public MpiRun preload() {
        return env("LD_PRELOAD", impl.dispatcher().toString());
    }

    /**
     * What the embedded JVM of a Java level needs: JAVA_HOME (the JDK running the tests) and
     * JPMPI_JAVA_CLASSPATH (the system property jpmpi.java.classpath, set by the layering build).
     */
    public MpiRun java() {
        String cp = System.getProperty("jpmpi.java.classpath");
        assertTrue(cp != null && !cp.isEmpty(), "the system property jpmpi.java.classpath is not set");
        return env("JAVA_HOME", System.getProperty("java.home")).env("JPMPI_JAVA_CLASSPATH", cp);
    }

    /** Preloads the dispatcher and sets JPMPI_TOOLS_ENTRY. */
    public MpiRun levels(String entryList) {
        return preload().env("JPMPI_TOOLS_ENTRY", entryList);
    }

    /**
     * An MCA parameter: {@code --mca name value} on Open MPI; on MPICH, which has no MCA, the
     * variable Open MPI would set from it, {@code OMPI_MCA_name}, in the ranks' environment.
     */
    public MpiRun mca(String name, String value) {
        mca.put(name, value);
        return this;
    }

    /** Makes the logging tools write their per-rank logs into this run's directory. */
    public MpiRun withLog() {
        Path log = runDir.resolve("log");
        try {
            Files.createDirectories(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return env("JPMPI_TEST_LOG", log.toString());
    }

    /** Runs `program` (a name built by tests.mk, or a path) with `args`; waits at most TIMEOUT. */
    public Result run(String program, String... args) {
        String exe = program.contains("/") ? program : impl.file(program);
        List<String> command = new ArrayList<>();
        if (direct) {
            assertTrue(mca.isEmpty(), "no MCA parameters without a launcher");
            command.add(exe);
        } else if (impl == Impl.OPENMPI) {
            command.addAll(List.of(impl.launcher, "--oversubscribe", "-np", Integer.toString(ranks)));
            mca.forEach((k, v) -> command.addAll(List.of("--mca", k, v)));
            env.forEach((k, v) -> command.addAll(List.of("-x", k + "=" + v)));
            command.add(exe);
        } else {
            command.addAll(List.of(impl.launcher, "-n", Integer.toString(ranks)));
            mca.forEach((k, v) -> command.addAll(List.of("-genv", "OMPI_MCA_" + k, v)));
            env.forEach((k, v) -> command.addAll(List.of("-genv", k, v)));
            command.add(exe);
        }
        command.addAll(List.of(args));

        return execute(command, runDir, penv -> {
            penv.keySet().removeIf(k -> CLEANED.contains(k) || k.startsWith("OMPI_MCA_"));
            penv.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
            penv.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
            if (direct) {
                penv.putAll(env);
            }
        }, TIMEOUT);
    }

    /**
     * Runs {@code command} in {@code dir} (stdin /dev/null; stdout.txt and stderr.txt there) in the
     * environment of this JVM as {@code environment} changes it; after {@code limit} the whole
     * process tree is killed and the result says it timed out.
     */
    public static Result execute(List<String> command, Path dir, Consumer<Map<String, String>> environment,
                                 Duration limit) {
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        ProcessBuilder pb = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        environment.accept(pb.environment());
        long start = System.nanoTime();
        boolean timedOut;
        int exit;
        try {
            Process p = pb.start();
            timedOut = !p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
            if (timedOut) {
                killTree(p.toHandle());
                p.waitFor(10, TimeUnit.SECONDS);
            }
            exit = p.isAlive() ? -1 : p.exitValue();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        return new Result(command, exit, timedOut, read(out), read(err), dir, took);
    }

    private static void killTree(ProcessHandle root) {
        List<ProcessHandle> all = root.descendants().collect(Collectors.toList());
        for (int i = all.size() - 1; i >= 0; i--) {
            all.get(i).destroyForcibly();
        }
        root.destroyForcibly();
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static boolean onPath(String executable) {
        String path = System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        return Arrays.stream(path.split(File.pathSeparator))
                .filter(d -> !d.isEmpty())
                .anyMatch(d -> Files.isExecutable(Path.of(d, executable)));
    }

    /** What a run did. */
    public record Result(List<String> command, int exit, boolean timedOut, String stdout, String stderr, Path runDir,
                  Duration took) {
        static final Pattern COUNT = Pattern.compile("count (\\S+) rank (-?\\d+): (.*)");
        static final Pattern FIELD = Pattern.compile("(\\w+)=(\\d+)");

        public List<String> out() {
            return stdout.lines().toList();
        }

        public List<String> err() {
            return stderr.lines().toList();
        }

        /** Everything about the run, for failure messages. */
        public String describe() {
            return "command: " + String.join(" ", command) + "\nexit: " + exit + (timedOut ? " (timed out)" : "")
                    + "\ntook: " + took.toMillis() + " ms\nrun dir: " + runDir
                    + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr + "---";
        }

        public Result assertSuccess() {
            assertFalse(timedOut, this::describe);
            assertEquals(0, exit, this::describe);
            return this;
        }

        /** The lines of stdout equal to `line`. */
        public long countOut(String line) {
            return out().stream().filter(line::equals).count();
        }

        /** The per-rank log of the logging tools (empty if the rank wrote none). */
        public List<String> log(int rank) {
            Path file = runDir.resolve("log").resolve("rank" + rank + ".log");
            try {
                return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /**
         * The count lines counttool.c printed (stdout) or Java counting levels printed (stderr,
         * where a Java level's System.out goes), as tool → rank → field → value; each (tool, rank)
         * once.
         */
        public Map<String, Map<Integer, Map<String, Long>>> counts() {
            Map<String, Map<Integer, Map<String, Long>>> all = new LinkedHashMap<>();
            for (String line : Stream.concat(out().stream(), err().stream()).toList()) {
                Matcher m = COUNT.matcher(line);
                if (!m.matches()) {
                    continue;
                }
                Map<String, Long> fields = new LinkedHashMap<>();
                Matcher f = FIELD.matcher(m.group(3));
                while (f.find()) {
                    fields.put(f.group(1), Long.parseLong(f.group(2)));
                }
                Map<String, Long> before = all.computeIfAbsent(m.group(1), k -> new LinkedHashMap<>())
                        .put(Integer.parseInt(m.group(2)), fields);
                if (before != null) {
                    fail("tool " + m.group(1) + " reported rank " + m.group(2) + " twice\n" + describe());
                }
            }
            return all;
        }

        /** What tool `tool` counted on rank `rank`; fails if it printed no line for that rank. */
        public Map<String, Long> counts(String tool, int rank) {
            Map<String, Long> c = counts().getOrDefault(tool, Map.of()).get(rank);
            if (c == null) {
                fail("no count line of " + tool + " for rank " + rank + "\n" + describe());
            }
            return c;
        }
    }
}
