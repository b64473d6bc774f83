package io.jpmpi.tools;

import io.jpmpi.platform.InstallLayout;
import io.jpmpi.platform.Settings;
import io.jpmpi.tools.accounting.AccountingCommand;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;
import picocli.CommandLine;

/**
 * {@code jpmpi}: the top command; every subcommand is a class of its own. The commands every job goes
 * through (this one, run and report: {@link Modelled}) make their picocli model with its programmatic
 * API; the others, which only their own command line builds, with annotations.
 */
public final class JpmpiCommand implements Callable<Integer> {
    /**
     * A command whose model is made with picocli's programmatic API rather than read from annotations,
     * which makes the JVM generate a proxy class per annotation type on every start (the larger part of
     * the model's time: benchmarks/README.md, "launcher/"). Such a class has a constructor taking the
     * {@link Context}, like the annotated ones.
     */
    interface Modelled {
        /** The command's model, bound to this object (its {@code call} reads the values from it). */
        CommandSpec spec();
    }

    /**
     * The subcommands by name, in the order help lists them (each name is its class's
     * {@code @Command} name, or its model's: CommandLineTest compares them).
     */
    static final Map<String, Class<?>> SUBCOMMANDS = subcommands(RunCommand.class, "run", DoctorCommand.class, "doctor",
            FunctionsCommand.class, "functions", DemoCommand.class, "demo", ConfigCommand.class, "config",
            ReportCommand.class, "report", MpitCommand.class, "mpit", AccountingCommand.class, "accounting",
            InstallCommand.class, "install", AotCommand.class, "aot", NewToolCommand.class, "new-tool",
            CommandLine.HelpCommand.class, "help");

    private final Context ctx;
    private final CommandSpec spec;

    public JpmpiCommand(Context ctx) {
        this.ctx = ctx;
        this.spec = model(this, "jpmpi", "Stack C PMPI tools and Java interceptors in an unmodified MPI program.")
                .versionProvider(new Version(ctx));
    }

    /**
     * The start of a {@link Modelled} command's model: bound to {@code command} (not inspected for
     * annotations), its name, the standard help options, its description.
     */
    static CommandSpec model(Object command, String name, String... description) {
        CommandSpec spec = CommandSpec.wrapWithoutInspection(command).name(name);
        standardHelpOptions(spec);
        spec.usageMessage().description(description);
        return spec;
    }

