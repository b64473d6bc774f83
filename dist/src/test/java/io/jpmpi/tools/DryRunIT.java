package io.jpmpi.tools;

import static io.jpmpi.tools.CommandLineTest.dispatcher;
import static io.jpmpi.tools.CommandLineTest.javaCounter;
import static io.jpmpi.tools.CommandLineTest.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.BadFiles;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher commands `jpmpi run --dry-run` builds, in process (picocli), from the development
 * installation (dist/target/jpmpi-VERSION): the dispatchers, the Java runtime, the tools' levels
 * (detection is real: the installed launchers and test-support's programs); what needs the
 * installation's files (a Java level's jar) besides.
 */
class DryRunIT {
    private static final String OMPI_PINGPONG = Impl.OPENMPI.file("pingpong");
    private static final String MPICH_PINGPONG = Impl.MPICH.file("pingpong");

    @Test
    void openMpiGetsDashXBeforeTheProgram() {
        Cli r = Cli.run("run", "--dry-run", "--tools", javaCounter(), "--", "mpirun", "-np", "2", OMPI_PINGPONG, "7");
        assertEquals(0, r.exit(), r::describe);
        List<String> words = List.of(r.out().trim().split(" "));
        assertEquals("mpirun", words.get(0));
        int program = words.indexOf(OMPI_PINGPONG);
        assertEquals(List.of("-np", "2", OMPI_PINGPONG, "7"), words.subList(program - 2, words.size()), r::describe);
        // no libjsig.so: the dispatcher keeps the program's crash handlers apart from the JVM's itself
        assertTrue(words.contains("LD_PRELOAD=" + dispatcher(Impl.OPENMPI)), r::describe);
        assertTrue(words.contains("JPMPI_TOOLS_ENTRY=" + javaCounter()), r::describe);
        assertTrue(words.contains("JAVA_HOME=" + System.getProperty("java.home")), r::describe);
        // the dispatcher finds the Java runtime in its installation
        assertFalse(words.stream().anyMatch(w -> w.startsWith("JPMPI_JAVA_CLASSPATH=")), r::describe);
        for (int i = 1; i < program - 2; i += 2) {
            assertEquals("-x", words.get(i), r::describe);
        }
    }

    @Test
    void hydraGetsGenvAndCToolsNeedNoJava() {
        String tool = Path.of(Impl.MPICH.file("libcount.so")).normalize().toString();
        Cli r = Cli.run("run", "--dry-run", "--tools", tool + ",preload", "--output", "out-dir", "--",
                "mpiexec.hydra", "-n", "2", MPICH_PINGPONG);
        assertEquals(0, r.exit(), r::describe);
        String line = r.out().trim();
        assertTrue(line.startsWith("mpiexec.hydra -genv "), line);
        assertTrue(line.contains("-genv LD_PRELOAD " + dispatcher(Impl.MPICH) + ":" + tool + " "), line);
        assertTrue(line.contains("-genv JPMPI_TOOLS_ENTRY " + tool + ",preload "), line);
        assertTrue(line.contains("-genv JPMPI_OUTPUT_DIR " + Path.of("out-dir").toAbsolutePath() + " "), line);
        assertFalse(line.contains("libjsig") || line.contains("JAVA_HOME"), line);
        assertTrue(line.endsWith("-n 2 " + MPICH_PINGPONG), line);
    }

