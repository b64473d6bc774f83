package io.jpmpi.tools;

import io.jpmpi.platform.InstallLayout;
import io.jpmpi.profilers.report.Reports;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jpmpi demo}: the README's main job. Compiles the halo exchange demo (the installation's
 * share/jpmpi/examples/halo-demo) and runs it on 4 ranks through the launcher's own path
 * ({@link Job}) with jpmpi's profiler (a C level that records, a Java level that aggregates) over
 * the example Java level, then prints the profile's report. It works in the example's build/
 * folder where the installation is writable (the development tree), else in ./jpmpi-demo.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Compile the halo-exchange demo and run it on 4 ranks through jpmpi"
                + " with jpmpi's profiler over an example Java level, printing the profile's report.",
                "Arguments after -- go to the demo: [cells-per-rank [iterations [tolerance]]]."})
public final class DemoCommand implements Callable<Integer> {
    /** The tools the demo runs with, top first. */
    static final String TOOLS = "profile,java-counter";
    /** Where the demo is compiled and run, in the example's folder when that is writable. */
    static final String BUILD_DIR = "build";

    @Option(names = "--mpi", paramLabel = "IMPL", defaultValue = "openmpi", description = "openmpi (default) or mpich.")
    String mpi;

    @Option(names = "--np", paramLabel = "N", defaultValue = "4", description = "Ranks (default 4).")
    int np;

    @Option(names = {"-v", "--verbose"}, description = "Show the level table and the command.")
    boolean verbose;

    @Parameters(paramLabel = "HALO-ARGS", arity = "0..*")
    List<String> haloArgs = List.of();

    private final Context ctx;

    public DemoCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws JpmpiException {
        MpiImpl impl = MpiImpl.byId(mpi).orElseThrow(() -> new JpmpiException(ExitCode.USAGE,
                "demo: --mpi " + mpi + ": expected openmpi or mpich"));
        if (np < 1) {
            throw new JpmpiException(ExitCode.USAGE, "demo: --np " + np + ": at least 1 rank");
        }
        Layout layout = ctx.layout();
        if (Launcher.which(impl.mpicc(), ctx.env()).isEmpty()) {
            throw new JpmpiException(ExitCode.NOT_BUILT, "demo: " + impl.mpicc() + " is not on PATH (install "
                    + impl.displayName() + ", or set " + impl.mpiccSetting().env() + ")");
        }
        checkInstalled(layout, impl);
        Path work = (Files.isWritable(layout.demoDir()) ? layout.demoDir().resolve(BUILD_DIR)
                : Path.of("jpmpi-demo").toAbsolutePath()).resolve(impl.id());
        Path halo = work.resolve("halo");
        try {
            Files.createDirectories(work);
        } catch (java.io.IOException e) {
            throw new JpmpiException(ExitCode.CANNOT_START, "demo: cannot create " + work + ": " + e.getMessage());
        }
        // -g: the profile names the call sites by file, line and function (PROFILE.md, "Call sites")
        run(List.of(impl.mpicc(), "-std=c99", "-O2", "-g", "-Wall", "-Wextra", "-o", halo.toString(),
                layout.demoDir().resolve("halo.c").toString(), "-lm"), "compiling the demo");
        Path out = work.resolve("profile");
        try {
            if (Files.isDirectory(out)) {
                try (var old = Files.walk(out)) {
                    for (Path p : old.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
        } catch (java.io.IOException e) {
            throw new JpmpiException(ExitCode.CANNOT_START, "demo: cannot clear " + out + ": " + e.getMessage());
        }

        List<String> command = new ArrayList<>();
        command.add(impl.mpirun());
        command.addAll(impl.ranksArgs(np));
        command.add(halo.toString());
        command.addAll(haloArgs);
        Job job = Job.plan(layout, new Job.Request(command, (verbose ? "v," : "") + TOOLS, out, Optional.of(impl), true),
                ctx.env());
        ctx.note("running the halo-exchange demo on " + np + " " + impl.displayName() + " ranks through jpmpi, tools "
                + TOOLS + ": profile (a C level records every call; at MPI_Finalize rank 0 collects every rank's"
                + " figures, and jpmpi makes the profile and its reports when the ranks have exited) over java-counter"
                + " (a Java level: one count line per rank)");
        ctx.note("same as: jpmpi run --tools " + TOOLS + " --output " + out + " -- " + Shell.quote(command));
        Map<String, String> env = new LinkedHashMap<>(job.launcherEnv());
        env.putAll(AsRoot.allowance(ctx, job.launcher().kind()));
        long started = System.nanoTime();
        int rc = Processes.runForeground(job.command(), env);
        ProfileOutput.finish(ctx, out, ProfileOutput.run(ctx, job, command, TOOLS, out.toAbsolutePath().normalize(),
                started));
        Path text = out.resolve(Reports.TEXT);
        if (!Files.isRegularFile(text)) {
            throw new JpmpiException(ExitCode.CHECKS_FAILED, "demo: the job " + (rc == 0 ? "ran" : "failed (exit " + rc
                    + ")") + " but wrote no " + text);
        }
        try {
            ctx.out().println();
            ctx.out().print(Files.readString(text));
            ctx.out().flush();
        } catch (java.io.IOException e) {
            throw new JpmpiException(ExitCode.CANNOT_START, "demo: cannot read " + text + ": " + e.getMessage());
        }
        ctx.note("the same profile as a page with plots: " + out.resolve(Reports.HTML) + "; as data: "
                + out.resolve("profile.json"));
        return rc;
    }

    /** Refuses to start when a part the demo needs is not in the installation. */
    private static void checkInstalled(Layout layout, MpiImpl impl) throws JpmpiException {
        List<Path> needed = new ArrayList<>(List.of(layout.dispatcher(impl.id()), layout.demoDir().resolve("halo.c"),
                layout.javaRuntimeDir().resolve(InstallLayout.RUNTIME_JARS[0]), layout.profileRecorder(impl)));
        layout.javaCounterJar().ifPresentOrElse(needed::add, () -> needed.add(layout.home().resolve(
                InstallLayout.JAVA_TOOLS).resolve("java-counter")));
        for (Path p : needed) {
            if (!Files.exists(p)) {
                throw new JpmpiException(ExitCode.NOT_BUILT, "demo: this installation (" + layout.home() + ") lacks "
                        + p + "; in the source tree, ./demo.sh --rebuild builds it");
            }
        }
    }

    private static void run(List<String> command, String what) throws JpmpiException {
        int rc = Processes.runForeground(command, Map.of());
        if (rc != 0) {
            throw new JpmpiException(ExitCode.CANNOT_START, "demo: " + what + " failed (" + command.get(0) + " exit " + rc + ")");
        }
    }
}