    /**
     * -h/--help and -V/--version as picocli's {@code mixinStandardHelpOptions} makes them, which it makes
     * from the annotations of a class of its own.
     */
    static void standardHelpOptions(CommandSpec spec) {
        spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).type(boolean.class)
                .description("Show this help message and exit.").build());
        spec.addOption(OptionSpec.builder("-V", "--version").versionHelp(true).type(boolean.class)
                .description("Print version information and exit.").build());
    }

    /** Whether the boolean option {@code name} of {@code spec} was given. */
    static boolean isSet(CommandSpec spec, String name) {
        return Boolean.TRUE.equals(spec.findOption(name).getValue());
    }

    /**
     * What {@code cl.addSubcommand} takes for {@code cls}: its model, or the annotated class. The
     * modelled ones are constructed directly: a reflective constructor's accessor, which the JVM
     * generates on first use, was ~5 ms of the launcher's start (benchmarks/README.md, "The seventh
     * session").
     */
    private static Object subcommand(Class<?> cls, Context ctx) {
        if (cls == RunCommand.class) {
            return new RunCommand(ctx).spec();
        } else if (cls == ReportCommand.class) {
            return new ReportCommand(ctx).spec();
        } else if (Modelled.class.isAssignableFrom(cls)) {
            throw new IllegalStateException(cls + " is modelled but not constructed in JpmpiCommand.subcommand");
        }
        return cls;
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(ctx.err());
        return ExitCode.USAGE.code;
    }

    /** Runs {@code args}; returns the exit status. Output goes where {@code ctx} says. */
    public static int execute(Context ctx, String... args) {
        // jpmpi run's programs are inspected while picocli makes its model (Ahead)
        Ahead.start(args, ctx.env());
        try {
            CommandLine cl = commandLine(ctx, args);
            return cl.execute(args);
        } finally {
            Ahead.clear();
        }
    }

    private static Map<String, Class<?>> subcommands(Object... classAndName) {
        Map<String, Class<?>> m = new LinkedHashMap<>();
        for (int i = 0; i < classAndName.length; i += 2) {
            m.put((String) classAndName[i + 1], (Class<?>) classAndName[i]);
        }
        return Collections.unmodifiableMap(m);
    }

    /** The whole command tree, wired to {@code ctx}: help footers, error handlers, exit codes. */
    public static CommandLine commandLine(Context ctx) {
        return commandLine(ctx, new String[] {""});
    }

    /** picocli's switch for its reflective built-in converters: a list of regular expressions of class names. */
    static final String CONVERTERS_EXCLUDED = "picocli.converters.excludes";

    /** The words that ask for the version only. */
    private static final Set<String> VERSION = Set.of("-V", "--version");

    /**
     * The command tree for the command line {@code args}: when its first word names a subcommand
     * (other than help, which shows the others), the tree holds that one only, since picocli's model
     * of every subcommand, made from their annotations, is the larger part of the launcher's start
     * (benchmarks/README.md, "launcher/"); when it only asks for the version ({@code -V},
     * {@code --version}), none; otherwise every subcommand.
     */
    static CommandLine commandLine(Context ctx, String... args) {
        // picocli's converters for the JDK's java.sql, java.time and java.nio.file types are looked up
        // by reflection in every new CommandLine (Class.forName, getDeclaredMethod), and a Path option's
        // value was then converted through a reflective call whose accessor the JVM generates on first
        // use: ~20% of the launcher's own CPU before a job started (benchmarks/README.md, "The seventh
        // session"). No jpmpi option takes a java.sql or java.time type; Path has its converter here.
        if (System.getProperty(CONVERTERS_EXCLUDED) == null) {
            System.setProperty(CONVERTERS_EXCLUDED, "java.*");
        }
        String first = args.length > 0 ? args[0] : "";
        boolean none = args.length > 0 && Arrays.stream(args).allMatch(VERSION::contains);
        CommandLine.IFactory defaults = CommandLine.defaultFactory();
        CommandLine.IFactory factory = new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> cls) throws Exception {
                if (!cls.getName().startsWith("io.jpmpi.")) {
                    return defaults.create(cls); // picocli's own (the collections it fills): no exception thrown first
                }
                try {
                    return cls.getDeclaredConstructor(Context.class).newInstance(ctx);
                } catch (NoSuchMethodException e) {
                    return defaults.create(cls);
                }
            }
        };
        CommandLine cl = new CommandLine(new JpmpiCommand(ctx).spec, factory);
        boolean one = SUBCOMMANDS.containsKey(first) && !first.equals("help");
        SUBCOMMANDS.forEach((name, cls) -> {
            if (!none && (!one || name.equals(first))) {
                cl.addSubcommand(name, subcommand(cls, ctx));
            }
        });
        cl.setOut(ctx.out());
        cl.setErr(ctx.err());
        // The environment and exit-status tables once, in jpmpi --help; each subcommand points there.
        // Both tables are made when a help shows them, not on every command.
        footerWhenShown(cl, JpmpiCommand::footer);
        cl.getSubcommands().values().forEach(sub -> sub.getCommandSpec().usageMessage().footer(SUB_FOOTER));
        CommandLine run = cl.getSubcommands().get("run");
        if (run != null) {
            footerWhenShown(run, () -> builtinTools() + SUB_FOOTER);
            // Whatever run does not know before `--` comes to it as a word, so that it can tell a missing
            // `--` (mpirun's own options) from a mistyped option of its own.
            run.setUnmatchedOptionsArePositionalParams(true);
        }
        cl.registerConverter(Path.class, Path::of); // (the whole tree: after the subcommands are in it)
        cl.setParameterExceptionHandler(JpmpiCommand::badCommandLine);
        cl.setExecutionExceptionHandler((ex, line, parsed) -> {
            if (ex instanceof JpmpiException j) {
                ctx.note(j.getMessage());
                return j.exit().code;
            }
            ctx.note("internal error: " + ex + " (please report it with the command line)");
            return ExitCode.INTERNAL.code;
        });
        return cl;
    }

    /** {@code cl}'s help footer, made by {@code footer} when the help is shown. */
    private static void footerWhenShown(CommandLine cl, java.util.function.Supplier<String> footer) {
        cl.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER, help -> {
            help.commandSpec().usageMessage().footer(footer.get());
            return help.footer();
        });
    }

    private static int badCommandLine(ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        String name = cl.getCommandSpec().qualifiedName();
        String message = ex.getMessage();
        if (ex instanceof UnmatchedArgumentException u && cl.getCommandSpec().parent() == null
                && !u.getUnmatched().isEmpty() && !u.getUnmatched().get(0).startsWith("-")) {
            message = "unknown subcommand '" + u.getUnmatched().get(0) + "' (subcommands: "
                    + String.join(", ", cl.getSubcommands().keySet()) + ")";
        }
        cl.getErr().println(name + ": " + message.lines().findFirst().orElse(message) + " (see " + name + " --help)");
        cl.getErr().flush();
        return ExitCode.USAGE.code;
    }

    /** The footer of every subcommand's help. */
    static final String SUB_FOOTER = "%nEnvironment variables and exit statuses: jpmpi --help; their values here: jpmpi config.%n";

    /** run's list of the built-in tool names, from their table. */
    static String builtinTools() {
        StringBuilder b = new StringBuilder("%nBuilt-in tools (--tools NAME):%n");
        for (BuiltinTools.Tool t : BuiltinTools.all()) {
            b.append(hanging(String.format("  %-13s ", t.name()), t.description()));
        }
        return b.toString();
    }

    /** Exit statuses and configuration, produced from their tables. */
    static String footer() {
        StringBuilder b = new StringBuilder("%nEnvironment (jpmpi config shows the values):%n");
        for (Settings.Setting s : Settings.all()) {
            b.append(hanging(String.format("  %-24s ", s.env()), s.description()));
        }
        b.append("%nExit status:%n");
        for (ExitCode e : ExitCode.values()) {
            b.append(hanging(String.format("  %3d  ", e.code), e.meaning));
        }
        b.append(hanging("       ", "run returns the launcher's exit status otherwise (128+N when signal N ended it)."));
        return b.toString();
    }

    /** {@code head} then {@code text} wrapped at 80 columns, continuation lines under its start. */
    private static String hanging(String head, String text) {
        int width = 80;
        StringBuilder b = new StringBuilder(head);
        int col = head.length();
        String indent = " ".repeat(head.length());
        for (String word : text.split(" ")) {
            if (col > head.length() && col + 1 + word.length() > width) {
                b.append("%n").append(indent);
                col = head.length();
            } else if (col > head.length()) {
                b.append(' ');
                col++;
            }
            b.append(word.replace("%", "%%"));
            col += word.length();
        }
        return b.append("%n").toString();
    }

    /**
     * {@code jpmpi -V}: the installation's version, commit and build time (share/jpmpi/jpmpi.properties),
     * the MPIs its dispatchers were built for (lib/&lt;mpi&gt;/jpmpi-build.properties) and where it is.
     */
    static final class Version implements CommandLine.IVersionProvider {
        private final Context ctx;

        Version(Context ctx) {
            this.ctx = ctx;
        }

        @Override
        public String[] getVersion() {
            Properties p = ctx.layout().properties();
            String version = p.getProperty(InstallLayout.VERSION_KEY, "(development build)");
            List<String> lines = new ArrayList<>();
            lines.add("jpmpi " + version + " (commit " + p.getProperty(InstallLayout.COMMIT_KEY, "unknown") + ", built "
                    + p.getProperty(InstallLayout.BUILD_DATE_KEY, "unknown") + ")");
            List<String> mpis = new ArrayList<>();
            for (MpiImpl impl : MpiImpl.values()) {
                Properties b = new Properties();
                try (InputStream in = Files.newInputStream(ctx.layout().buildInfo(impl.id()))) {
                    b.load(in);
                } catch (IOException e) {
                    continue; // not built for this MPI
                }
                mpis.add(impl.displayName() + " " + b.getProperty("mpi.version", "?") + " (" + b.getProperty("mpi.library", "?")
                        + ", built with " + b.getProperty("mpicc", "?") + ")");
            }
            lines.add("built for: " + (mpis.isEmpty() ? "no MPI (no dispatcher in lib/)" : String.join(", ", mpis)));
            lines.add("installed in " + ctx.layout().home());
            return lines.toArray(String[]::new);
        }
    }
}
