package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.MpiRun.Impl;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * jpmpi's command line in process (picocli): help, the refusals with their one line and their
 * exit status (detection is real: the installed launchers and test-support's programs, read with
 * ldd and nm). The commands `run --dry-run` builds from the built layout: {@link DryRunIT}.
 */
class CommandLineTest {
    private static final String OMPI_PINGPONG = Impl.OPENMPI.file("pingpong");
    private static final String MPICH_PINGPONG = Impl.MPICH.file("pingpong");

    @ParameterizedTest
    @ValueSource(strings = {"run", "doctor", "functions", "demo", "config", "new-tool", "install", "aot", "report", "mpit"})
    void everySubcommandHasHelpThatPointsToTheTablesInsteadOfRepeatingThem(String sub) {
        Cli r = Cli.run(sub, "--help");
        assertEquals(0, r.exit(), r::describe);
        assertTrue(r.out().startsWith("Usage: jpmpi " + sub), r::describe);
        assertTrue(r.out().contains("Environment variables and exit statuses: jpmpi --help"), r::describe);
        assertTrue(!r.out().contains("Exit status:") && !r.out().contains("Environment (jpmpi config"), r::describe);
        long settings = io.jpmpi.platform.Settings.all().stream().filter(s -> r.out().contains(s.env())).count();
        assertTrue(settings <= 4, () -> settings + " configuration variables named\n" + r.describe());
    }

    /**
     * Every command's help, the nested ones included ({@code accounting summary}), renders without
     * picocli's warnings: a description with a bare '%' is a format string picocli cannot format, and
     * it then printed "[picocli WARN] Could not format ..." on stderr above the help.
     */
    @Test
    void everyHelpRendersWithoutPicocliWarnings() {
        Context ctx = new Context(Layout.current(), System.getenv(), new PrintWriter(new StringWriter()),
                new PrintWriter(new StringWriter()));
        ByteArrayOutputStream warned = new ByteArrayOutputStream();
        PrintStream err = System.err;
        List<String> seen = new ArrayList<>();
        System.setErr(new PrintStream(warned, true, StandardCharsets.UTF_8));
        try {
            helpOfAll(JpmpiCommand.commandLine(ctx), seen);
        } finally {
            System.setErr(err);
        }
        assertTrue(seen.contains("jpmpi accounting summary") && seen.contains("jpmpi run"), seen::toString);
        assertEquals("", warned.toString(StandardCharsets.UTF_8), "the help of " + seen);
    }

    private static void helpOfAll(CommandLine c, List<String> seen) {
        seen.add(c.getCommandSpec().qualifiedName());
        c.getUsageMessage();
        c.getSubcommands().values().forEach(s -> helpOfAll(s, seen));
    }

    @Test
    void theSubcommandTableNamesEachClassByItsCommandName() {
        Context ctx = new Context(Layout.current(), Map.of(), new java.io.PrintWriter(java.io.Writer.nullWriter()),
                new java.io.PrintWriter(java.io.Writer.nullWriter()));
        assertEquals(List.copyOf(JpmpiCommand.SUBCOMMANDS.keySet()),
                List.copyOf(JpmpiCommand.commandLine(ctx).getSubcommands().keySet()));
        JpmpiCommand.SUBCOMMANDS.forEach((name, cls) -> assertEquals(name, commandName(cls, ctx), cls::getName));
        // a command line starting with a subcommand's name builds that one only (the launcher's start);
        // help, an unknown word or an option build them all; the version alone none
        for (String first : JpmpiCommand.SUBCOMMANDS.keySet()) {
            var subs = JpmpiCommand.commandLine(ctx, first).getSubcommands().keySet();
            assertEquals(first.equals("help") ? JpmpiCommand.SUBCOMMANDS.keySet() : java.util.Set.of(first), subs, first);
        }
        for (String first : List.of("", "--help", "rnu", "-h")) {
            assertEquals(JpmpiCommand.SUBCOMMANDS.keySet(), JpmpiCommand.commandLine(ctx, first).getSubcommands().keySet(), first);
        }
        for (List<String> words : List.of(List.of("-V"), List.of("--version"), List.of("-V", "--version"))) {
            assertEquals(java.util.Set.of(), JpmpiCommand.commandLine(ctx, words.toArray(String[]::new)).getSubcommands()
                    .keySet(), words::toString);
        }
        for (List<String> words : List.of(List.of("-V", "run"), List.of("-V", "--help"), List.of("-V", "-x"))) {
            assertEquals(JpmpiCommand.SUBCOMMANDS.keySet(), JpmpiCommand.commandLine(ctx, words.toArray(String[]::new))
                    .getSubcommands().keySet(), words::toString);
        }
    }

