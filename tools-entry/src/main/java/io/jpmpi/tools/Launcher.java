package io.jpmpi.tools;

import io.jpmpi.platform.LauncherGrammar;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The launcher a job is started with, what MPI it belongs to, and how it passes a variable to the
 * ranks only: Open MPI {@code -x NAME=VALUE}, MPICH's hydra {@code -genv NAME VALUE}, Slurm
 * {@code --export=ALL,NAME=VALUE} (a value with a comma, which --export cannot carry, goes into
 * srun's own environment instead, which ALL then forwards; srun itself reads none of jpmpi's),
 * joined with the user's own --export where there is one ({@link SrunExport}); Open MPI 4.1 with an
 * appfile, which ignores -x, through {@code --mca mca_base_env_list} ({@link OmpiEnvList}).
 */
public record Launcher(Kind kind, String word, Path path, Optional<MpiImpl> impl) {
    public enum Kind {
        OPEN_MPI, HYDRA, SLURM
    }

    private static final List<String> OPEN_MPI_NAMES = List.of("orterun", "mpirun.openmpi", "mpiexec.openmpi",
            "prterun", "prun", "oshrun");
    private static final List<String> HYDRA_NAMES = List.of("mpiexec.hydra", "mpirun.mpich", "mpiexec.mpich", "hydra");
    private static final List<String> GENERIC_NAMES = List.of("mpirun", "mpiexec");

    /** Identifies the launcher named by {@code word} (a name on PATH or a path). */
    public static Launcher identify(String word, Map<String, String> env) throws JpmpiException {
        Path path = which(word, env).orElseThrow(() -> new JpmpiException(ExitCode.UNKNOWN_LAUNCHER,
                "launcher '" + word + "' not found" + (word.contains("/") ? "" : " on PATH")));
        String name = Path.of(word).getFileName().toString();
        String real;
        try {
            Path to = path.toRealPath();
            Plans.RECORDED.realPath(path, to);
            real = to.getFileName().toString();
        } catch (IOException e) {
            Plans.RECORDED.opaque("no real path for " + path);
            real = name;
        }
        if (name.equals("srun") || real.equals("srun")) {
            return new Launcher(Kind.SLURM, word, path, Optional.empty());
        }
        if (OPEN_MPI_NAMES.contains(real) || OPEN_MPI_NAMES.contains(name)) {
            return new Launcher(Kind.OPEN_MPI, word, path, Optional.of(MpiImpl.OPENMPI));
        }
        if (HYDRA_NAMES.contains(real) || HYDRA_NAMES.contains(name)) {
            return new Launcher(Kind.HYDRA, word, path, Optional.of(MpiImpl.MPICH));
        }
        if (!GENERIC_NAMES.contains(name) && !GENERIC_NAMES.contains(real)) {
            throw new JpmpiException(ExitCode.UNKNOWN_LAUNCHER, "'" + word + "' is not an MPI launcher jpmpi knows"
                    + " (mpirun, mpiexec, mpiexec.hydra, srun, orterun and their .openmpi/.mpich names)");
        }
        // A plain mpirun/mpiexec: ask it.
        String version = versionOf(path);
        if (version.contains("Open MPI") || version.contains("OpenRTE")) {
            return new Launcher(Kind.OPEN_MPI, word, path, Optional.of(MpiImpl.OPENMPI));
        }
        if (version.contains("HYDRA")) {
            return new Launcher(Kind.HYDRA, word, path, Optional.of(MpiImpl.MPICH));
        }
        String first = version.lines().findFirst().orElse("nothing");
        throw new JpmpiException(ExitCode.UNKNOWN_LAUNCHER, "'" + word + "' (" + path
                + ") is neither Open MPI's nor MPICH's launcher: its --version says '" + first + "'");
    }

    /**
     * How this launcher reads its command line: Slurm's srun, MPICH's hydra, Open MPI 4.1's mpirun, or
     * Open MPI 5's (prterun, and an mpirun whose --version says 5 or later).
     */
    public LauncherGrammar grammar() throws JpmpiException {
        return LauncherGrammar.of(switch (kind) {
            case SLURM -> "srun";
            case HYDRA -> "hydra";
            case OPEN_MPI -> openMpi5() ? "openmpi-5" : "openmpi-4.1";
        });
    }

