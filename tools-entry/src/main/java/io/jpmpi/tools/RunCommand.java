package io.jpmpi.tools;

import io.jpmpi.platform.Settings;
import io.jpmpi.profilers.report.EarlierResults;
import io.jpmpi.profilers.report.OwnDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * {@code jpmpi run}: start an MPI job through jpmpi. Its command-line model is made with picocli's
 * programmatic API, not from annotations: reading annotations makes the JVM generate a proxy class per
 * annotation type, the larger part of the model's time on every job (benchmarks/README.md, "launcher/").
 */
public final class RunCommand implements Callable<Integer>, JpmpiCommand.Modelled {
    private final Context ctx;
    private final CommandSpec spec;
    // the options as made (picocli's findOption interpolates every option's names on each lookup)
    private final OptionSpec toolsOption;
    private final OptionSpec outputOption;
    private final OptionSpec mpiOption;
    private final OptionSpec noAppCheckOption;
    private final OptionSpec dryRunOption;
    private final OptionSpec verboseOption;

    public RunCommand(Context ctx) {
        this.ctx = ctx;
        this.spec = JpmpiCommand.model(this, "run", "Run an MPI job with the listed tools in every rank.",
                "Detects the MPI of the launcher and of the program, picks the matching jpmpi dispatcher and passes"
                        + " LD_PRELOAD (dispatcher, C tools with 'preload'), the entry list,"
                        + " JAVA_HOME, the Java runtime and the output directory to the ranks only, in the launcher's"
                        + " own syntax (Open MPI -x, MPICH -genv, Slurm --export). Returns the launcher's exit"
                        + " status; SIGTERM and Ctrl-C are passed on to it. With tools that need nothing after the"
                        + " job (no profile), the launcher takes jpmpi's place, as exec in a script.");
        spec.usageMessage().customSynopsis("jpmpi run [-v] [--dry-run] [--tools LIST] [--output DIR] [--mpi IMPL]"
                + " [--no-app-check] -- <mpirun|mpiexec|mpiexec.hydra|srun> ARGS...");
        toolsOption = add(OptionSpec.builder("-t", "--tools").paramLabel("LIST").type(String.class)
                .description("Entry list, top level first: built-in tool names, path/lib.so or a bare C tool name,"
                        + " interceptor .jar files, keywords v, vv, fort, preload. Default: $JPMPI_TOOLS_ENTRY.").build());
        outputOption = add(OptionSpec.builder("-o", "--output").paramLabel("DIR").type(Path.class)
                .description("Where the tools write (JPMPI_OUTPUT_DIR).").build());
        mpiOption = add(OptionSpec.builder("--mpi").paramLabel("IMPL").type(String.class)
                .description("openmpi or mpich, when jpmpi cannot tell (a wrapper script under srun).").build());
        noAppCheckOption = add(OptionSpec.builder("--no-app-check").type(boolean.class)
                .description("Do not require the program to link an MPI library"
                        + " (it loads MPI at run time, as python with mpi4py does).").build());
        dryRunOption = add(OptionSpec.builder("--dry-run").type(boolean.class)
                .description("Print the command that would run, and stop (nothing is created).").build());
        verboseOption = add(OptionSpec.builder("-v", "--verbose").type(boolean.class)
                .description("Say what was detected and the command run; with a"
                        + " tool list, the ranks print their level table too (keyword v).").build());
        spec.addPositional(PositionalParamSpec.builder().paramLabel("LAUNCHER").arity("0..*").type(List.class)
                .auxiliaryTypes(String.class).initialValue(List.of())
                .description("The launcher command, after --.").build());
    }

    /** Adds {@code o} to the model; returns it. */
    private OptionSpec add(OptionSpec o) {
        spec.addOption(o);
        return o;
    }

    @Override
    public CommandSpec spec() {
        return spec;
    }

