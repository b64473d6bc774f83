package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.MpiRun.Impl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The plans jpmpi run keeps for the next job (tools-entry/README.md, "What `run` does", 9), with
 * the real launchers: a job started again from its plan starts no JVM (the JVM of a planning run says
 * "Picked up JAVA_TOOL_OPTIONS", which the test sets) and is the same job; each thing a plan was made
 * from, changed, makes the next run plan anew (and the change is taken: a launcher put before the old
 * one on PATH runs); a plan that is not the user's own is not used; the launcher gets the shell's
 * descriptors and signals whichever way it starts.
 */
class PlansIT {
    /** What the launcher's JVM prints first when JAVA_TOOL_OPTIONS is set: a run that planned. */
    static final String PLANNED = "Picked up JAVA_TOOL_OPTIONS";

    /** One test's place: its working directory, its plans, its accounting records. */
    record Place(Path dir, Path cache, Path recordFile) {
        static Place make(String name) throws IOException {
            Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "plans-" + name + "-");
            return new Place(dir, dir.resolve("cache"), dir.resolve("records"));
        }

        Path plans() {
            return cache.resolve("jpmpi/plans");
        }

        Map<String, String> env() {
            Map<String, String> e = new HashMap<>();
            e.put("XDG_CACHE_HOME", cache.toString());
            e.put("JAVA_TOOL_OPTIONS", "-Djpmpi.test.planned=1");
            e.put("JPMPI_ACCOUNTING_FILE", recordFile.toString());
            return e;
        }