    private boolean openMpi5() throws JpmpiException {
        String name = path.getFileName().toString();
        String real = name;
        try {
            Path to = path.toRealPath();
            Plans.RECORDED.realPath(path, to);
            real = to.getFileName().toString();
        } catch (IOException e) {
            Plans.RECORDED.opaque("no real path for " + path);
        }
        if (List.of("prterun", "prun").contains(real) || List.of("prterun", "prun").contains(name)) {
            return true;
        }
        if (real.equals("orterun") || name.equals("orterun")) {
            return false;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\(Open MPI\\) (\\d+)\\.").matcher(versionOf(path));
        return m.find() && Integer.parseInt(m.group(1)) >= 5;
    }

    /** The word between the launcher's MPMD contexts ({@code :}); empty if it has none or no grammar. */
    public String contextSeparator() {
        try {
            return grammar().contextSeparator().orElse("");
        } catch (JpmpiException e) {
            return "";
        }
    }

    /**
     * The inserted arguments (right after the launcher's name) and the extra variables of its own
     * environment; a null value there: the variable unset for the launcher (srun's LD_PRELOAD: {@link SrunExport}).
     */
    public record Rewritten(List<String> command, Map<String, String> launcherEnv) {
    }

    /** {@code command} (launcher first) with {@code vars} passed to the ranks only. */
    public Rewritten pass(List<String> command, Map<String, String> vars, Map<String, String> env)
            throws JpmpiException {
        List<String> out = new ArrayList<>();
        out.add(command.get(0));
        Map<String, String> own = new java.util.LinkedHashMap<>();
        switch (kind) {
            case OPEN_MPI -> {
                LauncherGrammar g = grammar();
                if (g.id().equals("openmpi-4.1") && !g.inputFiles(command.subList(1, command.size())).isEmpty()) {
                    // mpirun 4.1 ignores -x (every option but MCA parameters) with an appfile, its one file of programs
                    return new Rewritten(OmpiEnvList.pass(g, command, vars, env), own);
                }
                // Open MPI 4.1 gives a -x only to the ranks of the context it is in: after every separator too
                List<String> x = new ArrayList<>();
                vars.forEach((k, v) -> {
                    x.add("-x");
                    x.add(k + "=" + v);
                });
                List<String> args = command.subList(1, command.size());
                List<Integer> separators = grammar().contextSeparators(args);
                out.addAll(x);
                int from = 0;
                for (int at : separators) {
                    out.addAll(args.subList(from, at + 1));
                    out.addAll(x);
                    from = at + 1;
                }
                out.addAll(args.subList(from, args.size()));
                return new Rewritten(out, own);
            }
            case HYDRA -> vars.forEach((k, v) -> {
                out.add("-genv");
                out.add(k);
                out.add(v);
            });
            case SLURM -> {
                Optional<SrunExport.Found> theirs = SrunExport.find(grammar(), command);
                if (theirs.isPresent()) {
                    List<String> merged = new ArrayList<>(SrunExport.merge(command, theirs.get(), vars, own, env));
                    merged.add(1, SrunExport.DISABLE_STATUS);
                    return new Rewritten(merged, own);
                }
                List<String> items = new ArrayList<>(List.of("ALL"));
                items.addAll(SrunExport.items(vars, own, env, false));
                out.add("--export=" + String.join(",", items));
                out.add(SrunExport.DISABLE_STATUS);
            }
        }
        out.addAll(command.subList(1, command.size()));
        return new Rewritten(out, own);
    }

    /** {@code word} resolved like a shell would: a path as is, a bare name on PATH. */
    public static Optional<Path> which(String word, Map<String, String> env) {
        if (word.isEmpty()) {
            return Optional.empty();
        }
        if (word.contains("/")) {
            if (!word.startsWith("/")) {
                Plans.RECORDED.workingDirectory();
            }
            Path p = Path.of(word).toAbsolutePath();
            return executable(p) ? Optional.of(p) : Optional.empty();
        }
        String path = env.get("PATH");
        for (String dir : (path == null ? "" : path).split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            if (!dir.startsWith("/")) {
                Plans.RECORDED.workingDirectory(); // (a relative directory on PATH: the working directory's)
            }
            Path p = Path.of(dir, word);
            if (executable(p)) {
                return Optional.of(p.toAbsolutePath());
            }
        }
        return Optional.empty();
    }

    /** Whether {@code p} is an executable file; what was found written down for a plan ({@link Plans}). */
    private static boolean executable(Path p) {
        if (Files.isRegularFile(p) && Files.isExecutable(p)) {
            Plans.RECORDED.file(p);
            return true;
        }
        Plans.RECORDED.notExecutable(p);
        return false;
    }

    private static String versionOf(Path launcher) throws JpmpiException {
        return Processes.capture(List.of(launcher.toString(), "--version"));
    }
}