    @Test
    void theVersionMadeWithoutAnySubcommandIsTheSameAsWithThemAll() {
        Cli alone = Cli.run("--version");
        assertEquals(0, alone.exit(), alone::describe);
        assertTrue(alone.out().startsWith("jpmpi "), alone::describe);
        assertTrue(alone.out().contains("built for: "), alone::describe);
        // -V with a word after it builds every subcommand: the same lines, the same status
        Cli withRun = Cli.run("-V", "run");
        assertEquals(alone.exit(), withRun.exit(), withRun::describe);
        assertEquals(alone.out(), withRun.out(), withRun::describe);
        assertEquals(alone.out(), Cli.run("-V").out());
    }

    /** The name a subcommand's class gives itself: its model's (JpmpiCommand.Modelled), else its annotation's. */
    private static String commandName(Class<?> cls, Context ctx) {
        if (JpmpiCommand.Modelled.class.isAssignableFrom(cls)) {
            try {
                return ((JpmpiCommand.Modelled) cls.getDeclaredConstructor(Context.class).newInstance(ctx)).spec().name();
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
        }
        return cls.getAnnotation(picocli.CommandLine.Command.class).name();
    }

    @Test
    void helpOfASubcommandAndAnUnknownOneStillKnowEverySubcommand() {
        Cli help = Cli.run("help", "report");
        assertEquals(0, help.exit(), help::describe);
        assertTrue(help.out().startsWith("Usage: jpmpi report"), help::describe);
        Cli unknown = Cli.run("rnu", "--", "mpirun", "./a.out");
        assertEquals(ExitCode.USAGE.code, unknown.exit(), unknown::describe);
        assertTrue(unknown.err().contains("unknown subcommand 'rnu' (subcommands: " + String.join(", ",
                JpmpiCommand.SUBCOMMANDS.keySet()) + ")"), unknown::describe);
    }

    @Test
    void runHelpListsTheBuiltInTools() {
        Cli r = Cli.run("run", "--help");
        for (String name : BuiltinTools.names()) {
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith("  " + name + " ")), () -> name + "\n" + r.describe());
        }
    }

    @Test
    void topLevelHelpListsSubcommandsEnvironmentAndExitCodes() {
        Cli r = Cli.run("--help");
        assertEquals(0, r.exit(), r::describe);
        for (String s : List.of("run", "doctor", "functions", "demo", "config")) {
            assertTrue(r.out().contains("  " + s + " "), () -> s + "\n" + r.describe());
        }
        for (var s : io.jpmpi.platform.Settings.all()) {
            assertTrue(r.out().contains(s.env()), s::env);
        }
        for (ExitCode e : ExitCode.values()) {
            assertTrue(r.out().contains(String.format("%3d  ", e.code)), e::name);
        }
    }

    /**
     * picocli's reflective converters are off (JpmpiCommand.CONVERTERS_EXCLUDED): the Path options still
     * take any path, spaces and all, in every command that has one (run's --output, new-tool's DIR,
     * report's DIR), and a value no path can be is refused in one line.
     */
    @Test
    void pathOptionsWithoutPicocliReflectiveConverters() throws Exception {
        Path dir = Files.createTempDirectory("jpmpi cli paths ");
        try {
            // (no dispatcher is built where the unit tests run: the run is refused after its command line
            // was read, not because of it; DryRunIT has the built one)
            Cli run = Cli.run("run", "--dry-run", "--tools", "profile", "--output", dir.resolve("out dir").toString(), "--",
                    "mpirun", OMPI_PINGPONG);
            assertTrue(run.exit() != ExitCode.USAGE.code && !run.err().contains("--output"), run::describe);
            assertEquals("java.*", System.getProperty(JpmpiCommand.CONVERTERS_EXCLUDED), "the converters are not off");
            Cli report = Cli.run("report", dir.resolve("no such").toString());
            assertTrue(report.err().contains(dir.resolve("no such").toString()), report::describe);
            Cli nul = Cli.run("run", "--dry-run", "--output", "a\0b", "--", "mpirun", OMPI_PINGPONG);
            assertEquals(ExitCode.USAGE.code, nul.exit(), nul::describe);
            assertEquals(1, nul.err().lines().count(), nul::describe);
            assertTrue(nul.err().contains("--output"), nul::describe);
        } finally {
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void exitCodesAreDistinct() {
        assertEquals(ExitCode.values().length, java.util.Arrays.stream(ExitCode.values()).mapToInt(e -> e.code).distinct().count());
    }

    /** One line on stderr, nothing on stdout, the documented status. */
    static void refused(Cli r, ExitCode code, String... fragments) {
        assertEquals(code.code, r.exit(), r::describe);
        assertEquals("", r.out(), r::describe);
        assertEquals(1, r.err().lines().count(), r::describe);
        for (String f : fragments) {
            assertTrue(r.err().contains(f), () -> "expected '" + f + "'\n" + r.describe());
        }
    }

    @Test
    void unknownSubcommand() {
        refused(Cli.run("frobnicate"), ExitCode.USAGE, "unknown subcommand 'frobnicate'", "run, doctor");
    }

    @Test
    void unknownOptions() {
        refused(Cli.run("--frob"), ExitCode.USAGE, "--frob");
        refused(Cli.run("run", "--toolz", "x", "--", "mpirun", OMPI_PINGPONG), ExitCode.USAGE, "unknown option '--toolz'");
        refused(Cli.run("doctor", "--bogus"), ExitCode.USAGE, "--bogus");
        refused(Cli.run("functions", "--category", "nonsense"), ExitCode.USAGE, "unknown category 'nonsense'");
    }

    @Test
    void launcherWithoutSeparator() {
        refused(Cli.run("run", "mpirun", "-np", "2", OMPI_PINGPONG), ExitCode.NO_SEPARATOR, "must follow `--`");
        refused(Cli.run("run"), ExitCode.NO_SEPARATOR, "`--`");
        refused(Cli.run("run", "--"), ExitCode.NO_SEPARATOR, "nothing after `--`");
    }

    @Test
    void unknownLaunchers() {
        refused(Cli.run("run", "--", "bash", "-c", "true"), ExitCode.UNKNOWN_LAUNCHER, "'bash' is not an MPI launcher");
        refused(Cli.run("run", "--", "no-such-mpirun", "-np", "2", OMPI_PINGPONG), ExitCode.UNKNOWN_LAUNCHER,
                "'no-such-mpirun' not found on PATH");
    }

    @Test
    void programsThatAreNotMpi(@TempDir Path dir) {
        refused(Cli.run("run", "--", "mpirun", "-np", "2", "/bin/true"), ExitCode.NOT_MPI,
                "/bin/true is not an MPI program", "--no-app-check");
        refused(Cli.run("run", "--", "mpirun", "-np", "2", dir.resolve("missing").toString()), ExitCode.NOT_MPI,
                "no program to run: mpirun's program '" + dir.resolve("missing") + "' (the command line) is not an"
                        + " executable file");
    }

    /**
     * The program is the word the launcher's grammar says, never an option's value that names an
     * executable file (issue 28: the remote-shell agent of a multi-host job was taken for it).
     */
    @Test
    void anOptionsValueIsNeverTakenForTheProgram(@TempDir Path dir) throws java.io.IOException {
        Path agent = dir.resolve("agent");
        java.nio.file.Files.writeString(agent, "#!/bin/sh\nexec ssh \"$@\"\n");
        java.nio.file.Files.setPosixFilePermissions(agent, java.nio.file.attribute.PosixFilePermissions
                .fromString("rwx------"));
        refused(Cli.run("run", "--dry-run", "--", "mpirun", "--mca", "plm_rsh_agent", agent.toString(), "-np", "2",
                MPICH_PINGPONG), ExitCode.MPI_MISMATCH, "belongs to Open MPI", MPICH_PINGPONG + " is linked against MPICH");
        refused(Cli.run("run", "--dry-run", "--", "mpiexec.hydra", "-launcher", "ssh", "-launcher-exec",
                agent.toString(), "-n", "2", "/bin/true"), ExitCode.NOT_MPI, "/bin/true is not an MPI program");
    }

    /** An option no table has: one line naming it and how to go on, nothing guessed. */
    @Test
    void anOptionNoTableHasIsNamed() {
        refused(Cli.run("run", "--dry-run", "--", "mpiexec.hydra", "-n", "2", "-new-option", "x", MPICH_PINGPONG),
                ExitCode.USAGE, "mpiexec.hydra: -new-option is not an option of jpmpi's table of MPICH hydra",
                "--no-app-check --mpi mpich");
        refused(Cli.run("run", "--dry-run", "--", "mpirun", "--np=2", OMPI_PINGPONG), ExitCode.USAGE,
                "mpirun: --np=2 is not an option of jpmpi's table of Open MPI 4.1 mpirun options",
                "Put -- before the program");
    }

    @Test
    void launcherAndProgramOfDifferentMpis() {
        refused(Cli.run("run", "--", "mpirun", "-np", "2", MPICH_PINGPONG), ExitCode.MPI_MISMATCH,
                "belongs to Open MPI", "linked against MPICH");
        refused(Cli.run("run", "--", "mpiexec.hydra", "-n", "2", OMPI_PINGPONG), ExitCode.MPI_MISMATCH,
                "belongs to MPICH", "linked against Open MPI");
    }

    static String javaCounter() {
        return Layout.current().javaCounterJar().orElseThrow().toString();
    }

    static String dispatcher(Impl impl) {
        return Layout.current().dispatcher(impl.id).toString();
    }

    @Test
    void configShowsTheTableWithValues() {
        Cli r = Cli.run(Map.of("JPMPI_JAVA_OPTIONS", "-Xmx64m"), "config");
        assertEquals(0, r.exit(), r::describe);
        assertTrue(r.out().contains("JPMPI_JAVA_OPTIONS         = -Xmx64m"), r::describe);
        assertTrue(r.out().contains("JPMPI_OUTPUT_DIR           unset (default: a new jpmpi-<job> directory)"), r::describe);
    }

    /** config ends with the tools a job started here gets: the job's list, then the site's and whether it opts out. */
    @Test
    void configSaysWhichListCameFromWhere(@TempDir Path dir) throws IOException {
        Path site = Files.writeString(dir.resolve("site.conf"), "tools = accounting\nopt-out = forbidden\n"
                + "set JPMPI_ACCOUNTING_FILE = syslog\n");
        Cli r = Cli.run(Map.of("JPMPI_TOOLS_ENTRY", "profile", "JPMPI_SITE_CONFIG", site.toString(),
                "JPMPI_SITE_TOOLS", "off"), "config");
        assertEquals(0, r.exit(), r::describe);
        assertTrue(r.out().contains("  the job's:  profile  (from JPMPI_TOOLS_ENTRY)\n"), r::describe);
        assertTrue(r.out().contains("  the site's: accounting  (below the job's, from " + site
                + "; kept: the site forbids opting out (JPMPI_SITE_TOOLS ignored))\n"), r::describe);
        assertTrue(r.out().contains("set JPMPI_ACCOUNTING_FILE=syslog"), r::describe);
        Files.writeString(site, "tool = accounting\n");
        Cli bad = Cli.run(Map.of("JPMPI_SITE_CONFIG", site.toString()), "config");
        assertTrue(bad.out().contains("  the site's: none, site configuration " + site + ":1: unknown key"), bad::describe);
    }

    @Test
    void configNamesAFallbackAsTheVariableItIs() {
        Cli r = Cli.run(Map.of("JPMPI_JAVA_HOME", "", "JAVA_HOME", "/opt/some-jdk"), "config");
        assertTrue(r.out().contains("JPMPI_JAVA_HOME            unset; JAVA_HOME = /opt/some-jdk is used"), r::describe);
        Cli own = Cli.run(Map.of("JPMPI_JAVA_HOME", "/opt/other-jdk", "JAVA_HOME", "/opt/some-jdk"), "config");
        assertTrue(own.out().contains("JPMPI_JAVA_HOME            = /opt/other-jdk"), own::describe);
        // The runtime's default class path is spelled out: the value to give when a dispatcher is moved.
        Cli cp = Cli.run(Map.of("JPMPI_JAVA_CLASSPATH", ""), "config");
        assertTrue(cp.out().contains("JPMPI_JAVA_CLASSPATH       unset (default: the installation's share/jpmpi/java/runtime: "
                + Layout.current().javaClasspath() + ")"), cp::describe);
    }

    @Test
    void newToolRefusesABadNameAndAFullDirectory(@TempDir Path dir) throws IOException {
        refused(Cli.run("new-tool", "My_Tool"), ExitCode.USAGE, "'My_Tool' is not a tool name");
        Files.writeString(dir.resolve("keep.txt"), "mine");
        refused(Cli.run("new-tool", "counter", "--dir", dir.toString()), ExitCode.USAGE, dir + " exists and is not"
                + " an empty directory");
        assertEquals("mine", Files.readString(dir.resolve("keep.txt")));
    }

    @Test
    void theReadmeConfigurationTableIsTheGeneratedOne() throws IOException {
        String readme = Files.readString(Layout.current().home().resolve("tools-entry/README.md"));
        String begin = "<!-- settings:begin (jpmpi config --markdown) -->\n";
        String end = "<!-- settings:end -->";
        int b = readme.indexOf(begin);
        int e = readme.indexOf(end);
        assertTrue(b >= 0 && e > b, "tools-entry/README.md lacks the settings markers");
        assertEquals(io.jpmpi.platform.Settings.markdown(), readme.substring(b + begin.length(), e),
                "regenerate the table with: bin/jpmpi config --markdown");
    }
}