        int records() throws IOException {
            return Files.exists(recordFile) ? Files.readAllLines(recordFile).size() : 0;
        }
    }

    record Ran(int exit, String out, String err) {
        boolean planned() {
            return err.contains(PLANNED);
        }

        String describe() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** bin/jpmpi ARGS in {@code place}'s directory with its environment and {@code more}. */
    static Ran jpmpi(Place place, Map<String, String> more, Consumer<Map<String, String>> edit, List<String> args)
            throws IOException, InterruptedException {
        Map<String, String> env = place.env();
        env.putAll(more);
        ProcessBuilder pb = Jpmpi.builder(Jpmpi.HOME.resolve("bin/jpmpi"), env, args).directory(place.dir().toFile());
        edit.accept(pb.environment());
        Path out = Files.createTempFile(place.dir(), "out-", ".txt");
        Path err = Files.createTempFile(place.dir(), "err-", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor();
        }
        return new Ran(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    static Ran jpmpi(Place place, List<String> args) throws IOException, InterruptedException {
        return jpmpi(place, Map.of(), e -> { }, args);
    }

    /** run --tools accounting -- LAUNCHER 2 ranks exitcode CODE. */
    static List<String> exitcode(Impl impl, String code) {
        return LauncherIT.run(List.of("--tools", "accounting"), impl, 2, "exitcode", code);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void theSecondJobStartsFromThePlanOfTheFirstWithoutAJvm(Impl impl) throws Exception {
        Place place = Place.make("again");
        Ran first = jpmpi(place, exitcode(impl, "0"));
        assertEquals(0, first.exit(), first::describe);
        assertTrue(first.planned(), first::describe);
        List<Path> kept = list(place.plans());
        assertEquals(1, kept.size(), () -> "one plan kept: " + kept);
        assertEquals("rwx------", mode(place.plans()));
        assertEquals("rw-------", mode(kept.get(0)));
        // the program's own arguments are not the plan's: another exit status, from the plan
        Ran second = jpmpi(place, exitcode(impl, "3"));
        assertEquals(3, second.exit(), second::describe);
        assertFalse(second.planned(), () -> "started from the plan, no JVM: " + second.describe());
        Ran third = jpmpi(place, exitcode(impl, "0"));
        assertEquals(0, third.exit(), third::describe);
        assertFalse(third.planned(), third::describe);
        // the tool was in every rank of every job: one record per job
        assertEquals(3, place.records(), () -> "records: " + read(place.recordFile()));
        // nothing planned: off
        Ran off = jpmpi(place, Map.of("JPMPI_LAUNCHER_PLANS", "off"), e -> { }, exitcode(impl, "0"));
        assertTrue(off.planned(), off::describe);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void eachThingAPlanWasMadeFromChangedPlansAnew(Impl impl) throws Exception {
        Place place = Place.make("changed");
        List<String> job = exitcode(impl, "0");
        Path earlier = Files.createDirectories(place.dir().resolve("earlier-bin"));
        Map<String, String> path = Map.of("PATH", earlier + ":" + System.getenv("PATH"));
        assertTrue(jpmpi(place, path, e -> { }, job).planned());
        assertFalse(jpmpi(place, path, e -> { }, job).planned(), "kept");

        // a variable the planning read (one the ranks get)
        Ran sampling = jpmpi(place, Map.of("PATH", path.get("PATH"), "JPMPI_ACCOUNTING_SAMPLING", "5"), e -> { }, job);
        assertTrue(sampling.planned(), sampling::describe);
        assertTrue(jpmpi(place, path, e -> { }, job).planned(), "and back");
        assertFalse(jpmpi(place, path, e -> { }, job).planned());

        // the program rewritten (its copy, run by that name)
        Path program = place.dir().resolve("exitcode");
        Files.copy(Path.of(impl.file("exitcode")), program, StandardCopyOption.COPY_ATTRIBUTES);
        List<String> copy = new ArrayList<>(job);
        copy.set(copy.size() - 2, program.toString());
        assertTrue(jpmpi(place, path, e -> { }, copy).planned());
        assertFalse(jpmpi(place, path, e -> { }, copy).planned());
        Files.copy(Path.of(impl.file("exitcode")), program, StandardCopyOption.REPLACE_EXISTING);
        Ran rewritten = jpmpi(place, path, e -> { }, copy);
        assertTrue(rewritten.planned(), rewritten::describe);

        // another working directory: not a thing the plan of a program named by its absolute path is made
        // from (a batch job in a fresh directory starts from it); of one named ./exitcode, it is
        Place elsewhere = new Place(Files.createDirectories(place.dir().resolve("sub")), place.cache(), place.recordFile());
        assertFalse(jpmpi(elsewhere, path, e -> { }, copy).planned(), "the absolute path's plan");
        List<String> relative = new ArrayList<>(job);
        relative.set(relative.size() - 2, "./exitcode");
        assertTrue(jpmpi(place, path, e -> { }, relative).planned());
        assertFalse(jpmpi(place, path, e -> { }, relative).planned());
        Files.copy(program, elsewhere.dir().resolve("exitcode"), StandardCopyOption.COPY_ATTRIBUTES);
        assertTrue(jpmpi(elsewhere, path, e -> { }, relative).planned(), "./exitcode elsewhere");
        assertFalse(jpmpi(elsewhere, path, e -> { }, relative).planned());

        // the program replaced by one that is not an MPI program: refused, as without a plan
        Files.copy(Path.of("/bin/true"), program, StandardCopyOption.REPLACE_EXISTING);
        Ran notMpi = jpmpi(place, path, e -> { }, copy);
        assertTrue(notMpi.planned(), notMpi::describe);
        assertEquals(ExitCode.NOT_MPI.code, notMpi.exit(), notMpi::describe);

        // a launcher of the same name put on PATH before the one planned with: it is the one that runs
        String name = LauncherIT.launcher(impl, 2).get(0);
        Path marker = place.dir().resolve("earlier-launcher-ran");
        Path wrapper = earlier.resolve(name);
        Files.writeString(wrapper, "#!/bin/sh\n[ \"$1\" = --version ] || : >'" + marker + "'\nexec '"
                + LauncherIT.onPath(name) + "' \"$@\"\n");
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
        Ran other = jpmpi(place, path, e -> { }, job);
        assertEquals(0, other.exit(), other::describe);
        assertTrue(other.planned(), other::describe);
        assertTrue(Files.exists(marker), "the launcher first on PATH ran");

        // a second context of programs after the planned program's words: planned, and both run
        List<String> mpmd = new ArrayList<>(job);
        mpmd.addAll(List.of(":", impl == Impl.OPENMPI ? "-np" : "-n", "1", impl.file("exitcode"), "0"));
        int before = elsewhere.records();
        Ran two = jpmpi(elsewhere, mpmd);
        assertEquals(0, two.exit(), two::describe);
        assertTrue(two.planned(), two::describe);
        assertEquals(before + 1, elsewhere.records());
    }

    /**
     * What the planning asked other programs is part of the plan: a program whose MPI only the dynamic
     * loader tells (it links MPI through a library of its own), a C tool of the user's (the loader's
     * answer for its dependencies, the places on LD_LIBRARY_PATH it was not). Each start from the plan
     * asks again: what the loader says changed, the JVM plans anew.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void whatThePlanningAskedIsAskedAgain(Impl impl) throws Exception {
        Place place = Place.make("asked");
        Path libs = Files.createDirectories(place.dir().resolve("libs"));
        Path first = Files.createDirectories(place.dir().resolve("first"));
        Files.writeString(place.dir().resolve("via.c"), "#include <mpi.h>\n"
                + "int via(int *argc, char ***argv) { MPI_Init(argc, argv); MPI_Barrier(MPI_COMM_WORLD);"
                + " return MPI_Finalize(); }\n");
        Files.writeString(place.dir().resolve("novia.c"), "int via(int *argc, char ***argv) { (void)argc; (void)argv;"
                + " return 0; }\n");
        Files.writeString(place.dir().resolve("main.c"), "int via(int *, char ***);\n"
                + "int main(int argc, char **argv) { return via(&argc, &argv); }\n");
        cc(place, impl.cc, "-shared", "-fPIC", "-o", libs.resolve("libvia.so").toString(), "via.c");
        cc(place, "cc", "-o", "indirect", "main.c", "-L" + libs, "-lvia", "-Wl,-rpath," + libs);
        Files.copy(Path.of(impl.file("libcount.so")), libs.resolve("libmine.so"));
        // LD_LIBRARY_PATH: first (empty), then libs, where the tool is
        Map<String, String> env = Map.of("LD_LIBRARY_PATH", first + ":" + libs);
        List<String> job = new ArrayList<>(List.of("run", "--tools", "accounting,libmine.so", "--"));
        job.addAll(LauncherIT.launcher(impl, 2));
        job.add(place.dir().resolve("indirect").toString());
        Ran planned = jpmpi(place, env, e -> { }, job);
        assertEquals(0, planned.exit(), planned::describe);
        assertTrue(planned.planned(), planned::describe);
        assertTrue(planned.out().contains("MPI_Barrier=1"), () -> "the user's tool counted: " + planned.describe());
        Ran again = jpmpi(place, env, e -> { }, job);
        assertEquals(0, again.exit(), again::describe);
        assertFalse(again.planned(), () -> "from the plan: " + again.describe());
        assertTrue(again.out().contains("MPI_Barrier=1"), again::describe);
        assertEquals(2, place.records());

        // a library of the same name where the loader looks first: its MPI is gone, and the run says so
        cc(place, "cc", "-shared", "-fPIC", "-o", first.resolve("libvia.so").toString(), "novia.c");
        Ran notMpi = jpmpi(place, env, e -> { }, job);
        assertTrue(notMpi.planned(), notMpi::describe);
        assertEquals(ExitCode.NOT_MPI.code, notMpi.exit(), notMpi::describe);
        // gone again: the loader says what it said for the plan, which holds again (a refused run keeps none)
        Files.delete(first.resolve("libvia.so"));
        Ran back = jpmpi(place, env, e -> { }, job);
        assertEquals(0, back.exit(), back::describe);
        assertFalse(back.planned(), back::describe);

        // a tool of the same name on LD_LIBRARY_PATH before the planned one's: it is the one taken (and refused)
        Files.copy(Path.of(impl.file("libneedsgone.so")), first.resolve("libmine.so"));
        Ran refused = jpmpi(place, env, e -> { }, job);
        assertTrue(refused.planned(), refused::describe);
        assertEquals(ExitCode.BAD_ENTRY.code, refused.exit(), refused::describe);
        assertTrue(refused.err().contains("libmine.so"), refused::describe);
        assertEquals(3, place.records(), "no job of a refused run");
    }

    /**
     * A job whose programs the command line does not name alone (an appfile or configfile, MPMD
     * contexts) keeps a plan of its whole command line, with the file its programs are read from:
     * the same command line starts from it; the file edited, the next run plans anew and runs what
     * the file says now. (Open MPI takes a context's --oversubscribe nowhere in an appfile: two contexts.)
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void anAppfileOrMpmdJobStartsFromAPlanOfItsWholeCommandLine(Impl impl) throws Exception {
        Place place = Place.make("whole");
        String n = impl == Impl.OPENMPI ? "-np" : "-n";
        Path file = place.dir().resolve("contexts");
        Files.writeString(file, n + " 1 " + impl.file("exitcode") + " 0\n" + n + " 1 " + impl.file("exitcode") + " 0\n");
        List<String> job = new ArrayList<>(List.of("run", "--tools", "accounting," + impl.file("libcount.so"), "--"));
        job.addAll(impl == Impl.OPENMPI ? List.of("mpirun", "--app", "contexts") : List.of("mpiexec.hydra", "-configfile",
                "contexts"));
        Ran first = jpmpi(place, job);
        assertEquals(0, first.exit(), first::describe);
        assertTrue(first.planned(), first::describe);
        Ran second = jpmpi(place, job);
        assertEquals(0, second.exit(), second::describe);
        assertFalse(second.planned(), () -> "from the plan: " + second.describe());
        assertEquals(2, second.out().lines().filter(l -> l.startsWith("count count rank ")).count(), second::describe);
        // the file edited (its programs' arguments): planned anew, and what it says now runs
        Files.writeString(file, n + " 1 " + impl.file("exitcode") + " 3\n" + n + " 1 " + impl.file("exitcode") + " 3\n");
        Ran third = jpmpi(place, job);
        assertEquals(3, third.exit(), third::describe);
        assertTrue(third.planned(), third::describe);
        assertEquals(2, third.out().lines().filter(l -> l.startsWith("count count rank ")).count(), third::describe);
        Ran fourth = jpmpi(place, job);
        assertEquals(3, fourth.exit(), fourth::describe);
        assertFalse(fourth.planned(), fourth::describe);
        assertEquals(4, place.records());
        // MPMD contexts on the command line: the same words start from their plan
        List<String> mpmd = new ArrayList<>(LauncherIT.run(List.of("--tools", "accounting"), impl, 1, "exitcode", "0"));
        mpmd.addAll(List.of(":", n, "1", impl.file("exitcode"), "0"));
        assertTrue(jpmpi(place, mpmd).planned());
        Ran again = jpmpi(place, mpmd);
        assertEquals(0, again.exit(), again::describe);
        assertFalse(again.planned(), again::describe);
        assertEquals(6, place.records());
    }

    /**
     * A site's mpirun that is a script choosing its MPI by a variable jpmpi does not know: the
     * launcher's --version, asked while planning, is asked again from the plan, so a job never starts
     * with the dispatcher of the MPI the variable no longer picks.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void aLauncherScriptThatChoosesItsMpiIsAskedAgain(Impl impl) throws Exception {
        Impl other = impl == Impl.OPENMPI ? Impl.MPICH : Impl.OPENMPI;
        org.junit.jupiter.api.Assumptions.assumeTrue(other.installed() && impl.installed(), "both MPIs");
        Place place = Place.make("script");
        Path bin = Files.createDirectories(place.dir().resolve("bin"));
        Path script = bin.resolve("mpirun");
        Files.writeString(script, "#!/bin/sh\ncase \"$SITE_MPI\" in\n"
                + "  mpich) exec '" + LauncherIT.onPath("mpiexec.hydra") + "' \"$@\" ;;\n"
                + "  *) exec '" + LauncherIT.onPath("mpirun.openmpi") + "' \"$@\" ;;\nesac\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> job = new ArrayList<>(List.of("run", "--tools", "accounting", "--", "mpirun", "-np", "2"));
        job.add(impl.file("exitcode"));
        job.add("0");
        Map<String, String> mine = Map.of("PATH", bin + ":" + System.getenv("PATH"), "SITE_MPI", impl.id);
        Ran first = jpmpi(place, mine, e -> { }, job);
        assertEquals(0, first.exit(), first::describe);
        assertTrue(first.planned(), first::describe);
        Ran second = jpmpi(place, mine, e -> { }, job);
        assertEquals(0, second.exit(), second::describe);
        assertFalse(second.planned(), second::describe);
        assertEquals(2, place.records());
        // the script now runs the other MPI's launcher: planned anew, as without a plan
        Map<String, String> switched = Map.of("PATH", bin + ":" + System.getenv("PATH"), "SITE_MPI", other.id);
        Ran third = jpmpi(place, switched, e -> { }, job);
        assertTrue(third.planned(), third::describe);
        Ran plain = jpmpi(place, Map.of("JPMPI_LAUNCHER_PLANS", "off", "PATH", bin + ":" + System.getenv("PATH"),
                "SITE_MPI", other.id), e -> { }, job);
        assertEquals(plain.exit(), third.exit(), () -> third.describe() + "\nwithout plans:\n" + plain.describe());
        assertEquals(jpmpiLines(plain.err()), jpmpiLines(third.err()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void aPlanThatIsNotTheUsersOwnIsNotUsed(Impl impl) throws Exception {
        Place place = Place.make("own");
        List<String> job = exitcode(impl, "0");
        assertTrue(jpmpi(place, job).planned());
        Path plan = list(place.plans()).get(0);
        assertFalse(jpmpi(place, job).planned());
        Ran doctor = jpmpi(place, List.of("doctor", "--no-smoke", "--mpi", impl.id));
        assertTrue(doctor.out().contains("ok    plans of earlier jobs (jpmpi run without profile starts a job again without"
                + " its JVM): 1 kept in " + place.plans() + "\n"), doctor::describe);
        // writable by others: not used, and replaced by the run's own
        Files.setPosixFilePermissions(plan, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertTrue(jpmpi(place, job).planned());
        assertEquals("rw-------", mode(list(place.plans()).get(0)));
        assertFalse(jpmpi(place, job).planned());
        // a symbolic link to a plan: not followed
        Path real = place.dir().resolve("elsewhere.plan");
        Files.move(plan, real);
        Files.createSymbolicLink(plan, real);
        assertTrue(jpmpi(place, job).planned());
        // the plans' directory writable by others: not used, not written into; the job runs
        Files.setPosixFilePermissions(place.plans(), PosixFilePermissions.fromString("rwxrwxrwx"));
        Ran open = jpmpi(place, job);
        assertEquals(0, open.exit(), open::describe);
        assertTrue(open.planned(), open::describe);
        assertTrue(jpmpi(place, job).planned(), "still not used");
        Ran warned = jpmpi(place, List.of("doctor", "--no-smoke", "--mpi", impl.id));
        assertTrue(warned.out().lines().anyMatch(l -> l.startsWith("warn  plans of earlier jobs") && l.contains(
                place.plans() + " is writable by other users") && l.contains("(none there is used or kept)")),
                warned::describe);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void whatThePlanningSaidIsSaidAgain(Impl impl) throws Exception {
        Place place = Place.make("said");
        // as root without Open MPI's two variables: jpmpi sets them and says so (MPICH: nothing said)
        Consumer<Map<String, String>> noAllowance = e -> {
            e.remove("OMPI_ALLOW_RUN_AS_ROOT");
            e.remove("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM");
        };
        List<String> job = LauncherIT.run(List.of(), impl, 2, "exitcode", "0");
        Ran first = jpmpi(place, Map.of(), noAllowance, job);
        Ran second = jpmpi(place, Map.of(), noAllowance, job);
        assertEquals(0, first.exit(), first::describe);
        assertEquals(0, second.exit(), second::describe);
        assertTrue(first.planned() && !second.planned(), second::describe);
        assertEquals(jpmpiLines(first.err()), jpmpiLines(second.err()));
        assertTrue(jpmpiLines(second.err()).stream().anyMatch(l -> l.contains("no tools listed")), second::describe);
    }

    /** The launcher's descriptors and signals, without jpmpi, through a run that plans, from the plan. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void theLauncherGetsTheShellsDescriptorsEitherWay(Impl impl) throws Exception {
        Place place = Place.make("state");
        Path bin = Files.createDirectories(place.dir().resolve("bin"));
        String name = impl == Impl.OPENMPI ? "orterun" : "mpiexec.hydra"; // (names that need no --version)
        Path notes = place.dir().resolve("notes");
        Path script = bin.resolve(name);
        Files.writeString(script, "#!/bin/sh\n"
                + "while read -r k v; do case $k in SigBlk:|SigIgn:) echo \"$k $v\";; esac; done </proc/self/status >>'"
                + notes + "'\n"
                + "fds=''; for f in /proc/self/fd/*; do fds=\"$fds ${f##*/}\"; done; echo \"$fds\" >>'" + notes + "'\n"
                + "exec '" + LauncherIT.onPath(name) + "' \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> launcher = new ArrayList<>(LauncherIT.launcher(impl, 2));
        launcher.set(0, name);
        List<String> plain = new ArrayList<>(launcher);
        plain.addAll(List.of(impl.file("exitcode"), "0"));
        List<String> run = new ArrayList<>(List.of("run", "--tools", "accounting", "--"));
        run.addAll(plain);
        // descriptor 3 open (3>file) and SIGPIPE ignored, as a service's children are
        List<String> shell = List.of("env", "--ignore-signal=PIPE", "sh", "-c", "exec \"$@\" 3>>'"
                + place.dir().resolve("three") + "'", "sh");
        Map<String, String> env = place.env();
        env.put("PATH", bin + ":" + System.getenv("PATH"));
        List<List<String>> commands = new ArrayList<>();
        commands.add(plain);
        List<String> jpmpi = new ArrayList<>(List.of(Jpmpi.HOME.resolve("bin/jpmpi").toString()));
        jpmpi.addAll(run);
        commands.add(jpmpi);
        commands.add(jpmpi);
        List<Boolean> planned = new ArrayList<>();
        for (List<String> c : commands) {
            List<String> all = new ArrayList<>(shell);
            all.addAll(c);
            ProcessBuilder pb = Jpmpi.builder(Path.of(all.get(0)), env, all.subList(1, all.size()))
                    .directory(place.dir().toFile());
            Path err = place.dir().resolve("err.txt");
            Process p = pb.redirectOutput(place.dir().resolve("out.txt").toFile()).redirectError(err.toFile()).start();
            assertTrue(p.waitFor(3, TimeUnit.MINUTES));
            assertEquals(0, p.exitValue(), () -> all + "\n" + read(err));
            planned.add(read(err).contains(PLANNED));
        }
        assertEquals(List.of(false, true, false), planned, "plain, planned, from the plan");
        List<String> lines = Files.readAllLines(notes);
        assertEquals(9, lines.size(), () -> "the launcher started three times: " + lines);
        List<String> without = LauncherIT.state(lines.subList(0, 3));
        assertTrue(without.get(2).contains(" 3"), () -> "descriptor 3 open: " + without);
        assertEquals(without, LauncherIT.state(lines.subList(3, 6)), "without jpmpi, then through jpmpi run");
        assertEquals(without, LauncherIT.state(lines.subList(6, 9)), "without jpmpi, then from the plan");
    }

    /** Compiles in {@code place}'s directory. */
    private static void cc(Place place, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(place.dir().toFile()).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(2, TimeUnit.MINUTES));
        assertEquals(0, p.exitValue(), () -> String.join(" ", command) + "\n" + said);
    }

    private static List<String> jpmpiLines(String err) {
        return err.lines().filter(l -> l.startsWith("jpmpi: ")).toList();
    }

    private static List<Path> list(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".plan")).toList();
        }
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, java.nio.file.LinkOption.NOFOLLOW_LINKS));
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return e.toString();
        }
    }
}
