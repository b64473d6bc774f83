package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.platform.LauncherGrammar;
import io.jpmpi.platform.LauncherGrammar.Option;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * platform's launcher grammars against the installed launchers themselves: every option a launcher
 * documents is in its table, with the values the launcher says it takes (Open MPI: {@code mpirun --help
 * all}; hydra: {@code mpiexec.hydra --help}, and each name of the table recognised by {@code mpiexec.hydra
 * -NAME -help}; srun: {@code --help}, {@code --usage}, and getopt's own answer for each option of the table).
 * A launcher that is not installed is skipped with one line saying so. Then the multi-host
 * commands through {@code bin/jpmpi run --dry-run}.
 */
class LauncherGrammarIT {

    /** The output of {@code command} (stdout and stderr), in a clean environment but for {@code env}. */
    static String output(Map<String, String> env, String... command) {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        pb.environment().putAll(env);
        try {
            Process p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static Optional<Path> onPath(String name) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(d.isEmpty() ? "." : d, name);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private static Path launcher(String name) {
        Optional<Path> p = onPath(name);
        Assumptions.assumeTrue(p.isPresent(), name + " is not installed: its launcher grammar is not checked here");
        return p.get();
    }

    /** "documented NAME: the table has …" for each difference. */
    private static void compare(LauncherGrammar g, String name, int arity, List<String> wrong) {
        Optional<Option> o = g.option(name);
        if (o.isEmpty()) {
            wrong.add(name + " (" + arity(arity) + ") is not in " + g.id() + ".grammar");
        } else if (o.get().arity() != arity) {
            wrong.add(name + " takes " + arity(arity) + ", " + g.id() + ".grammar says " + arity(o.get().arity()));
        }
    }

    private static String arity(int arity) {
        return arity == LauncherGrammar.OPTIONAL ? "a value only joined" : arity == 0 ? "no value" : arity + " value(s)";
    }

    @Test
    void openMpisTableHasEveryOptionOfMpirunHelpAll() {
        Path mpirun = launcher("mpirun.openmpi");
        String version = output(Map.of(), mpirun.toString(), "--version");
        Matcher v = Pattern.compile("\\((?:OpenRTE|Open MPI)\\) (\\d+)\\.(\\d+)").matcher(version);
        assertTrue(v.find(), version);
        LauncherGrammar g = LauncherGrammar.of(Integer.parseInt(v.group(1)) >= 5 ? "openmpi-5" : "openmpi-4.1");
        String help = output(Map.of(), mpirun.toString(), "--help", "all");
        // "   -c|-np|--np <arg0>       Number of processes to run", "-mca|--mca <arg0> <arg1>"
        Pattern line = Pattern.compile("^\\s{0,3}(-{1,2}[\\w-]+(?:\\|-{1,2}[\\w-]+)*)((?:\\s+<arg\\d>)*)");
        List<String> wrong = new ArrayList<>();
        int seen = 0;
        for (String l : help.lines().toList()) {
            Matcher m = line.matcher(l);
            if (m.find()) {
                int arity = m.group(2).isBlank() ? 0 : m.group(2).trim().split("\\s+").length;
                for (String name : m.group(1).split("\\|")) {
                    compare(g, name, arity, wrong);
                    seen++;
                }
            }
        }
        assertTrue(seen > 90, "only " + seen + " options read from mpirun --help all:\n" + help);
        assertEquals(List.of(), wrong, "mpirun " + v.group() + " --help all and " + g.id() + ".grammar differ");
    }

    @Test
    void hydrasTableHasEveryOptionOfItsHelpAndNoOtherName() {
        Path hydra = launcher("mpiexec.hydra");
        LauncherGrammar g = LauncherGrammar.of("hydra");
        String help = output(Map.of(), hydra.toString(), "--help");
        // "    -genv {name} {value}    ...", "    -n/-np {value}", "    -enable-x/-disable-x"; the values of
        // the hydra-specific options are not shown: only their names are compared
        Pattern line = Pattern.compile("^\\s+(-[\\w-]+(?:/-[\\w-]+)*)((?:\\s\\{[^}]*\\})*)\\s");
        boolean valuesShown = true;
        List<String> wrong = new ArrayList<>();
        int seen = 0;
        for (String l : help.lines().toList()) {
            if (l.startsWith("Hydra specific options")) {
                valuesShown = false;
            }
            Matcher m = line.matcher(l);
            if (m.find()) {
                int arity = m.group(2).isEmpty() ? 0 : m.group(2).trim().split("\\}\\s*").length;
                for (String name : m.group(1).split("/")) {
                    seen++;
                    if (valuesShown) {
                        compare(g, name, arity, wrong);
                    } else if (g.option(name).isEmpty()) {
                        wrong.add(name + " is not in hydra.grammar");
                    }
                }
            }
        }
        assertTrue(seen > 40, "only " + seen + " options read from mpiexec.hydra --help:\n" + help);
        for (Option o : g.options()) {
            for (String name : o.names()) {
                String said = output(Map.of(), hydra.toString(), name, "-help");
                if (said.contains("unrecognized argument")) {
                    wrong.add(name + " is in hydra.grammar, but mpiexec.hydra does not know it: " + said.lines()
                            .findFirst().orElse(""));
                }
            }
        }
        assertEquals(List.of(), wrong, "mpiexec.hydra --help and hydra.grammar differ");
    }

    @Test
    void srunsTableHasEveryOptionOfItsHelpAndGetoptAgrees(@TempDir Path dir) throws IOException {
        Path srun = launcher("srun");
        LauncherGrammar g = LauncherGrammar.of("srun");
        Map<String, String> env = Map.of("SLURM_CONF", slurmConf(dir));
        String help = output(env, srun.toString(), "--help");
        // "  -n, --ntasks=ntasks   ...", "      --nice[=value]", "  -B  --extra-node-info=S[:C[:T]]": the names;
        // what each takes is asked of srun's getopt below (--help shows --bcast=<dest_path>, optional to
        // getopt, and --container without the value getopt requires)
        Pattern line = Pattern.compile("^\\s{2,6}(?:(-\\w),?\\s+)?(--[\\w-]+)");
        List<String> wrong = new ArrayList<>();
        int seen = 0;
        for (String l : help.lines().toList()) {
            Matcher m = line.matcher(l);
            if (m.find()) {
                for (String name : new String[] {m.group(1), m.group(2)}) {
                    if (name != null && g.option(name).isEmpty()) {
                        wrong.add(name + " (srun --help) is not in srun.grammar");
                    }
                }
                seen++;
            }
        }
        assertTrue(seen > 100, "only " + seen + " options read from srun --help:\n" + help);
        // --usage names a few more; those this srun accepts must be in the table
        Matcher usage = Pattern.compile("\\[(--[\\w-]+)").matcher(output(env, srun.toString(), "--usage"));
        while (usage.find()) {
            String name = usage.group(1);
            if (g.option(name).isEmpty() && !output(env, srun.toString(), name + "=x", "--usage")
                    .contains("unrecognized option")) {
                wrong.add(name + " (srun --usage) is not in srun.grammar");
            }
        }
        // getopt's own word for each option of the table: a value required, refused, or optional
        for (Option o : g.options()) {
            for (String name : o.names()) {
                // --name=x first: a flag is refused at once (alone, --test-only and --multi-prog would
                // wait for a controller)
                boolean isLong = name.startsWith("--");
                String joined = isLong ? output(env, srun.toString(), name + "=x") : "";
                boolean refusesValue = joined.contains("doesn't allow an argument");
                String bare = refusesValue ? "" : output(env, srun.toString(), name);
                boolean requires = bare.contains("requires an argument");
                boolean unknown = (joined + bare).contains("unrecognized option") || bare.contains("invalid option");
                int said = requires ? 1 : refusesValue || !isLong ? 0 : LauncherGrammar.OPTIONAL;
                if (unknown) {
                    wrong.add(name + " is in srun.grammar, but srun does not know it");
                } else if (said != o.arity() && (isLong || o.arity() != LauncherGrammar.OPTIONAL || said != 0)) {
                    wrong.add(name + ": srun's getopt says it takes " + arity(said) + ", srun.grammar says "
                            + arity(o.arity()));
                }
            }
        }
        assertEquals(List.of(), wrong, "srun 22.05 and srun.grammar differ");
    }

    /** The smallest slurm.conf srun reads its options with (SLURM_CONF when the test cluster has one). */
    private static String slurmConf(Path dir) throws IOException {
        String given = System.getenv("SLURM_CONF");
        if (given != null && Files.isReadable(Path.of(given))) {
            return given;
        }
        Path conf = dir.resolve("slurm.conf");
        Files.writeString(conf, "ClusterName=jpmpi\nSlurmctldHost=localhost\nNodeName=localhost CPUs=1\n"
                + "PartitionName=p Nodes=localhost\n");
        return conf.toString();
    }

    // --- every value-taking option through `jpmpi run --dry-run` (in process, picocli; real launchers)

    /**
     * {@code jpmpi run --dry-run -- LAUNCHER OPTION VALUE... APP} for every option of the launcher's
     * table that takes a value, each value an executable file (an appfile or configfile holding
     * {@code -n 1 APP} for those): the program found is APP. All in one JVM, batched per launcher.
     */
    private static void everyValueOption(String launcherWord, String grammar, String app, Path dir,
                                         List<String> skip) throws IOException {
        String agent = agent(dir).toString();
        Path contexts = dir.resolve("contexts");
        Files.writeString(contexts, "-n 1 " + app + "\n");
        List<String> wrong = new ArrayList<>();
        int runs = 0;
        for (Option o : LauncherGrammar.of(grammar).options()) {
            if (o.arity() < 1 || o.role() == LauncherGrammar.Role.MULTIPROG) {
                continue;
            }
            for (String name : o.names()) {
                if (skip.contains(name)) {
                    continue;
                }
                String value = o.role() == LauncherGrammar.Role.NONE ? agent : contexts.toString();
                List<String> args = new ArrayList<>(List.of("run", "--dry-run", "--", launcherWord, name));
                for (int k = 0; k < o.arity(); k++) {
                    args.add(value);
                }
                args.add(app);
                Cli r = Cli.run(args.toArray(String[]::new));
                runs++;
                if (r.exit() != 0 || !r.err().contains(", program " + app + " (dynamic)")) {
                    wrong.add(String.join(" ", args.subList(3, args.size())) + ": exit " + r.exit() + ", "
                            + r.err().strip());
                }
            }
        }
        assertTrue(runs > 30, "only " + runs + " options of " + grammar);
        assertEquals(List.of(), wrong, "commands whose program was not found");
    }

    @Test
    void everyValueOptionOfMpirunLeavesTheProgram(@TempDir Path dir) throws IOException {
        launcher("mpirun.openmpi");
        everyValueOption("mpirun", "openmpi-4.1", Impl.OPENMPI.file("pingpong"), dir, List.of());
    }

    @Test
    void everyValueOptionOfHydraLeavesTheProgram(@TempDir Path dir) throws IOException {
        launcher("mpiexec.hydra");
        everyValueOption("mpiexec.hydra", "hydra", Impl.MPICH.file("pingpong"), dir, List.of());
    }

    @Test
    void everyValueOptionOfSrunLeavesTheProgram(@TempDir Path dir) throws IOException {
        launcher("srun");
        // jpmpi run passes its variables with --export itself: it refuses the user's (CommandLineTest)
        everyValueOption("srun", "srun", Impl.OPENMPI.file("pingpong"), dir, List.of("--export"));
    }

    // --- the multi-host commands, through bin/jpmpi (a real process each)

    private static Path agent(Path dir) throws IOException {
        Path agent = dir.resolve("agent");
        Files.writeString(agent, "#!/bin/sh\nexec ssh \"$@\"\n");
        Files.setPosixFilePermissions(agent, PosixFilePermissions.fromString("rwx------"));
        return agent;
    }

    @Test
    void hydrasRemoteShellOptionsAreNotThePrograms(@TempDir Path dir) throws IOException {
        launcher("mpiexec.hydra");
        String agent = agent(dir).toString();
        String app = Impl.MPICH.file("pingpong");
        Files.writeString(dir.resolve("H"), "localhost\n");
        Jpmpi.Result ok = Jpmpi.run(List.of("run", "--dry-run", "--output", "out", "--", "mpiexec.hydra", "-f", dir.resolve("H").toString(),
                "-n", "6", "-launcher", "ssh", "-launcher-exec", agent, app));
        assertEquals(0, ok.exit(), ok::describe);
        assertTrue(ok.out().strip().endsWith("-launcher-exec " + agent + " " + app), ok::describe);
        assertTrue(ok.err().contains("program " + app + " (dynamic)"), ok::describe);
        try (var left = Files.list(ok.dir())) {
            assertEquals(List.of("stderr.txt", "stdout.txt"), left.map(p -> p.getFileName().toString()).sorted()
                    .toList(), "a dry run creates nothing (not --output's directory)");
        }
        Jpmpi.Result bootstrap = Jpmpi.run(List.of("run", "--dry-run", "--", "mpiexec.hydra", "-bootstrap", "ssh",
                "-n", "2", Impl.OPENMPI.file("pingpong")));
        assertEquals(69, bootstrap.exit(), () -> "the program is Open MPI's: refused\n" + bootstrap.describe());
    }

    @Test
    void openMpisRshAgentIsNotTheProgram(@TempDir Path dir) throws IOException {
        launcher("mpirun.openmpi");
        String agent = agent(dir).toString();
        Jpmpi.Result mpich = Jpmpi.run(List.of("run", "--dry-run", "--", "mpirun", "--mca", "plm_rsh_agent", agent,
                "-np", "6", Impl.MPICH.file("pingpong")));
        assertEquals(69, mpich.exit(), () -> "an MPICH program under Open MPI's mpirun is refused\n" + mpich.describe());
        assertTrue(mpich.err().contains(Impl.MPICH.file("pingpong") + " is linked against MPICH"), mpich::describe);
        Path appfile = dir.resolve("appfile");
        Files.writeString(appfile, "-np 2 " + Impl.OPENMPI.file("pingpong") + "\n-np 1 " + Impl.MPICH.file("pingpong")
                + "\n");
        Jpmpi.Result mixed = Jpmpi.run(List.of("run", "--dry-run", "--", "mpirun", "--mca", "plm_rsh_agent", "ssh",
                "--app", appfile.toString()));
        assertEquals(69, mixed.exit(), () -> "every program of the appfile is checked\n" + mixed.describe());
        Jpmpi.Result unknown = Jpmpi.run(List.of("run", "--dry-run", "--", "mpirun", "--new-option", agent, "-np", "2",
                Impl.OPENMPI.file("pingpong")));
        assertEquals(64, unknown.exit(), unknown::describe);
        assertEquals(1, unknown.err().lines().count(), unknown::describe);
        assertTrue(unknown.err().contains("--new-option") && unknown.err().contains("--no-app-check"), unknown::describe);
    }

    /**
     * The multi-host forms run for real, on this machine: the remote-shell agent is a local
     * "ssh" (its options skipped, the host written to a log, the command run here) and the host a name
     * no other machine has, so the launcher starts its daemons through the agent; the job runs its
     * program (checked first) through the dispatcher, and the agent says it was asked for that host.
     */
    @Test
    void theMultiHostFormsStartTheirProgramThroughTheAgent(@TempDir Path dir) throws IOException {
        Path agent = dir.resolve("local-ssh");
        Path log = dir.resolve("agent.log");
        Files.writeString(agent, "#!/bin/bash\n"
                + "while [[ $# -gt 0 && $1 == -* ]]; do case $1 in -[bcDEeFIiJLlmOopQRSWw]) shift 2;; *) shift;; esac; done\n"
                + "echo \"$1\" >> " + log + "\nshift\nexec bash -c \"$*\"\n");
        Files.setPosixFilePermissions(agent, PosixFilePermissions.fromString("rwx------"));
        List<List<String>> jobs = new ArrayList<>();
        if (onPath("mpiexec.hydra").isPresent()) {
            String app = Impl.MPICH.file("pingpong");
            jobs.add(List.of("mpiexec.hydra", "-launcher", "ssh", "-launcher-exec", agent.toString(), "-hosts",
                    "jpmpi-fake-a", "-n", "2", app, "2"));
            jobs.add(List.of("mpiexec.hydra", "-bootstrap=ssh", "-bootstrap-exec", agent.toString(), "-hosts",
                    "jpmpi-fake-b", "-n", "2", app, "2"));
        }
        if (onPath("mpirun.openmpi").isPresent()) {
            jobs.add(List.of("mpirun", "--mca", "plm_rsh_agent", agent.toString(), "-H", "jpmpi-fake-c:2", "-np", "2",
                    Impl.OPENMPI.file("pingpong"), "2"));
        }
        Assumptions.assumeFalse(jobs.isEmpty(), "neither mpiexec.hydra nor mpirun.openmpi is installed");
        List<String> hosts = new ArrayList<>();
        for (List<String> job : jobs) {
            List<String> args = new ArrayList<>(List.of("run", "-v", "--"));
            args.addAll(job);
            Jpmpi.Result r = Jpmpi.run(args);
            assertEquals(0, r.exit(), r::describe);
            String app = job.get(job.size() - 2);
            assertTrue(r.err().contains(", program " + app + " (dynamic)"), r::describe);
            hosts.add(job.stream().filter(w -> w.startsWith("jpmpi-fake-")).findFirst().orElseThrow().split(":")[0]);
        }
        assertEquals(hosts, Files.readAllLines(log).stream().distinct().toList(), "the agent was asked for each host");
    }
}
