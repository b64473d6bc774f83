package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.platform.InstallLayout;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The launcher as a new user meets it (issue 22), through bin/jpmpi and real jobs: root handled one
 * way by every subcommand and said in one line; no empty jpmpi-&lt;time&gt;/ left by a refused or failed
 * launch; {@code -V}; every built-in tool built by the normal build; a dispatcher outside an
 * installation names the class path to set.
 */
class FirstHourIT {
    private static final String ROOT_LINE = "jpmpi: running as root: OMPI_ALLOW_RUN_AS_ROOT=1"
            + " OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 set for Open MPI's mpirun, which refuses root otherwise";

    @Test
    void asRootRunSetsWhatOpenMpisMpirunNeedsAndSaysSoInOneLine() {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "not root: Open MPI runs anyway");
        Jpmpi.Result r = asUser(List.of("run", "--tools", "java-counter", "--", "mpirun", "-np",
                "2", Impl.OPENMPI.file("pingpong"), "2"));
        assertEquals(0, r.exit(), r::describe);
        assertEquals(1, r.err().lines().filter(ROOT_LINE::equals).count(), r::describe);
        assertEquals(2, r.err().lines().filter(l -> l.startsWith("count java-counter rank ")).count(), r::describe);

        // Set by the user: jpmpi sets and says nothing. MPICH does not ask.
        Jpmpi.Result own = Jpmpi.run(List.of("run", "--tools", "java-counter", "--", "mpirun", "-np", "2",
                Impl.OPENMPI.file("pingpong"), "2"));
        assertEquals(0, own.exit(), own::describe);
        assertFalse(own.err().contains("running as root"), own::describe);
        Jpmpi.Result mpich = asUser(List.of("run", "--tools", "java-counter", "--",
                "mpiexec.hydra", "-n", "2", Impl.MPICH.file("pingpong"), "2"));
        assertEquals(0, mpich.exit(), mpich::describe);
        assertFalse(mpich.err().contains("running as root"), mpich::describe);
    }

    /** A refused launch (not an MPI program) and a job whose ranks never start MPI leave no jpmpi-<time>/. */
    @Test
    void aFailedLaunchLeavesNoEmptyOutputDirectory() throws IOException {
        Jpmpi.Result refused = Jpmpi.run(List.of("run", "--tools", "profile", "--", "mpirun", "-np", "2", "/bin/true"));
        assertEquals(ExitCode.NOT_MPI.code, refused.exit(), refused::describe);
        assertEquals(List.of(), outputDirectories(refused.dir()), refused::describe);

        Jpmpi.Result failed = Jpmpi.run(List.of("run", "--no-app-check", "--mpi", "openmpi", "--tools", "profile", "--",
                "mpirun", "-np", "2", "/bin/false"));
        assertTrue(failed.exit() != 0, failed::describe);
        assertEquals(List.of(), outputDirectories(failed.dir()), failed::describe);
        assertTrue(failed.err().lines().anyMatch(l -> l.startsWith("jpmpi: no rank wrote into jpmpi-")
                && l.endsWith(": removed it")), failed::describe);

        // A job that did write keeps its directory.
        Jpmpi.Result ran = Jpmpi.run(List.of("run", "--tools", "profile", "--", "mpirun", "-np", "2",
                Impl.OPENMPI.file("pingpong"), "2"));
        assertEquals(0, ran.exit(), ran::describe);
        List<Path> kept = outputDirectories(ran.dir());
        assertEquals(1, kept.size(), ran::describe);
        assertTrue(Files.isRegularFile(kept.get(0).resolve("profile.json")), ran::describe);
    }

    @Test
    void versionSaysCommitBuildDateAndTheMpisBuiltFor() {
        Jpmpi.Result r = Jpmpi.run(List.of("-V"));
        assertEquals(0, r.exit(), r::describe);
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.get(0).matches("jpmpi \\S+ \\(commit [0-9a-f]{7,}(-dirty)?, built \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\dZ\\)"),
                r::describe);
        assertTrue(lines.get(1).matches("built for: Open MPI 4\\.\\S+ \\(libmpi\\.so\\.40, built with mpicc\\.openmpi\\),"
                + " MPICH 4\\.\\S+ \\(libmpich\\.so\\.12, built with mpicc\\.mpich\\)"), r::describe);
        assertEquals("installed in " + Jpmpi.HOME, lines.get(2), r::describe);
    }

    /** An installation made with install keeps what -V says of the build, and its module works from there. */
    @Test
    void anInstalledTreeKeepsItsVersionAndItsModule() throws IOException {
        Path prefix = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "installed-").resolve("jpmpi");
        Jpmpi.Result install = Jpmpi.run(List.of("install", "--prefix", prefix.toString(), "--no-aot"));
        assertEquals(0, install.exit(), install::describe);
        Jpmpi.Result built = Jpmpi.run(List.of("-V"));
        Jpmpi.Result installed = Jpmpi.run(prefix.resolve("bin/jpmpi"), Map.of(), List.of("-V"));
        assertEquals(0, installed.exit(), installed::describe);
        assertEquals(built.out().lines().limit(2).toList(), installed.out().lines().limit(2).toList(), installed::describe);
        assertEquals("installed in " + prefix.toRealPath(), installed.out().lines().skip(2).findFirst().orElse(""));

        ProcessBuilder pb = new ProcessBuilder("env", "-i", "HOME=" + System.getProperty("user.home"), "PATH=/usr/bin:/bin",
                "bash", "--norc", "--noprofile", "-c", "source /usr/share/modules/init/bash && module use " + prefix
                + "/share/modulefiles && module load jpmpi && command -v jpmpi && echo \"$LD_PRELOAD\"")
                .redirectErrorStream(true);
        String out;
        try {
            Process p = pb.start();
            out = new String(p.getInputStream().readAllBytes());
            assertEquals(0, p.waitFor(), out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        assertEquals(List.of(prefix.toRealPath().resolve("bin/jpmpi").toString(),
                prefix.toRealPath().resolve(InstallLayout.RANK_ENTRY).toString()), out.lines().toList(), out);
    }

    /** Every built-in tool is built by the normal build, for both MPIs (mpicount included). */
    @ParameterizedTest
    @ValueSource(strings = {"openmpi", "mpich"})
    void everyBuiltInToolIsBuilt(String id) {
        MpiImpl impl = MpiImpl.byId(id).orElseThrow();
        for (BuiltinTools.Tool t : BuiltinTools.all()) {
            assertTrue(t.locate(Layout.current(), impl).isPresent(), t.name() + " for " + id);
        }
    }

    /** A dispatcher copied out of the installation says which class path to set, with the value. */
    @Test
    void aDispatcherOutsideAnInstallationNamesTheClassPathToSet() throws IOException {
        Path lib = Files.createDirectories(Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "moved-")
                .resolve("lib/openmpi"));
        Path dispatcher = Files.copy(Jpmpi.HOME.resolve("lib/openmpi/libmpiprofilesupport.so"),
                lib.resolve("libmpiprofilesupport.so"));
        Files.copy(Jpmpi.HOME.resolve("lib/openmpi/libmpiprofilesupport-abi.so"), lib.resolve("libmpiprofilesupport-abi.so"));
        String jar = Jpmpi.HOME.resolve("share/jpmpi/java/tools/java-counter/jpmpi-java-counter.jar").toString();
        ProcessBuilder pb = new ProcessBuilder("mpirun", "-np", "1", "-x", "LD_PRELOAD=" + dispatcher, "-x",
                "JPMPI_TOOLS_ENTRY=" + jar, Impl.OPENMPI.file("pingpong"), "1").redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("JPMPI_"));
        pb.environment().putAll(Map.of("OMPI_ALLOW_RUN_AS_ROOT", "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1",
                "JAVA_HOME", System.getProperty("java.home")));
        String out;
        try {
            Process p = pb.start();
            out = new String(p.getInputStream().readAllBytes());
            p.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        assertTrue(out.contains("JPMPI_JAVA_CLASSPATH is not set and this dispatcher is not in a jpmpi installation"
                + " (no " + lib.getParent().getParent().resolve("share/jpmpi/java/runtime") + "); set JPMPI_JAVA_CLASSPATH="
                + "<prefix>/share/jpmpi/java/runtime/jpmpi-layering.jar:<prefix>/share/jpmpi/java/runtime/asm.jar,"
                + " <prefix> a jpmpi installation (jpmpi config prints the value)"), out);
    }

    /** bin/jpmpi as a user runs it: Open MPI's root variables not set (Jpmpi.builder sets them for the other tests). */
    private static Jpmpi.Result asUser(List<String> args) {
        try {
            Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "jpmpi-user-");
            ProcessBuilder pb = Jpmpi.builder(Jpmpi.HOME.resolve("bin/jpmpi"), Map.of(), args).directory(dir.toFile())
                    .redirectOutput(dir.resolve("stdout.txt").toFile()).redirectError(dir.resolve("stderr.txt").toFile());
            pb.environment().keySet().removeIf(k -> k.startsWith("OMPI_ALLOW_RUN_AS_ROOT"));
            int exit = pb.start().waitFor();
            return new Jpmpi.Result(exit, Files.readString(dir.resolve("stdout.txt")),
                    Files.readString(dir.resolve("stderr.txt")), dir);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static List<Path> outputDirectories(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> Files.isDirectory(p) && p.getFileName().toString().startsWith("jpmpi-")).toList();
        }
    }
}
