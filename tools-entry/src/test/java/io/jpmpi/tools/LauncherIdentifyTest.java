package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which MPI a launcher belongs to, with stand-in launchers on a PATH of their own: a plain
 * {@code mpirun}/{@code mpiexec} is Open MPI's or MPICH's by what its {@code --version} says (or by
 * the name it links to), never by its name alone, and one that is neither is refused.
 */
class LauncherIdentifyTest {
    @TempDir
    Path bin;

    private Map<String, String> env() {
        return Map.of("PATH", bin.toString());
    }

    /** A launcher script that prints {@code version} for --version and fails for anything else. */
    private void script(String name, String version) throws IOException {
        Path p = bin.resolve(name);
        Files.writeString(p, "#!/bin/sh\n[ \"$1\" = --version ] || exit 99\nprintf '%s\\n' '" + version + "'\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void aPlainMpiexecThatIsHydraIsMpich() throws Exception {
        script("mpiexec", "HYDRA build details:\n    Version:                                 4.0.2");
        Launcher l = Launcher.identify("mpiexec", env());
        assertEquals(Launcher.Kind.HYDRA, l.kind());
        assertEquals(Optional.of(MpiImpl.MPICH), l.impl());
    }

    @Test
    void aPlainMpirunThatIsOpenMpisIsOpenMpi() throws Exception {
        script("mpirun", "mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/");
        Launcher l = Launcher.identify("mpirun", env());
        assertEquals(Launcher.Kind.OPEN_MPI, l.kind());
        assertEquals(Optional.of(MpiImpl.OPENMPI), l.impl());
    }

    @Test
    void aPlainMpirunOfAnotherMpiIsRefusedWithWhatItSaid() throws Exception {
        script("mpirun", "Intel(R) MPI Library for Linux* OS, Version 2021.10");
        JpmpiException e = assertThrows(JpmpiException.class, () -> Launcher.identify("mpirun", env()));
        assertEquals(ExitCode.UNKNOWN_LAUNCHER, e.exit());
        assertTrue(e.getMessage().contains("is neither Open MPI's nor MPICH's launcher: its --version says"
                + " 'Intel(R) MPI Library for Linux* OS, Version 2021.10'"), e.getMessage());
    }

    @Test
    void aPlainNameLinkedToHydraIsMpichWithoutAsking() throws Exception {
        script("mpiexec.hydra", "(never asked)");
        Files.writeString(bin.resolve("mpiexec.hydra"), "#!/bin/sh\nexit 99\n");
        Files.createSymbolicLink(bin.resolve("mpiexec"), bin.resolve("mpiexec.hydra"));
        assertEquals(Launcher.Kind.HYDRA, Launcher.identify("mpiexec", env()).kind());
    }

    @Test
    void namesThatSayTheirMpiAreTakenAtTheirWord() throws Exception {
        for (String name : new String[] {"mpirun.openmpi", "orterun", "mpiexec.hydra", "mpirun.mpich", "srun"}) {
            Files.writeString(bin.resolve(name), "#!/bin/sh\nexit 99\n");
            Files.setPosixFilePermissions(bin.resolve(name), PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        assertEquals(Launcher.Kind.OPEN_MPI, Launcher.identify("mpirun.openmpi", env()).kind());
        assertEquals(Launcher.Kind.OPEN_MPI, Launcher.identify("orterun", env()).kind());
        assertEquals(Launcher.Kind.HYDRA, Launcher.identify("mpiexec.hydra", env()).kind());
        assertEquals(Launcher.Kind.HYDRA, Launcher.identify("mpirun.mpich", env()).kind());
        assertEquals(Launcher.Kind.SLURM, Launcher.identify("srun", env()).kind());
    }

    @Test
    void anUnknownOrMissingLauncherIsRefused() throws Exception {
        script("qsub", "PBS");
        JpmpiException unknown = assertThrows(JpmpiException.class, () -> Launcher.identify("qsub", env()));
        assertEquals(ExitCode.UNKNOWN_LAUNCHER, unknown.exit());
        assertTrue(unknown.getMessage().contains("'qsub' is not an MPI launcher jpmpi knows"), unknown.getMessage());
        JpmpiException missing = assertThrows(JpmpiException.class, () -> Launcher.identify("mpirun", env()));
        assertEquals("launcher 'mpirun' not found on PATH", missing.getMessage());
    }
}
