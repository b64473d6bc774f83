package io.jpmpi.tools;

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
 * {@code jpmpi demo}: the README's main job. Builds jpmpi if a part is missing, compiles the halo
 * exchange demo (examples/halo-demo) and runs it on 4 ranks through the launcher's own path
 * ({@link Job}) with the tools jpmpi has: a Java level on top of a C level.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Build what is missing, compile the halo-exchange demo and run it on 4 ranks through jpmpi"
                + " with the available tools (a Java level over a C level), printing their report.",
                "Arguments after -- go to the demo: [cells-per-rank [iterations [tolerance]]]."})
public final class DemoCommand implements Callable<Integer> {
    /** The tools the demo runs with, top first. */
    static final String TOOLS = "java-counter,mpicount";

    @Option(names = "--mpi", paramLabel = "IMPL", defaultValue = "openmpi", description = "openmpi (default) or mpich.")
    String mpi;

    @Option(names = "--np", paramLabel = "N", defaultValue = "4", description = "Ranks (default 4).")
    int np;

    @Option(names = "--rebuild", description = "Run the Maven build even if everything is there.")
    boolean rebuild;

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
        build(layout, impl);
        Path work = layout.demoDir().resolve("target").resolve(impl.id());
        Path halo = work.resolve("halo");
        try {
            Files.createDirectories(work);
        } catch (java.io.IOException e) {
            throw new JpmpiException(ExitCode.CANNOT_START, "demo: cannot create " + work + ": " + e.getMessage());
        }
        run(List.of(impl.mpicc(), "-std=c99", "-O2", "-Wall", "-Wextra", "-o", halo.toString(),
                layout.demoDir().resolve("halo.c").toString(), "-lm"), "compiling the demo");
        run(List.of("make", "-s", "-C", layout.cToolsDir().toString(), "MPICC=" + impl.mpicc(),
                "OUT=" + BuiltinTools.cToolPath(layout, impl, "x").getParent()), "building the C tool mpicount");

        List<String> command = new ArrayList<>();
        command.add(impl.mpirun());
        command.addAll(impl.ranksArgs(np));
        command.add(halo.toString());
        command.addAll(haloArgs);
        Job job = Job.plan(layout, new Job.Request(command, (verbose ? "v," : "") + TOOLS, null, Optional.of(impl), true),
                ctx.env());
        ctx.note("running the halo-exchange demo on " + np + " " + impl.displayName() + " ranks through jpmpi, tools "
                + TOOLS + ": java-counter (a Java level: one count line per rank) over mpicount (a C PMPI tool: a"
                + " call/time/byte table)");
        ctx.note("same as: jpmpi run --tools " + TOOLS + " -- " + Shell.quote(command));
        Map<String, String> env = new LinkedHashMap<>(job.launcherEnv());
        env.putAll(DoctorCommand.rootAllowance());
        return Processes.runForeground(job.command(), env);
    }

    /** Runs the Maven build when a part the demo needs is missing (or --rebuild). */
    private void build(Layout layout, MpiImpl impl) throws JpmpiException {
        List<Path> needed = new ArrayList<>(List.of(layout.dispatcher(impl.id()),
                layout.javaRuntimeDir().resolve("jpmpi-layering.jar")));
        boolean missing = needed.stream().anyMatch(p -> !Files.isRegularFile(p)) || layout.javaCounterJar().isEmpty();
        if (!missing && !rebuild) {
            return;
        }
        ctx.note("building jpmpi (./mvnw install -DskipTests): first time only");
        Map<String, String> env = Map.of("JAVA_HOME", System.getProperty("java.home"));
        int rc = Processes.runForeground(List.of(layout.mavenWrapper().toString(), "-B", "-q", "-f",
                layout.home().resolve("pom.xml").toString(), "install", "-DskipTests"), env);
        if (rc != 0) {
            throw new JpmpiException(ExitCode.CANNOT_START, "demo: the Maven build failed (exit " + rc + ")");
        }
    }

    private static void run(List<String> command, String what) throws JpmpiException {
        int rc = Processes.runForeground(command, Map.of());
        if (rc != 0) {
            throw new JpmpiException(ExitCode.CANNOT_START, "demo: " + what + " failed (" + command.get(0) + " exit " + rc + ")");
        }
    }
}