    @Override
    public Integer call() throws JpmpiException {
        String tools = toolsOption.getValue();
        Path output = outputOption.getValue();
        String mpi = mpiOption.getValue();
        boolean noAppCheck = Boolean.TRUE.equals(noAppCheckOption.getValue());
        boolean dryRun = Boolean.TRUE.equals(dryRunOption.getValue());
        boolean verbose = Boolean.TRUE.equals(verboseOption.getValue());
        List<String> command = spec.positionalParameters().get(0).getValue();
        List<String> launcher = launcherCommand(spec.commandLine().getParseResult().originalArgs(), command);
        String list = tools != null ? tools : Settings.TOOLS_ENTRY.value(ctx.env()).orElse("");
        List<String> items = List.of(list.split(","));
        if (verbose && !list.isBlank() && !items.contains("v") && !items.contains("vv")) {
            list = "v," + list;
        }
        Optional<MpiImpl> asked = Optional.empty();
        if (mpi != null) {
            asked = Optional.of(MpiImpl.byId(mpi).orElseThrow(() -> new JpmpiException(ExitCode.USAGE,
                    "--mpi " + mpi + ": expected openmpi or mpich")));
        }
        Path out = output;
        if (out == null && usesProfile(list) && Settings.OUTPUT_DIR.value(ctx.env()).isEmpty()) {
            out = freshDirectory(Path.of(""), OutputName.of(ctx.env(), LocalDateTime.now()), dryRun);
        }
        Path made = output == null && !dryRun ? out : null;
        Job job;
        try {
            job = Job.plan(ctx.layout(), new Job.Request(launcher, list, out, asked, !noAppCheck, dryRun), ctx.env());
        } catch (JpmpiException e) {
            removeIfEmpty(made, false);
            throw e;
        }
        job.application().flatMap(Application::loadsMpi).ifPresent(ctx::note);
        if (job.entries().isEmpty()) {
            ctx.note("no tools listed (--tools or " + Settings.TOOLS_ENTRY.env() + "): the job runs through the"
                    + " dispatcher with no level");
        }
        if (verbose || dryRun) {
            describe(job);
        }
        if (dryRun) {
            ctx.out().println(Shell.quote(job.command()));
            ctx.out().flush();
            return ExitCode.OK.code;
        }
        Optional<String> setting = Settings.OUTPUT_DIR.value(ctx.env());
        // (not map(Path::of): a method reference to a varargs method, made on every job)
        Path named = out != null ? out : setting.isPresent() ? Path.of(setting.get()) : null;
        Path dir = usesProfile(list) ? named : null;
        if (made == null) {
            setAsideEarlier(list, named);
        }
        // also when jpmpi is told to stop (SIGTERM, SIGINT): the ranks' dumps merged, the report said
        Map<String, String> launcherEnv = new LinkedHashMap<>(job.launcherEnv());
        launcherEnv.putAll(AsRoot.allowance(ctx, job.launcher().kind()));
        if (dir == null) {
            // nothing to do after the job: the launcher takes this process's place (returns where it cannot),
            // and the next job started so can start from this one's plan
            if (InPlace.possible(ctx) && output == null && (named == null || !writesOutput(list)) && !verbose) {
                Plans.keep(ctx, job, launcherEnv);
            }
            InPlace.replace(ctx, job.command(), launcherEnv);
        }
        String given = tools != null ? tools : Settings.TOOLS_ENTRY.value(ctx.env()).orElse("");
        long started = System.nanoTime();
        // the after-job code run once on a sample while the job runs, at the lowest priority, then the
        // job's own dumps merged as soon as rank 0 has written them (Warmup, EarlyMerge)
        List<Warmup> warm = new java.util.ArrayList<>(1);
        try {
            return Processes.runForeground(job.command(), launcherEnv, () -> {
                warm.forEach(Warmup::stop);
                if (dir != null && !removeIfEmpty(made, true)) {
                    Path at = dir.toAbsolutePath().normalize();
                    ProfileOutput.finish(ctx, at, ProfileOutput.run(ctx, job, launcher, given, at, started),
                            warm.isEmpty() ? Optional.empty() : warm.getFirst().merged());
                }
            }, job.launcher().kind() == Launcher.Kind.SLURM, () -> {
                if (dir != null) {
                    Warmup.start(ctx, dir.toAbsolutePath().normalize()).ifPresent(warm::add);
                }
            });
        } catch (JpmpiException e) {
            removeIfEmpty(made, false);
            throw e;
        }
    }

    /**
     * Removes {@code dir}, the output directory this run made, when nothing was written into it (a
     * launch refused, or a job whose ranks wrote nothing); after a job ({@code say}), says so in one line.
     */
    private boolean removeIfEmpty(Path dir, boolean say) {
        if (dir == null) {
            return false;
        }
        try (var entries = Files.list(dir)) {
            if (entries.findAny().isEmpty()) {
                Files.delete(dir);
                if (say) {
                    ctx.note("no rank wrote into " + dir + " (the job ended before MPI_Init?): removed it");
                }
                return true;
            }
        } catch (IOException e) {
            // not there, or not ours to list: left as it is
        }
        return false;
    }

