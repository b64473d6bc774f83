package io.jpmpi.tools;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The program a launcher command starts, and the MPI library it is linked against.
 *
 * <p>It is the first argument after the launcher that names an executable file (a path, or a name
 * on PATH): option values such as {@code -np 4} or {@code --mca btl self} are not files. Its
 * libraries come from {@code ldd} (the dynamic loader's own answer, dependencies of dependencies
 * included, so a Fortran program's libmpi_mpifh brings libmpi along).
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

    /** The application among {@code args} (the launcher's arguments, launcher excluded), if any. */
    public static Optional<Path> find(List<String> args, Map<String, String> env) {
        for (String a : args) {
            if (a.startsWith("-") || a.contains("=") || a.equals(":")) {
                continue;
            }
            Optional<Path> p = Launcher.which(a, env);
            if (p.isPresent()) {
                return p;
            }
        }
        return Optional.empty();
    }

    /** Inspects {@code path}. */
    public static Application inspect(Path path) throws JpmpiException {
        byte[] magic = new byte[4];
        try (InputStream in = Files.newInputStream(path)) {
            if (in.readNBytes(magic, 0, 4) < 4 || !Arrays.equals(magic, new byte[] {0x7f, 'E', 'L', 'F'})) {
                return new Application(path, Kind.SCRIPT, List.of(), Optional.empty());
            }
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.NOT_MPI, "cannot read the application " + path + ": " + e.getMessage());
        }
        String out = ldd(path);
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
        if (!origin.startsWith("/") || origin.contains("\n") || !Files.isRegularFile(Path.of(origin))) {
            return Optional.empty(); // no mpi4py for this interpreter (or it said something else)
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

    private static String ldd(Path path) throws JpmpiException {
        return Processes.capture(List.of("ldd", path.toString()));
    }
}
