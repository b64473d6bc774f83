package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a program can see of its own process through jpmpi (issue 27; layering/README.md, "What a
 * program can see of jpmpi"). procstate.c records, on each of 2 ranks, its signal dispositions and
 * mask, rlimits, umask, working directory, environment, locale, CPU affinity, stdio modes, errno
 * across each call and its floating-point state, at MPI_Init's return, after point-to-point,
 * collective and non-blocking calls and MPI_Pcontrol, before and after MPI_Finalize;
 * procstate.F90 records the same checkpoints' IEEE flags and modes and ends with STOP. Each is run
 * without jpmpi (twice: what differs between two such jobs is the launcher's per-job data, ids and
 * ports), then through {@code bin/jpmpi run} with the dispatcher alone and with each built-in tool
 * and the example Java interceptor, on both MPIs. Every line must be as without jpmpi but for
 * {@link #ALLOWED} (each entry is a documented difference, with its reason). The jobs run with a umask of 027 and
 * a soft limit of open files below the hard one, so that a tool resetting either would show.
 */
class ProcessStateIT {
    static final int RANKS = 2;
    /** "" is the dispatcher with no level. */
    static final List<String> TOOLS = List.of("", "accounting", "hwc", "profile", "mpit", "java-counter");
    /** The tools with a Java level (a JVM in every rank). */
    static final Set<String> JAVA = Set.of("hwc", "mpit", "java-counter");
    static final Set<String> ALL = Set.copyOf(TOOLS);
    static final String STOP_NOTE = "Note: The following floating-point exceptions are signalling";
    /** The checkpoints procstate.c and procstate.F90 record, in order. */
    static final List<String> CHECKPOINTS = List.of("init", "p2p", "collective", "nonblocking", "pcontrol",
            "finalize", "finalized");
    static final String ABSENT = "(absent)";

    /** A difference a tool may make: a line's key, its value without jpmpi and with, and why. */
    record Allowed(Set<String> tools, Pattern key, Pattern plain, Pattern run, String why) {
        static Allowed of(Set<String> tools, String key, String plain, String run, String why) {
            return new Allowed(tools, Pattern.compile(key), value(plain), value(run), why);
        }

        private static Pattern value(String regex) {
            return Pattern.compile(regex.equals(ABSENT) ? Pattern.quote(ABSENT) : regex);
        }

        boolean covers(String tool, String k, String plainValue, String runValue) {
            return tools.contains(tool) && key.matcher(k).matches() && plain.matcher(plainValue).matches()
                    && run.matcher(runValue).matches();
        }
    }

    /** The documented differences (layering/README.md, "What a program can see of jpmpi"), nothing more. */
    static final List<Allowed> ALLOWED = List.of(
            Allowed.of(ALL, "\\w+ env LD_PRELOAD", ABSENT, ".*/lib/(openmpi|mpich)/libmpiprofilesupport\\.so",
                    "jpmpi run preloads the dispatcher in the ranks: that is how jpmpi gets in"),
            Allowed.of(ALL, "\\w+ env JPMPI_TOOLS_ENTRY", ABSENT, ".*",
                    "jpmpi run gives the ranks the tool list, which the dispatcher reads"),
            Allowed.of(ALL, "\\w+ env JPMPI_OUTPUT_DIR", ABSENT, "<run>/out",
                    "jpmpi run --output: where the built-in tools write"),
            Allowed.of(Set.of("profile"), "\\w+ env JPMPI_PROFILE_OUTPUT", ABSENT, "on",
                    "jpmpi run with the profile tool: its recorder writes the figures whatever the levels below need"),
            Allowed.of(ALL, "\\w+ env _", ".*", ".*",
                    "_, which shells set to the command they run, is not the caller's: bin/jpmpi is a bash script"
                            + " that runs a JVM"),
            Allowed.of(Set.of("accounting"), "(init|p2p|collective|nonblocking|pcontrol|finalize) signal 27",
                    "default flags=0x0", "handler:libjpmpi-accounting\\.so flags=0x\\p{XDigit}+",
                    "accounting samples the thread in MPI_Init..MPI_Finalize with SIGPROF (given back at"
                            + " MPI_Finalize)"),
            Allowed.of(Set.of("hwc"), "(init|p2p|collective|nonblocking|pcontrol|finalize|finalized) signal 38",
                    "default flags=0x0", "handler:libjpmpi-hwc\\.so flags=0x\\p{XDigit}+",
                    "hwc's sampled mode (the default where counter reads are dear) takes SIGRTMIN+4 for its counters'"
                            + " overflows from MPI_Init on, and keeps the handler, which then ignores it, after"
                            + " MPI_Finalize: an overflow still queued for a thread must not end the process"),
            Allowed.of(Set.of("profile"), "(init|p2p|collective|nonblocking|pcontrol|finalize|finalized) signal "
                    + "(1|2|4|6|7|8|11|15)", ".*", "handler:libjpmpi-profile\\.so flags=0x\\p{XDigit}+",
                    "the profile recorder writes the rank's dump on a crash, SIGTERM, SIGINT or SIGHUP, then calls"
                            + " the handler it found (PROFILE.md, Abnormal ends)"),
            Allowed.of(Set.of("profile"), "(init|p2p|collective|nonblocking|pcontrol|finalize) signal 10", ".*",
                    "handler:libjpmpi-profile\\.so flags=0x\\p{XDigit}+",
                    "the profile recorder writes the rank's figures so far on SIGUSR1 and the job goes on (a handler"
                            + " found at MPI_Init, MPICH's, runs after it), from MPI_Init to MPI_Finalize, where the"
                            + " disposition found is back (PROFILE.md, A dump of a running job)"),
            Allowed.of(Set.of("mpit"), "\\w+ altstack", "disabled size=0", "enabled size=\\d+",
                    "Open MPI: mpit's MPI_T_init_thread before MPI_Init opens every component, UCX's among them,"
                            + " and libucs's constructor gives the loading thread an alternate signal stack"),
            Allowed.of(Set.of("mpit"), "\\w+ env PSM2_DEVICES", ".*", ABSENT,
                    "Open MPI: after mpit's MPI_T_init_thread, MPI_Init no longer sets PSM2_DEVICES (its psm2"
                            + " component is opened before MPI_Init)"),
            Allowed.of(JAVA, "\\w+ signal 12", "default flags=0x0", "handler:libjvm\\.so flags=0x\\p{XDigit}+",
                    "HotSpot suspends and resumes its threads with SIGUSR2 (kept with -Xrs)"),
            Allowed.of(JAVA, "\\w+ signal 62", "default flags=0x0", "handler:libnio\\.so flags=0x\\p{XDigit}+",
                    "the JDK's NIO wakes a thread blocked in I/O with SIGRTMAX-2 (a Java level writing a file)"));

    /** Per MPI: the two runs without jpmpi. */
    static final Map<Impl, Plain> PLAIN = new ConcurrentHashMap<>();

    static Stream<Arguments> cases() {
        return MpiRun.implementations().flatMap(i -> TOOLS.stream().map(t -> Arguments.of(i, t)));
    }

    @ParameterizedTest(name = "{0} tools [{1}]")
    @MethodSource("cases")
    void asWithoutJpmpi(Impl impl, String tool) {
        Plain plain = PLAIN.computeIfAbsent(impl, Plain::of);
        Job c = Job.run(impl, tool, "procstate");
        Job f = Job.run(impl, tool, "procstate_f");
        List<String> problems = new ArrayList<>();
        for (int rank = 0; rank < RANKS; rank++) {
            compare(tool, rank, plain, plain.c.lines(rank), c.lines(rank), problems);
            compare(tool, rank, plain, plain.fortran.lines(rank), f.lines(rank), problems);
        }
        if (!plain.fortran.err.contains(STOP_NOTE)) {
            assertFalse(f.err.contains(STOP_NOTE), () -> "gfortran's note at STOP through jpmpi, not without\n"
                    + f.describe());
        }
        System.out.printf("procstate %s [%s]: tool-owned: %s; C %d ms, Fortran %d ms%n", impl, tool,
                owned(c.lines(0)), c.millis, f.millis);
        assertTrue(problems.isEmpty(), () -> problems.size() + " undocumented difference(s) from the run without"
                + " jpmpi (key: without jpmpi -> with):\n  " + String.join("\n  ", problems) + "\n" + c.describe()
                + "\n" + f.describe());
    }

    static void compare(String tool, int rank, Plain plain, Map<String, String> without, Map<String, String> with,
                        List<String> problems) {
        Set<String> keys = new TreeSet<>(without.keySet());
        keys.addAll(with.keySet());
        for (String key : keys) {
            if (key.contains(" owned ")) {
                continue; // the tools' threads and descriptors: recorded, documented, not compared
            }
            String p = without.getOrDefault(key, ABSENT), r = with.getOrDefault(key, ABSENT);
            if (plain.perJob.contains(key) && !p.equals(ABSENT) && !r.equals(ABSENT)) {
                continue; // a value of the launcher's that differs from job to job
            }
            if (key.contains(" errno ") && p.equals("set")) {
                continue; // the MPI library sets errno in this call: nothing to keep
            }
            if (p.equals(r) || ALLOWED.stream().anyMatch(a -> a.covers(tool, key, p, r))) {
                continue;
            }
            problems.add("rank " + rank + " " + key + ": " + p + " -> " + r);
        }
    }

    static String owned(Map<String, String> lines) {
        return "threads " + lines.get("init owned threads") + ", fds " + lines.get("init owned fds");
    }

    /** The two jobs of each program without jpmpi, and the keys whose values differ between them. */
    record Plain(Job c, Job fortran, Set<String> perJob) {
        static Plain of(Impl impl) {
            Job c = Job.run(impl, null, "procstate");
            Job again = Job.run(impl, null, "procstate");
            Job fortran = Job.run(impl, null, "procstate_f");
            Set<String> perJob = new TreeSet<>();
            for (int rank = 0; rank < RANKS; rank++) {
                Map<String, String> a = c.lines(rank), b = again.lines(rank);
                assertEquals(a.keySet(), b.keySet(), () -> "two runs without jpmpi differ in their items\n"
                        + c.describe() + "\n" + again.describe());
                a.forEach((k, v) -> {
                    if (!v.equals(b.get(k)) && !k.contains(" owned ")) {
                        perJob.add(k);
                    }
                });
                for (String cp : CHECKPOINTS) {
                    assertTrue(a.keySet().stream().anyMatch(k -> k.startsWith(cp + " signal ")), c::describe);
                    assertTrue(a.containsKey(cp + " env PATH"), c::describe);
                    assertTrue(fortranKeys(fortran.lines(rank), cp), fortran::describe);
                }
            }
            // only the launcher's own per-job data may differ: ids, ports, session directories
            for (String k : perJob) {
                assertTrue(k.matches("\\w+ env (OMPI_|PMIX_|PMI_|HYDI_|HYDRA_|MPIR_|MPI_LOCAL).*"),
                        () -> "two runs without jpmpi differ in " + k + "\n" + c.describe() + "\n" + again.describe());
            }
            return new Plain(c, fortran, perJob);
        }

        private static boolean fortranKeys(Map<String, String> lines, String cp) {
            return lines.containsKey(cp + " flag inexact") && lines.containsKey(cp + " rounding");
        }
    }

    /** One job: the program on RANKS ranks, without jpmpi (tool null) or through bin/jpmpi run. */
    record Job(Impl impl, String tool, String program, Path dir, int exit, String out, String err, long millis) {
        static Job run(Impl impl, String tool, String program) {
            // relative paths, in the job's own directory (Jpmpi.run makes one per run)
            List<String> args = new ArrayList<>(List.of("-c", "umask 027 && ulimit -S -n 512 && exec \"$@\"", "sh"));
            if (tool != null) {
                args.addAll(List.of(Jpmpi.HOME.resolve("bin/jpmpi").toString(), "run", "--output", "out"));
                if (!tool.isEmpty()) {
                    args.addAll(List.of("--tools", tool));
                }
                args.add("--");
            }
            args.addAll(LauncherIT.launcher(impl, RANKS));
            args.add(impl.file(program));
            long start = System.nanoTime();
            Jpmpi.Result r = Jpmpi.run(Path.of("/bin/sh"), Map.of("JPMPI_ACCOUNTING_FILE", "accounting.jsonl"), args);
            Job job = new Job(impl, tool, program, r.dir(), r.exit(), r.out(), r.err(),
                    (System.nanoTime() - start) / 1_000_000);
            assertEquals(0, job.exit, job::describe);
            return job;
        }

        /**
         * A rank's lines as key → value: key "<checkpoint> <item> [<name>]" (the second and
         * later lines of the same key get "#2", "#3"), the run's directory written "<run>".
         */
        Map<String, String> lines(int rank) {
            Path file = dir.resolve(program + "-" + rank + ".txt");
            assertTrue(Files.isRegularFile(file), () -> "no " + file + "\n" + describe());
            List<String> all;
            try {
                all = Files.readAllLines(file);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Map<String, String> map = new LinkedHashMap<>();
            for (String raw : all) {
                String line = raw.replace(dir.toString(), "<run>");
                String[] w = line.split(" ", 4);
                assertTrue(w.length >= 3, () -> "malformed line '" + raw + "' in " + file);
                boolean named = w.length == 4 && Set.of("signal", "rlimit", "env", "locale", "stdio", "fd", "errno",
                        "owned", "fp", "timer", "flag", "halting").contains(w[1]);
                String key = named ? w[0] + " " + w[1] + " " + w[2] : w[0] + " " + w[1];
                String value = named ? w[3] : line.substring(key.length()).strip();
                String unique = key;
                for (int n = 2; map.containsKey(unique); n++) {
                    unique = key + "#" + n;
                }
                map.put(unique, value);
            }
            assertTrue(out.contains(program + " rank " + rank + " lines " + all.size()), this::describe);
            return map;
        }

        String describe() {
            return (tool == null ? "without jpmpi" : "tools [" + tool + "]") + " " + impl + " " + program + ": exit "
                    + exit + ", " + millis + " ms, files in " + dir + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }
}
