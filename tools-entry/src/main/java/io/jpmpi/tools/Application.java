package io.jpmpi.tools;

import io.jpmpi.platform.LauncherGrammar;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The program a launcher command starts, and the MPI library it is linked against.
 *
 * <p>The launcher's grammar says which word is the program (option values such as {@code -np 4},
 * {@code --mca plm_rsh_agent ./agent} or {@code -launcher-exec ./agent} are not, whatever they name). Its
 * MPI is the one whose library it needs itself (its ELF headers' DT_NEEDED, {@link ElfFile}: what mpicc
 * links); otherwise its libraries come from its dynamic loader's {@code --list}, as {@code ldd} prints
 * them (the loader's own answer, dependencies of dependencies included, so a Fortran program's
 * libmpi_mpifh brings libmpi along). The libraries are then the direct ones, or the loader's list.
 */
public record Application(Path path, Kind kind, List<String> libraries, Optional<MpiImpl> impl,
                          Optional<String> loadsMpi) {
    /** A program that links its MPI library (or none): nothing loaded at run time. */
    public Application(Path path, Kind kind, List<String> libraries, Optional<MpiImpl> impl) {
        this(path, kind, libraries, impl, Optional.empty());
    }

    public enum Kind {
        /** A dynamically linked ELF executable: what LD_PRELOAD can interpose on. */
        DYNAMIC,
        /** A statically linked ELF executable: LD_PRELOAD cannot interpose on it. */
        STATIC,
        /** A script or other non-ELF file: what it runs is unknown. */
        SCRIPT
    }

    /**
     * The programs of a launcher command ({@code args}: its arguments, the launcher's name excluded), read
     * with the launcher's grammar (io.jpmpi.platform.LauncherGrammar): one per MPMD context, and those of
     * an appfile, a hydra configfile or a srun --multi-prog file. Each must name an executable file (a
     * path, or a name on PATH).
     *
     * @param check false (--no-app-check): whatever cannot be read or resolved is left out, no refusal
     */
    public static List<Path> find(Launcher launcher, List<String> args, Map<String, String> env, boolean check)
            throws JpmpiException {
        LauncherGrammar grammar = launcher.grammar();
        List<LauncherGrammar.Program> programs;
        Path cwd = Path.of("").toAbsolutePath();
        // the files the programs are read from, written down for a plan before they are read
        for (String file : grammar.inputFiles(args)) {
            if (!Path.of(file).isAbsolute()) {
                Plans.RECORDED.workingDirectory();
            }
            Plans.RECORDED.file(cwd.resolve(file));
        }
        try {
            programs = grammar.programs(args, cwd);
        } catch (LauncherGrammar.Refusal r) {
            if (!check) {
                return List.of();
            }
            String mpi = launcher.impl().map(i -> " --mpi " + i.id()).orElse(" --mpi openmpi|mpich");
            String goOn = r.unknownOption().isEmpty() ? ""
                    : grammar.endOfOptions().isPresent()
                    ? ": is it a newer " + launcher.word() + "'s? Put " + grammar.endOfOptions().get() + " before the"
                    + " program (" + launcher.word() + " ... " + r.unknownOption().get() + " ... "
                    + grammar.endOfOptions().get() + " ./app), or run with --no-app-check" + mpi
                    : ": is it a newer " + launcher.word() + "'s? jpmpi cannot tell whether it takes a value, so"
                    + " not which word is the program: run with --no-app-check" + mpi + " (the program is then"
                    + " not checked)";
            throw new JpmpiException(r.unknownOption().isPresent() ? ExitCode.USAGE : ExitCode.NOT_MPI,
                    launcher.word() + ": " + r.getMessage() + goOn);
        }
        List<Path> paths = new ArrayList<>();
        for (LauncherGrammar.Program p : programs) {
            Optional<Path> path = Launcher.which(p.word(), env);
            if (path.isPresent()) {
                if (!paths.contains(path.get())) {
                    paths.add(path.get());
                }
            } else if (check) {
                throw new JpmpiException(ExitCode.NOT_MPI, "no program to run: " + launcher.word() + "'s program '"
                        + p.word() + "' (" + p.where() + ") is not an executable file" + (p.word().contains("/") ? ""
                        : " on PATH") + " (if it exists only on the compute nodes, run with --no-app-check)");
            }
        }
        return paths;
    }

    /** Inspects {@code path} (or takes what {@link Ahead} found while the command line was read). */
    public static Application inspect(Path path) throws JpmpiException {
        Optional<Application> ahead = Ahead.take(path);
        return ahead.isPresent() ? ahead.get() : inspectNow(path);
    }

    /** Inspects {@code path} now. */
    static Application inspectNow(Path path) throws JpmpiException {
        Plans.RECORDED.file(path); // (before it is read: a change while it is read makes the plan outdated)
        Optional<ElfFile> elf;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            ByteBuffer magic = ByteBuffer.allocate(4);
            while (magic.hasRemaining() && ch.read(magic, magic.position()) > 0) {
                // (a short read: the rest)
            }
            if (!Arrays.equals(magic.array(), new byte[] {0x7f, 'E', 'L', 'F'})) {
                return new Application(path, Kind.SCRIPT, List.of(), Optional.empty());
            }
            elf = ElfFile.read(ch);
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.NOT_MPI, "cannot read the application " + path + ": " + e.getMessage());
        }
        // A program that needs its MPI library itself (what mpicc links): known without the loader.
        if (elf.isPresent() && elf.get().interpreter().isPresent()) {
            for (String lib : elf.get().needed()) {
                Optional<MpiImpl> impl = MpiImpl.bySoname(lib);
                if (impl.isPresent()) {
                    return new Application(path, Kind.DYNAMIC, elf.get().needed(), impl);
                }
            }
        }
        String out = listLibraries(path, elf.flatMap(ElfFile::interpreter));
        if (out.contains("not a dynamic executable") || out.contains("statically linked")) {
            return new Application(path, Kind.STATIC, List.of(), Optional.empty());
        }
        List<String> libs = new ArrayList<>();
        for (String line : out.split("\n")) {
            String t = line.trim();
            int arrow = t.indexOf(" => ");
            String soname = arrow > 0 ? t.substring(0, arrow) : t.split("\\s+")[0];
            if (!soname.isEmpty()) {
                libs.add(soname);
            }
        }
        Optional<MpiImpl> impl = Optional.empty();
        for (String lib : libs) {
            impl = MpiImpl.bySoname(lib);
            if (impl.isPresent()) {
                break;
            }
        }
        Application linked = new Application(path, Kind.DYNAMIC, List.copyOf(libs), impl);
        return impl.isEmpty() && isPython(path) ? viaMpi4py(linked).orElse(linked) : linked;
    }

    private static boolean isPython(Path path) {
        return path.getFileName().toString().matches("python[0-9.]*");
    }

    /**
     * A Python interpreter links no MPI: mpi4py's extension module loads it when the script imports
     * mpi4py. Asks the interpreter where that module is (importing the package, not the module: no
     * MPI is started) and reads which MPI the module links. The MPI of the job then is that one,
     * said in one line ({@code loadsMpi}).
     */
    private static Optional<Application> viaMpi4py(Application python) throws JpmpiException {
        String origin = Processes.capture(List.of(python.path().toString(), "-c",
                "import importlib.util as u; s = u.find_spec('mpi4py.MPI'); print(s.origin if s else '')")).trim();
        if (!origin.startsWith("/") || origin.contains("\n")) {
            return Optional.empty(); // no mpi4py for this interpreter (or it said something else)
        }
        if (!Files.isRegularFile(Path.of(origin))) {
            Plans.RECORDED.noFile(Path.of(origin));
            return Optional.empty();
        }
        Application module = inspect(Path.of(origin));
        return module.impl().map(impl -> new Application(python.path(), Kind.DYNAMIC, python.libraries(), Optional.of(impl),
                Optional.of(python.path() + " loads MPI at run time: assuming " + impl.displayName()
                        + ", the MPI that mpi4py's module links (" + origin + ")")));
    }

    /** Whether it links some libmpi jpmpi does not know. */
    public Optional<String> foreignMpi() {
        return libraries.stream().filter(l -> l.startsWith("libmpi") && MpiImpl.bySoname(l).isEmpty()).findFirst();
    }

    /**
     * The libraries the dynamic loader would load for {@code path}, as {@code ldd} prints them. Asked of
     * the program's own loader ({@code interpreter}, a file named as glibc names its loaders) with
     * {@code --list}, which is what the {@code ldd} script runs in the end, after a shell's start and
     * two more runs of the loader (~10 ms on the way every job takes: benchmarks/README.md,
     * "launcher/"); {@code ldd} itself where the program names no loader that is there (a static
     * program, another ABI's).
     */
    static String listLibraries(Path path, Optional<String> interpreter) throws JpmpiException {
        Optional<Path> loader = interpreter.filter(i -> i.startsWith("/")).map(Path::of)
                .filter(l -> l.getFileName().toString().matches("ld(-linux[-\\w]*|64)\\.so\\.[\\d.]+"))
                .filter(Files::isExecutable);
        if (loader.isPresent()) {
            String out = Processes.capture(List.of(loader.get().toString(), "--list", path.toString()));
            if (out.contains(" => ") || out.contains(loader.get().getFileName().toString())) {
                return out;
            }
        }
        return Processes.capture(List.of("ldd", path.toString()));
    }
}
