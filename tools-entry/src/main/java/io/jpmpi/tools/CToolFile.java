package io.jpmpi.tools;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;

/**
 * What a file given as a C tool is, before a rank tries it: the launcher's side of the
 * dispatcher's core/object.c, in the same words (a directory, not an ELF shared library, an ELF
 * for another machine), and what the dynamic loader would make of it (its {@code --list}, as
 * {@code ldd} prints it: a dependency it does not find, a library of the other MPI).
 */
final class CToolFile {
    private static final byte[] MAGIC = {0x7f, 'E', 'L', 'F'};
    /** ELF e_machine values and their names, as object.c has them. */
    private static final Map<Integer, String> MACHINES = Map.of(62, "x86-64", 3, "i386", 183, "aarch64", 40, "arm",
            21, "ppc64", 20, "ppc", 22, "s390x", 243, "riscv");
    /** e_ident (16 bytes), e_type and e_machine: the same place in 32- and 64-bit headers. */
    private static final int HEADER = 20;

    private CToolFile() {
    }

    /** Why {@code path} is not an ELF shared library for this machine, or empty. */
    static Optional<String> whatIsWrong(Path path) throws IOException {
        if (Files.isDirectory(path)) {
            return Optional.of("is a directory");
        }
        byte[] file = header(path);
        if (file.length < HEADER || !Arrays.equals(Arrays.copyOf(file, 4), MAGIC)) {
            return Optional.of("is not an ELF shared library (no ELF header)");
        }
        // This process's own executable is for the machine the ranks run on.
        byte[] own = header(Path.of("/proc/self/exe"));
        int machine = half(file, 18);
        int ownMachine = half(own, 18);
        if (machine != ownMachine || file[4] != own[4] || file[5] != own[5]) {
            return Optional.of("is an ELF for " + machineName(machine) + (machine == ownMachine ? file[4] == 1
                    ? " (32-bit)" : " (64-bit)" : "") + ", not " + machineName(ownMachine));
        }
        int type = half(file, 16);
        if (type != 3) {
            return Optional.of("is not an ELF shared library (" + switch (type) {
                case 2 -> "an executable";
                case 1 -> "an object file";
                case 4 -> "a core dump";
                default -> "an ELF of another type";
            } + ")");
        }
        return Optional.empty();
    }

    /**
     * What the dynamic loader says of its dependencies, for a job on {@code impl}: one it does not
     * find, or a library of another MPI than the job's (a tool built with the other mpicc loads, and
     * crashes at MPI_Finalize).
     */
    static Optional<String> dependencyProblem(Path lib, MpiImpl impl) throws JpmpiException {
        for (String line : Application.listLibraries(lib, loader()).split("\n")) {
            String t = line.trim();
            int arrow = t.indexOf(" => ");
            if (arrow <= 0) {
                continue;
            }
            String soname = t.substring(0, arrow);
            if (t.substring(arrow + 4).startsWith("not found")) {
                return Optional.of("needs " + soname + ", which the dynamic loader does not find (LD_LIBRARY_PATH,"
                        + " the linker cache)");
            }
            Optional<MpiImpl> other = MpiImpl.bySoname(soname).filter(m -> m != impl);
            if (other.isPresent() && other.get().libraries.contains(soname)) {
                return Optional.of("needs " + soname + ", another MPI library than the program's "
                        + impl.libraries.get(0) + " (build the tool with " + impl.displayName() + "'s mpicc)");
            }
        }
        return Optional.empty();
    }

    /**
     * This machine's dynamic loader, the one the JVM's own launcher names (a tool is checked to be for
     * this machine first): asked with {@code --list}, as ldd asks it after a shell's start and two more
     * runs (~13 ms a job less).
     */
    private static Optional<String> loader() {
        try {
            return ElfFile.read(Path.of(System.getProperty("java.home"), "bin", "java")).flatMap(ElfFile::interpreter);
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // ldd then
        }
    }

    private static byte[] header(Path path) throws IOException {
        try (InputStream in = Files.newInputStream(path)) {
            return in.readNBytes(HEADER);
        }
    }

    /** The 16-bit field at {@code at}, in the file's byte order (e_ident[EI_DATA]: 1 little, 2 big). */
    private static int half(byte[] h, int at) {
        int a = h[at] & 0xff;
        int b = h[at + 1] & 0xff;
        return h[5] == 2 ? a << 8 | b : b << 8 | a;
    }

    private static String machineName(int machine) {
        return MACHINES.getOrDefault(machine, "machine " + machine);
    }
}