    /**
     * Before a job whose tools write into the output directory {@code dir} (profile, mpit, hwc) that
     * was named (--output, JPMPI_OUTPUT_DIR), not made now: an earlier job's results there are moved
     * into a directory of their own inside it ({@link EarlierResults}), said in one line, so that this
     * job's reports hold this job's figures alone and nothing of the earlier one's is lost. When they
     * cannot be moved, the job runs anyway, and its profile is still made from its own dumps after it
     * ({@link io.jpmpi.profilers.report.ProfileWriter#needsMerge}).
     */
    private void setAsideEarlier(String list, Path dir) {
        if (dir == null || !writesOutput(list)) {
            return;
        }
        Path at = dir.toAbsolutePath().normalize();
        try {
            EarlierResults.setAside(at).ifPresent(m -> ctx.note(at + " held an earlier job's results: moved "
                    + m.list() + " to " + m.to()));
        } catch (IOException | RuntimeException e) {
            ctx.note("cannot move an earlier job's results in " + at + " aside (" + e.getMessage() + ")");
        }
    }

    /** Whether a tool of the list writes into the output directory: profile (its recorder too), mpit, hwc. */
    private static boolean writesOutput(String list) {
        if (usesProfile(list)) {
            return true;
        }
        for (String item : list.split(",")) {
            String w = item.trim();
            if (w.equals("mpit") || w.equals("hwc")) {
                return true;
            }
        }
        return false;
    }

    /** How many numbered names are tried before a random one. */
    static final int NUMBERED = OwnDirectory.NUMBERED;

    /**
     * A directory of this user's own for the job's results, made now under {@code parent}
     * ({@link OwnDirectory#fresh}: {@code name}, else {@code name-2} .. {@code name-20}, else
     * {@code name-<random>}, never one that is there already). A dry run only names it.
     */
    static Path freshDirectory(Path parent, String name, boolean nameOnly) throws JpmpiException {
        if (nameOnly) {
            return parent.resolve(name);
        }
        try {
            return OwnDirectory.fresh(parent, name);
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.CANNOT_START, "cannot make an output directory in "
                    + parent.toAbsolutePath() + " (" + e.getMessage() + "); name one with --output");
        }
    }

    private static boolean usesProfile(String list) {
        for (String item : list.split(",")) {
            String w = item.trim();
            if (w.equals("profile") || w.endsWith("/" + Job.PROFILE_RECORDER)) {
                return true;
            }
        }
        return false;
    }

    private void describe(Job job) {
        ctx.note("launcher " + job.launcher().path() + " (" + job.launcher().kind() + "), MPI "
                + job.impl().displayName() + job.application().map(a -> ", program " + a.path() + " ("
                + a.kind().name().toLowerCase(java.util.Locale.ROOT) + ")").orElse(""));
        job.rankEnv().forEach((k, v) -> ctx.note("  ranks get " + k + "=" + v));
        job.launcherEnv().forEach((k, v) -> ctx.note("  launcher environment " + (v == null ? k + " unset" : k + "=" + v)));
    }

    /**
     * The launcher command: everything after {@code --}. picocli gives the positional words; the
     * original arguments say whether {@code --} was there and which words came before it.
     */
    static List<String> launcherCommand(List<String> original, List<String> positional) throws JpmpiException {
        int sep = original.indexOf("--");
        List<String> before = sep < 0 ? positional : positional.subList(0, Math.max(0,
                positional.size() - (original.size() - sep - 1)));
        if (!before.isEmpty() && before.get(0).startsWith("-")) {
            throw new JpmpiException(ExitCode.USAGE, "run: unknown option '" + before.get(0) + "' (see jpmpi run --help)");
        }
        if (sep < 0 || !before.isEmpty()) {
            throw new JpmpiException(ExitCode.NO_SEPARATOR, "run: the launcher command must follow `--`: jpmpi run"
                    + " [OPTIONS] -- mpirun -np 4 ./app" + (before.isEmpty() ? "" : " (got '"
                    + String.join(" ", before) + "' before any --)"));
        }
        List<String> after = original.subList(sep + 1, original.size());
        if (after.isEmpty()) {
            throw new JpmpiException(ExitCode.NO_SEPARATOR, "run: nothing after `--`: name the launcher and the"
                    + " program, e.g. jpmpi run -- mpirun -np 4 ./app");
        }
        return List.copyOf(after);
    }
}
