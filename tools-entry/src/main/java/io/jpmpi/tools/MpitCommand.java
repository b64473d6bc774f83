package io.jpmpi.tools;

import io.jpmpi.platform.Settings;
import java.io.IOException;
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

/** {@code jpmpi mpit}: the MPI tools interface of an installed MPI. */
@Command(name = "mpit", mixinStandardHelpOptions = true, subcommands = {MpitCommand.ListCommand.class},
        description = {"The MPI tools interface (MPI_T) of an installed MPI.",
                "The mpit tool itself is listed like any other: jpmpi run --tools mpit[,profile] -- mpirun ...;"
                        + " JPMPI_MPIT_READ, JPMPI_MPIT_PVARS and JPMPI_MPIT_CVARS set its options."})
public final class MpitCommand implements Callable<Integer> {
    private final Context ctx;

    public MpitCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        ctx.err().println("jpmpi mpit: a subcommand is needed: list (see jpmpi mpit --help)");
        ctx.err().flush();
        return ExitCode.USAGE.code;
    }

    /** {@code jpmpi mpit list}: every performance and control variable, from a one-rank job. */
    @Command(name = "list", mixinStandardHelpOptions = true,
            description = {"Print every MPI_T performance and control variable of an MPI: class or scope, bind type,"
                    + " datatype, verbosity, flags and description, before and after MPI_Init.",
                    "It runs one rank of a tiny program through the mpit tool; LAUNCHER-ARGS go to the launcher"
                            + " (e.g. --mca pml_monitoring_enable 1 for Open MPI's monitoring variables)."})
    public static final class ListCommand implements Callable<Integer> {
        @Option(names = "--mpi", paramLabel = "IMPL", defaultValue = "openmpi",
                description = "openmpi or mpich (default: ${DEFAULT-VALUE}).")
        String mpi;

        @Parameters(paramLabel = "LAUNCHER-ARGS", arity = "0..*", description = "Extra launcher arguments.")
        List<String> launcherArgs = new ArrayList<>();

        private final Context ctx;

        public ListCommand(Context ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws JpmpiException {
            MpiImpl impl = MpiImpl.byId(mpi).orElseThrow(() -> new JpmpiException(ExitCode.USAGE,
                    "--mpi " + mpi + ": expected openmpi or mpich"));
            Layout layout = ctx.layout();
            Path probe = layout.mpitProbe(impl);
            if (!Files.isExecutable(probe)) {
                throw new JpmpiException(ExitCode.BAD_ENTRY, "mpit list: " + probe + " is not built (./mvnw install"
                        + " -DskipTests)");
            }
            Path file;
            try {
                file = Files.createTempFile("jpmpi-mpit-list", ".txt");
            } catch (IOException e) {
                throw new JpmpiException(ExitCode.CANNOT_START, "mpit list: cannot create a temporary file: "
                        + e.getMessage());
            }
            try {
                List<String> command = new ArrayList<>();
                command.add(impl.mpirun());
                command.addAll(launcherArgs);
                command.addAll(impl.ranksArgs(1));
                command.add(probe.toString());
                Map<String, String> env = new LinkedHashMap<>(ctx.env());
                env.put(Settings.get("MPIT", "LIST").env(), file.toString());
                Job job = Job.plan(layout, new Job.Request(command, "mpit", null, Optional.of(impl), true), env);
                Map<String, String> launcherEnv = new LinkedHashMap<>(job.launcherEnv());
                launcherEnv.putAll(AsRoot.allowance(ctx, job.launcher().kind()));
                int rc = Processes.runForeground(job.command(), launcherEnv);
                String listing = Files.size(file) > 0 ? Files.readString(file) : "";
                if (rc != 0 || listing.isEmpty()) {
                    throw new JpmpiException(ExitCode.CANNOT_START, "mpit list: the one-rank job failed (exit " + rc
                            + "): " + Shell.quote(job.command()));
                }
                ctx.out().print(listing);
                ctx.out().flush();
                return ExitCode.OK.code;
            } catch (IOException e) {
                throw new JpmpiException(ExitCode.CANNOT_START, "mpit list: " + e.getMessage());
            } finally {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    ctx.note("cannot remove " + file + ": " + e.getMessage());
                }
            }
        }
    }
}
