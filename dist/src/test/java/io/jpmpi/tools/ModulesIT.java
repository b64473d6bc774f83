package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.platform.InstallLayout;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code module load jpmpi} with MODULEPATH into the installation (share/modulefiles), in a clean
 * shell ({@code env -i}), under Environment Modules (Debian's environment-modules: the Tcl
 * modulefile) and Lmod (Debian's lmod, unpacked by scripts/lib.sh's jpmpi_lmod_init: the .lua): jpmpi
 * is on PATH, and the by-hand forms run the tools with nothing else set: {@code mpirun --mca
 * ompi_tools_entry java-counter,profile} (Open MPI) and {@code mpiexec.hydra -genv JPMPI_TOOLS_ENTRY
 * java-counter,profile} (MPICH), each rank counting and profile.json written; a job without a tool
 * list runs without jpmpi; {@code jpmpi run} under the module; {@code module unload} takes it all back.
 * Nothing else is set: no JAVA_HOME (the JDK the installation recorded), no LD_PRELOAD but the module's.
 */
class ModulesIT {
    private static final Path SOURCE = Path.of(System.getProperty("jpmpi.source.root"));
    private static final Path MODULEPATH = Jpmpi.HOME.resolve(InstallLayout.MODULEFILES);

    @ParameterizedTest
    @ValueSource(strings = {"environment-modules", "lmod"})
    void moduleLoadJpmpiRunsTheByHandFormsOnBothMpis(String system) throws Exception {
        Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "module-" + system + "-");
        String init = system.equals("lmod") ? lmodInit() : "/usr/share/modules/init/bash";
        assertTrue(Files.isReadable(Path.of(init)), init + " is missing (Debian: environment-modules; ./test.sh installs it)");
        Path ompi = Files.createDirectories(dir.resolve("openmpi"));
        Path mpich = Files.createDirectories(dir.resolve("mpich"));
        Path plain = Files.createDirectories(dir.resolve("plain"));
        Path viaRun = dir.resolve("run-profile");
        String script = String.join("\n",
                "set -e",
                "source " + init,
                "export MODULEPATH=" + MODULEPATH,
                "module load jpmpi",
                "echo \"jpmpi is $(command -v jpmpi)\"",
                "jpmpi -V",
                "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", // root: the user's mpirun asks it
                "cd " + ompi + " && mpirun -np 2 --mca ompi_tools_entry java-counter,profile "
                        + Impl.OPENMPI.file("pingpong") + " 2",
                "cd " + mpich + " && mpiexec.hydra -genv JPMPI_TOOLS_ENTRY java-counter,profile -n 2 "
                        + Impl.MPICH.file("pingpong") + " 2",
                "cd " + plain + " && mpirun -np 2 " + Impl.OPENMPI.file("pingpong") + " 2 && mpiexec.hydra -n 2 "
                        + Impl.MPICH.file("pingpong") + " 2",
                "jpmpi run --tools profile --output " + viaRun + " -- mpiexec.hydra -n 2 " + Impl.MPICH.file("pingpong") + " 2",
                "module unload jpmpi",
                "echo \"after unload: jpmpi=$(command -v jpmpi || echo none) LD_PRELOAD=${LD_PRELOAD:-}\"");
        String out = cleanShell(dir, script);

        assertTrue(out.contains("jpmpi is " + Jpmpi.HOME.resolve("bin/jpmpi")), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("jpmpi 0.") || l.startsWith("jpmpi 1.")), out);
        for (Path job : List.of(ompi, mpich)) {
            Path profile = only(job);
            assertTrue(Files.isRegularFile(profile.resolve("profile.json")), () -> job + "\n" + out);
        }
        for (int rank = 0; rank < 2; rank++) {
            String line = "count java-counter rank " + rank + ": MPI_Send=2 MPI_Recv=2 MPI_Barrier=1";
            assertEquals(2, out.lines().filter(l -> l.startsWith(line)).count(), () -> line + "\n" + out);
        }
        assertEquals(5, out.lines().filter(l -> l.startsWith("pingpong result: ranks=2")).count(), out);
        try (Stream<Path> s = Files.list(plain)) {
            assertEquals(0, s.count(), "a job without a tool list runs without jpmpi");
        }
        assertTrue(Files.isRegularFile(viaRun.resolve("profile.json")), out);
        assertTrue(out.contains("after unload: jpmpi=none LD_PRELOAD=\n") || out.endsWith("after unload: jpmpi=none LD_PRELOAD="),
                out);
    }

    /**
     * The modulefiles' table of built-in tool names (share/jpmpi/builtin-tools) is the launcher's,
     * but for the profile tool's Java level, which a by-hand job keeps (no launcher merges after it).
     */
    @Test
    void theRankEntryTableIsTheLaunchersTable() throws IOException {
        Layout layout = new Layout(Jpmpi.HOME);
        List<String> names = new ArrayList<>();
        for (String line : Files.readAllLines(Jpmpi.HOME.resolve(InstallLayout.BUILTIN_TOOLS))) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            List<String> words = List.of(line.trim().split("\\s+"));
            names.add(words.get(0));
            BuiltinTools.Tool tool = BuiltinTools.byName(words.get(0)).orElseThrow(() -> new AssertionError(line));
            for (MpiImpl impl : MpiImpl.values()) {
                List<Path> files = tool.locate(layout, impl).orElseThrow(() -> new AssertionError(line + " " + impl));
                List<Path> expected = new ArrayList<>(files);
                if (tool.name().equals("profile")) {
                    expected.add(layout.profileJar()); // no launcher after a by-hand job: the Java level writes profile.json
                }
                assertEquals(words.subList(1, words.size()).stream().map(w -> Jpmpi.HOME.resolve(w.replace("<mpi>", impl.id())))
                        .toList(), expected, line);
            }
        }
        assertEquals(BuiltinTools.names(), names);
    }

    /** The one entry of {@code dir}. */
    private static Path only(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> all = s.toList();
            assertEquals(1, all.size(), all::toString);
            return all.get(0);
        }
    }

    /** Lmod's init script, Debian's package unpacked once per user (scripts/lib.sh). */
    private static String lmodInit() throws Exception {
        Path cache = Path.of(System.getProperty("user.home"), ".cache", "jpmpi", "lmod");
        return cleanShell(Path.of("/tmp"), "source " + SOURCE.resolve("scripts/lib.sh") + " >/dev/null && jpmpi_lmod_init "
                + cache).strip();
    }

    /** {@code script} by bash with nothing of this JVM's environment but HOME and a system PATH. */
    private static String cleanShell(Path dir, String script) throws IOException, InterruptedException {
        Path log = Files.createTempFile(Files.createDirectories(Jpmpi.RUNS), "shell-", ".log");
        ProcessBuilder pb = new ProcessBuilder("env", "-i", "HOME=" + System.getProperty("user.home"),
                "PATH=/usr/local/bin:/usr/bin:/bin",
                "bash", "--norc", "--noprofile", "-c", script)
                .directory(dir.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectErrorStream(true).redirectOutput(log.toFile());
        Process p = pb.start();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        String out = Files.readString(log);
        assertEquals(0, p.waitFor(), () -> script + "\n---\n" + out);
        return out;
    }
}