    /**
     * python3 with mpi4py links no MPI: the launcher asks the interpreter where mpi4py's module is,
     * reads which MPI that links (Debian's: Open MPI), says so in one line and runs the job with it,
     * without --no-app-check.
     */
    @Test
    void pythonWithMpi4pyIsTakenForItsMpi() {
        Path python = Path.of("/usr/bin/python3");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(python), "no " + python);
        Cli hydra = Cli.run("run", "--dry-run", "--tools", "profile", "--output", "out-dir", "--", "mpiexec.hydra", "-n",
                "2", python.toString(), "script.py");
        assertEquals(69, hydra.exit(), () -> "hydra belongs to MPICH, mpi4py to Open MPI\n" + hydra.describe());
        Cli r = Cli.run("run", "--dry-run", "--tools", "profile", "--output", "out-dir", "--", "mpirun", "-np", "2",
                python.toString(), "script.py");
        assertEquals(0, r.exit(), r::describe);
        assertTrue(r.err().contains("jpmpi: " + python + " loads MPI at run time: assuming Open MPI, the MPI that"
                + " mpi4py's module links (/usr/lib/python3/dist-packages/mpi4py/MPI."), r::describe);
        assertTrue(r.out().contains(" -x LD_PRELOAD=" + dispatcher(Impl.OPENMPI) + " "), r::describe);
    }

    /** --tools accounting: the recorder and the accounting level, both C: nothing of Java reaches the ranks. */
    @Test
    void accountingAloneNeedsNoJava() {
        Layout layout = Layout.current();
        MpiImpl impl = MpiImpl.byId(Impl.OPENMPI.id).orElseThrow();
        Cli r = Cli.run("run", "--dry-run", "--tools", "accounting", "--", "mpirun", "-np", "2", OMPI_PINGPONG);
        assertEquals(0, r.exit(), r::describe);
        String line = r.out().trim();
        assertTrue(line.contains(" -x JPMPI_TOOLS_ENTRY=" + layout.accountingLevel(impl) + " "), line);
        assertTrue(line.contains(" -x LD_PRELOAD=" + dispatcher(Impl.OPENMPI) + " "), line);
        assertFalse(line.contains("libjsig") || line.contains("JAVA_HOME") || line.contains("JPMPI_JAVA_")
                || line.contains("JPMPI_OUTPUT_DIR"), line);
    }

    @Test
    void srunGetsExportAllAndListsWithCommasInItsOwnEnvironment(@TempDir Path dir) throws Exception {
        // No Slurm here: a stand-in named srun is enough, the MPI comes from the program.
        Path srun = dir.resolve("srun");
        Files.writeString(srun, "#!/bin/sh\nexit 0\n");
        Files.setPosixFilePermissions(srun, PosixFilePermissions.fromString("rwxr-xr-x"));
        String tool = Path.of(Impl.OPENMPI.file("libcount.so")).normalize().toString();
        String list = "v," + tool;
        Job job = Job.plan(Layout.current(), new Job.Request(List.of(srun.toString(), "-n", "2", OMPI_PINGPONG),
                list, null, java.util.Optional.empty(), true), System.getenv());
        assertEquals(MpiRun.Impl.OPENMPI.id, job.impl().id());
        assertEquals(List.of(srun.toString(), "--export=ALL,LD_PRELOAD=" + dispatcher(Impl.OPENMPI), "--disable-status",
                "-n", "2", OMPI_PINGPONG), job.command());
        assertEquals(Map.of("JPMPI_TOOLS_ENTRY", list), job.launcherEnv());
        // A user's own --export: jpmpi's variables joined into it, in its place (a comma value by name, from
        // srun's environment); the program's own arguments are the program's.
        for (List<String> theirs : List.of(List.of("--export=NONE,HOME"), List.of("--export", "NONE,HOME"))) {
            List<String> command = new ArrayList<>(List.of(srun.toString(), "-n", "2"));
            command.addAll(theirs);
            command.addAll(List.of("--label", OMPI_PINGPONG, "--export=mine"));
            Job merged = Job.plan(Layout.current(), new Job.Request(command, list, null, java.util.Optional.empty(),
                    true), System.getenv());
            assertEquals(List.of(srun.toString(), "--disable-status", "-n", "2", "--export=HOME,LD_PRELOAD="
                    + dispatcher(Impl.OPENMPI)
                    + ",JPMPI_TOOLS_ENTRY", "--label", OMPI_PINGPONG, "--export=mine"), merged.command());
            assertEquals(Map.of("JPMPI_TOOLS_ENTRY", list), merged.launcherEnv());
        }
        // srun's --export=ALL gives the tasks srun's own value of a variable over the list's: the user's
        // LD_PRELOAD is unset for srun (the list's holds it, after the dispatcher); a variable of ours that
        // srun's environment has with another value goes through srun's environment, which ALL passes
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("LD_PRELOAD", "/lib/x86_64-linux-gnu/libm.so.6");
        env.put("JPMPI_TOOLS_ENTRY", "profile");
        Job theirs = Job.plan(Layout.current(), new Job.Request(List.of(srun.toString(), "-n", "2", OMPI_PINGPONG),
                "accounting", null, java.util.Optional.empty(), true), env);
        assertEquals(List.of(srun.toString(), "--export=ALL,LD_PRELOAD=" + dispatcher(Impl.OPENMPI)
                + ":/lib/x86_64-linux-gnu/libm.so.6", "--disable-status", "-n", "2", OMPI_PINGPONG), theirs.command());
        Map<String, String> own = new HashMap<>();
        own.put("LD_PRELOAD", null);
        own.put("JPMPI_TOOLS_ENTRY", Layout.current().accountingLevel(MpiImpl.byId("openmpi").orElseThrow()).toString());
        assertEquals(own, theirs.launcherEnv());
    }

    @Test
    void theRanksJdkMustBeRecentEnoughForJavaLevels() {
        String jar = javaCounter();
        refused(Cli.run(Map.of("JPMPI_JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64"), "run", "--tools", jar,
                "--", "mpirun", OMPI_PINGPONG), ExitCode.NO_JDK, "JDK 17");
    }

    @Test
    void functionsListsTheSpecAndWhatAJarOverrides() {
        Cli all = Cli.run("functions", "--category", "p2p-blocking");
        assertEquals(0, all.exit(), all::describe);
        assertTrue(all.out().lines().anyMatch(l -> l.matches("MPI_Send +p2p-blocking +mpich,openmpi")), all::describe);
        assertTrue(all.out().lines().noneMatch(l -> l.startsWith("MPI_Bcast ")), all::describe);
        Cli jar = Cli.run("functions", "--jar", javaCounter());
        assertEquals(0, jar.exit(), jar::describe);
        List<String> names = jar.out().lines().filter(l -> l.startsWith("MPI_")).map(l -> l.split(" +")[0]).toList();
        assertEquals(List.of("MPI_Allreduce", "MPI_Barrier", "MPI_Bcast", "MPI_Irecv", "MPI_Isend", "MPI_Pcontrol",
                "MPI_Recv", "MPI_Reduce", "MPI_Send"), names.stream().sorted().toList(), jar::describe);
        assertTrue(jar.out().contains("lifecycle: CallCounter.afterInit, CallCounter.beforeFinalize"), jar::describe);
        refused(Cli.run("functions", "--jar", "/nonexistent.jar"), ExitCode.BAD_ENTRY, "no such file");
    }

    @Test
    void entriesThatDoNotResolve(@TempDir Path dir) throws IOException {
        refused(Cli.run("run", "--tools", "/nonexistent/tool.jar", "--", "mpirun", OMPI_PINGPONG), ExitCode.BAD_ENTRY,
                "item 1 '/nonexistent/tool.jar'", "no such file");
        refused(Cli.run("run", "--tools", "v,nosuchtool", "--", "mpirun", OMPI_PINGPONG), ExitCode.BAD_ENTRY,
                "item 2 'nosuchtool'", "libnosuchtool.so");
        Path empty = dir.resolve("empty.jar");
        try (var zip = new java.util.zip.ZipOutputStream(Files.newOutputStream(empty))) {
            zip.putNextEntry(new java.util.zip.ZipEntry("README"));
        }
        refused(Cli.run("run", "--tools", empty.toString(), "--", "mpirun", OMPI_PINGPONG), ExitCode.BAD_ENTRY,
                "has no interceptor");
        refused(Cli.run("run", "--tools", "/bin/true", "--", "mpirun", OMPI_PINGPONG), ExitCode.BAD_ENTRY,
                "defines no MPI_ function");
        refused(Cli.run("run", "--tools", "v,,vv", "--", "mpirun", OMPI_PINGPONG), ExitCode.BAD_ENTRY, "item 2 is empty");
        // From the environment too, when --tools is not given.
        refused(Cli.run(Map.of("JPMPI_TOOLS_ENTRY", "/nonexistent/x.so"), "run", "--", "mpirun", OMPI_PINGPONG),
                ExitCode.BAD_ENTRY, "'/nonexistent/x.so'");
    }

    /**
     * A C tool that cannot work in the job is refused before anything starts, in the dispatcher's
     * words (native-stubs' BadEntryIT): one line naming the item, status 67, no launcher run.
     */
    @Test
    void cToolsThatCannotWorkInTheJob(@TempDir Path dir) {
        Map<String, String> bad = Map.of(
                BadFiles.directory(dir.resolve("dir.so")).toString(), "is a directory",
                BadFiles.text(dir.resolve("libtext.so")).toString(), "is not an ELF shared library (no ELF header)",
                BadFiles.fifo(dir.resolve("libfifo.so")).toString(), "is not a regular file",
                BadFiles.foreignLibrary(dir.resolve("libarm.so"), BadFiles.AARCH64, true).toString(),
                "is an ELF for aarch64, not x86-64",
                BadFiles.foreignLibrary(dir.resolve("lib386.so"), BadFiles.I386, false).toString(),
                "is an ELF for i386, not x86-64",
                Impl.OPENMPI.file("libneedsgone.so"),
                "needs libjpmpigone.so, which the dynamic loader does not find (LD_LIBRARY_PATH, the linker cache)");
        bad.forEach((tool, why) -> refused(Cli.run("run", "--tools", "v," + tool, "--", "mpirun", OMPI_PINGPONG),
                ExitCode.BAD_ENTRY, "tool list item 2 '" + tool + "': " + why));
        // built with the other MPI's mpicc, both ways
        refused(Cli.run("run", "--tools", Impl.MPICH.file("libcount.so"), "--", "mpirun", "-np", "2", OMPI_PINGPONG),
                ExitCode.BAD_ENTRY, "item 1 '" + Impl.MPICH.file("libcount.so") + "': needs libmpich.so.12, another MPI"
                        + " library than the program's libmpi.so.40 (build the tool with Open MPI's mpicc)");
        refused(Cli.run("run", "--tools", Impl.OPENMPI.file("libcount.so"), "--", "mpiexec.hydra", "-n", "2",
                MPICH_PINGPONG), ExitCode.BAD_ENTRY, "item 1 '" + Impl.OPENMPI.file("libcount.so") + "': needs"
                        + " libmpi.so.40, another MPI library than the program's libmpich.so.12 (build the tool with"
                        + " MPICH's mpicc)");
    }

    /** The same library through a symbolic link is one level: refused as the dispatcher would. */
    @Test
    void theSameLibraryThroughALink(@TempDir Path dir) throws IOException {
        String count = Impl.OPENMPI.file("libcount.so");
        Path link = Files.createSymbolicLink(dir.resolve("libalias.so"), Path.of(count));
        refused(Cli.run("run", "--tools", count + "," + link, "--", "mpirun", OMPI_PINGPONG), ExitCode.BAD_ENTRY,
                "tool list item 2 '" + link + "': the same file as item 1");
    }

    /** Item 65 is refused by the launcher with the dispatcher's limit, which is jpmpi.h's. */
    @Test
    void moreLevelsThanTheDispatcherHolds(@TempDir Path dir) throws IOException {
        String header = Files.readString(Layout.current().home().resolve("include/jpmpi.h"));
        assertTrue(header.contains("#define JPMPI_MAX_LEVELS " + EntryList.MAX_LEVELS + "\n"), header);
        List<String> tools = new java.util.ArrayList<>();
        for (int i = 1; i <= EntryList.MAX_LEVELS + 1; i++) {
            tools.add(Files.copy(Path.of(Impl.OPENMPI.file("libcount.so")), dir.resolve("libc" + i + ".so")).toString());
        }
        refused(Cli.run("run", "--tools", String.join(",", tools), "--", "mpirun", OMPI_PINGPONG), ExitCode.BAD_ENTRY,
                "tool list item 65 '" + tools.get(64) + "': more than 64 levels (JPMPI_MAX_LEVELS)");
    }

    /**
     * A jar that cannot be a level, in the ranks' words (layering's BadJavaLevelIT): not a jar, a
     * directory, a class its services file lists that is not there or not an interceptor. A
     * constructor is never run here (JavaLevelFile says why): one that throws is the ranks' to report.
     */
    @Test
    void jarsThatCannotBeLevels(@TempDir Path dir) throws IOException {
        Map<String, String> bad = Map.of(
                BadFiles.text(dir.resolve("text.jar")).toString(), "not a readable jar (zip END header not found)",
                BadFiles.empty(dir.resolve("empty.jar")).toString(), "not a readable jar (zip file is empty)",
                BadFiles.directory(dir.resolve("dir.jar")).toString(), "is a directory",
                servicesOnly(dir.resolve("absent.jar"), "org.example.NotThere").toString(), "interceptor"
                        + " org.example.NotThere, listed in " + EntryList.SERVICES + ", is not in the jar",
                servicesOnly(dir.resolve("string.jar"), "java.lang.String").toString(), "interceptor java.lang.String"
                        + " is not a subclass of io.jpmpi.layering.Interceptor");
        bad.forEach((jar, why) -> refused(Cli.run("run", "--tools", jar, "--", "mpirun", OMPI_PINGPONG),
                ExitCode.BAD_ENTRY, "tool list item 1 '" + jar + "': " + why));
    }

    private static Path servicesOnly(Path jar, String className) throws IOException {
        try (var zip = new java.util.zip.ZipOutputStream(Files.newOutputStream(jar))) {
            zip.putNextEntry(new java.util.zip.ZipEntry(EntryList.SERVICES));
            zip.write((className + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        return jar;
    }

    /** A JAVA_HOME too old for jpmpi is passed over, and the launcher says so in one line. */
    @org.junit.jupiter.api.Test
    void anOldJavaHomeIsNotPassedOverSilently() throws IOException {
        java.util.Optional<java.nio.file.Path> old;
        try (var jdks = Files.list(java.nio.file.Path.of("/usr/lib/jvm"))) {
            old = jdks.filter(j -> Jdk.at(j).map(d -> d.major() < Jdk.MIN_MAJOR).orElse(false)).findFirst();
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(old.isPresent(), "no JDK older than " + Jdk.MIN_MAJOR
                + " in /usr/lib/jvm (apt-get install openjdk-17-jdk-headless)");
        Jpmpi.Result r = Jpmpi.run(java.util.Map.of("JAVA_HOME", old.get().toString()), java.util.List.of("--version"));
        assertEquals(0, r.exit(), r::describe);
        java.util.List<String> said = r.err().lines().filter(l -> l.startsWith("jpmpi: using JDK ")).toList();
        assertEquals(1, said.size(), r::describe);
        assertTrue(said.get(0).contains("JAVA_HOME=" + old.get()), r::describe);
    }
}
