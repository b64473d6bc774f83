package io.jpmpi.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.platform.LauncherGrammar.Option;
import io.jpmpi.platform.LauncherGrammar.Program;
import io.jpmpi.platform.LauncherGrammar.Refusal;
import io.jpmpi.platform.LauncherGrammar.Role;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher grammars read in process: for every option of every table, {@code OPTION [VALUE...] ./app}
 * with an executable file as each value finds {@code ./app} (and every form the launcher allows the
 * value in); the MPMD forms give every program; what a grammar does not know is refused, naming it.
 * (Whether the tables match the launchers themselves: dist's LauncherGrammarIT.)
 */
class LauncherGrammarTest {
    @TempDir
    static Path dir;
    /** An executable file: the remote-shell agent of the issue, taken for the program before. */
    static String agent;

    @BeforeAll
    static void files() throws IOException {
        Path a = dir.resolve("agent");
        Files.writeString(a, "#!/bin/sh\nexec ssh \"$@\"\n");
        Files.setPosixFilePermissions(a, PosixFilePermissions.fromString("rwxr-xr-x"));
        agent = a.toString();
    }

    private static List<String> words(LauncherGrammar g, String... args) throws Refusal {
        return g.programs(List.of(args), dir).stream().map(Program::word).toList();
    }

    /** The ways {@code name} can be given {@code arity} values, each followed by ./app and an argument of it. */
    private static List<List<String>> forms(LauncherGrammar g, String name, int arity, Role role) throws IOException {
        String value = agent;
        if (role == Role.APPFILE || role == Role.CONFIGFILE) {
            Path f = Files.createTempFile(dir, "contexts", ".txt");
            Files.writeString(f, "# contexts\n-n 1 ./app\n");
            value = f.toString();
        }
        List<List<String>> forms = new ArrayList<>();
        List<String> separate = new ArrayList<>(List.of(name));
        for (int k = 0; k < Math.max(arity, 0); k++) {
            separate.add(value);
        }
        forms.add(separate);
        boolean getopt = g.dashes() == LauncherGrammar.Dashes.GETOPT;
        if (arity != 0 && (getopt ? name.startsWith("--") : g.id().equals("hydra") || g.id().equals("openmpi-5"))) {
            List<String> joined = new ArrayList<>(List.of(name + "=" + value));
            for (int k = 1; k < arity; k++) {
                joined.add(value);
            }
            forms.add(joined);
        }
        if (arity != 0 && getopt && !name.startsWith("--")) {
            forms.add(List.of(name + value)); // -n4
        }
        if (!getopt) {
            forms.add(replace(separate, 0, name.startsWith("--") ? name.substring(1) : "-" + name));
        }
        return forms.stream().map(f -> {
            List<String> args = new ArrayList<>(f);
            args.addAll(List.of("./app", "-n", "3"));
            return args;
        }).toList();
    }

    private static List<String> replace(List<String> list, int at, String word) {
        List<String> copy = new ArrayList<>(list);
        copy.set(at, word);
        return copy;
    }

    @Test
    void everyOptionOfEveryTableLeavesTheProgramItsPlace() throws Exception {
        int checked = 0;
        for (String id : LauncherGrammar.IDS) {
            LauncherGrammar g = LauncherGrammar.of(id);
            assertTrue(g.options().size() > 20, id + " has " + g.options().size() + " options");
            for (Option o : g.options()) {
                for (String name : o.names()) {
                    for (List<String> args : forms(g, name, o.arity(), o.role())) {
                        if (o.role() == Role.MULTIPROG) {
                            continue; // below: the program word is then a file of programs
                        }
                        List<String> found = words(g, args.toArray(String[]::new)).stream().distinct().toList();
                        assertEquals(List.of("./app"), found, () -> id + ": " + String.join(" ", args));
                        // the plan cache's rule: the command line's one program, or none where a file names it
                        OptionalInt at = g.soleProgram(args);
                        if (o.role() == Role.NONE) {
                            assertEquals(OptionalInt.of(args.indexOf("./app")), at, () -> id + ": " + String.join(" ", args));
                        } else {
                            assertTrue(at.isEmpty(), () -> id + ": " + String.join(" ", args));
                        }
                        checked++;
                    }
                }
            }
        }
        assertTrue(checked > 500, "only " + checked + " command lines");
    }

    @Test
    void theIssuesMultiHostCommandsFindTheProgramNotTheAgent() throws Refusal {
        assertEquals(List.of("./app"), words(LauncherGrammar.of("hydra"), "-f", "H", "-n", "6", "-launcher", "ssh",
                "-launcher-exec", agent, "./app"));
        assertEquals(List.of("./app"), words(LauncherGrammar.of("hydra"), "-bootstrap", "ssh", "-n", "6", "./app"));
        assertEquals(List.of("./app"), words(LauncherGrammar.of("openmpi-4.1"), "--mca", "plm_rsh_agent", agent,
                "-np", "6", "./app", "x"));
        assertEquals(List.of("./app"), words(LauncherGrammar.of("openmpi-5"), "--mca", "plm_rsh_agent", agent,
                "--np=6", "./app"));
    }

    @Test
    void theSoleProgramIsOnlyThatOfOneContextOnTheCommandLine() {
        LauncherGrammar ompi = LauncherGrammar.of("openmpi-4.1");
        assertEquals(OptionalInt.of(2), ompi.soleProgram(List.of("-np", "2", "./a", "-np", "x")));
        assertEquals(OptionalInt.empty(), ompi.soleProgram(List.of("-np", "2", "./a", ":", "-np", "1", "./b")));
        assertEquals(OptionalInt.empty(), ompi.soleProgram(List.of("-np", "2")), "no program");
        assertEquals(OptionalInt.empty(), ompi.soleProgram(List.of("--no-such-option", "./a")), "refused");
        assertEquals(OptionalInt.of(4), LauncherGrammar.of("openmpi-5").soleProgram(List.of("-n", "2", "--newopt", "--",
                "./a")), "the word after the end of options");
        assertEquals(OptionalInt.empty(), LauncherGrammar.of("srun").soleProgram(List.of("-n", "2", "--multi-prog",
                "progs.conf")));
        assertEquals(Optional.of(":"), ompi.contextSeparator());
        assertEquals(List.of(3, 7), ompi.contextSeparators(List.of("-np", "2", "./a", ":", "-np", "1", "./b", ":", "./c")));
        assertEquals(List.of(4), ompi.contextSeparators(List.of("-np", "2", "-x", ":", ":", "./b")),
                "a value that is ':' separates nothing");
        assertEquals(List.of(), ompi.contextSeparators(List.of("-np", "2", "./a", "x")));
    }

    @Test
    void everyContextsProgramIsFound() throws Refusal {
        assertEquals(List.of("./a", "./b"), words(LauncherGrammar.of("openmpi-4.1"), "-np", "2", "./a", "-x", ":",
                "-np", "1", "./b"));
        assertEquals(List.of("./a", "./b"), words(LauncherGrammar.of("hydra"), "-n", "2", "./a", ":", "-env", "A",
                "B", "-n", "1", "./b", "-n"));
        assertEquals(List.of("./a", "./b"), words(LauncherGrammar.of("srun"), "-n2", "./a", ":", "-n", "1", "./b"));
    }

    @Test
    void theFilesOfAJobGiveItsPrograms() throws Exception {
        Path app = dir.resolve("appfile");
        Files.writeString(app, "-np 2 ./a   # the solver\n\n-np 1 --mca btl self ./b x y\n");
        assertEquals(List.of("./a", "./b"), words(LauncherGrammar.of("openmpi-4.1"), "--app", app.toString(),
                "./ignored"), "an appfile replaces the command line's programs");
        Path config = dir.resolve("configfile");
        Files.writeString(config, "-n 1 ./a : -n 1 ./b\n-n 2 ./c\n");
        assertEquals(List.of("./a", "./b", "./c"), words(LauncherGrammar.of("hydra"), "-configfile", config.toString()));
        Path multi = dir.resolve("multi.conf");
        Files.writeString(multi, "# ranks program args\n0 ./a --first\n1-3 ./b %t\n");
        assertEquals(List.of("./a", "./b"), words(LauncherGrammar.of("srun"), "-n", "4", "--multi-prog",
                multi.toString()));
        assertEquals(List.of("./a", "./b"), words(LauncherGrammar.of("srun"), "-ln4", "--multi-prog",
                "multi.conf"), "relative to the working directory given");
        Refusal r = assertThrows(Refusal.class, () -> words(LauncherGrammar.of("hydra"), "-configfile", "nothere"));
        assertTrue(r.getMessage().startsWith("cannot read the configfile nothere ("), r.getMessage());
    }

    @Test
    void getoptFormsOfSrun() throws Refusal {
        LauncherGrammar srun = LauncherGrammar.of("srun");
        assertEquals(List.of("./app"), words(srun, "-lQn4", "./app"), "bundled flags, then -n's value attached");
        assertEquals(List.of("./app"), words(srun, "--nodel=h1", "--nice", "./app"), "a prefix; --nice's value only joined");
        assertEquals(List.of("./app"), words(srun, "-n", "4", "--", "./app", "--help"));
        assertEquals(List.of("./app"), words(srun, "-I", "./app"), "-I takes its value only attached");
        assertEquals(List.of("./app"), words(srun, "-lKn4", "./app"), "-K's optional value is the rest: n4");
        Refusal ambiguous = assertThrows(Refusal.class, () -> words(srun, "--mem-per=1", "./app"));
        assertEquals(List.of("--mem-per"), ambiguous.unknownOption().stream().toList(), ambiguous.getMessage());
    }

    @Test
    void whatATableDoesNotKnowIsRefusedNamingIt() {
        Refusal r = assertThrows(Refusal.class, () -> words(LauncherGrammar.of("hydra"), "-n", "2", "-newopt", agent,
                "./app"));
        assertEquals("-newopt is not an option of jpmpi's table of MPICH hydra mpiexec options", r.getMessage());
        assertEquals("-newopt", r.unknownOption().orElseThrow());
        Refusal joined = assertThrows(Refusal.class, () -> words(LauncherGrammar.of("openmpi-4.1"), "--np=2", "./app"));
        assertEquals("--np=2", joined.unknownOption().orElseThrow(), "Open MPI 4.1 has no --name=value");
        Refusal missing = assertThrows(Refusal.class, () -> words(LauncherGrammar.of("openmpi-4.1"), "-np"));
        assertEquals("-np wants a value, and the launcher's arguments end there", missing.getMessage());
        Refusal none = assertThrows(Refusal.class, () -> words(LauncherGrammar.of("srun"), "-n", "2"));
        assertTrue(none.unknownOption().isEmpty());
        assertEquals(List.of("./app"), assertDoesNotThrow(() -> words(LauncherGrammar.of("srun"), "--new-opt", "x",
                "--", "./app")), "srun: whatever comes before --, the program follows it");
        assertEquals(List.of("./app"), assertDoesNotThrow(() -> words(LauncherGrammar.of("openmpi-4.1"), "--new-opt",
                "x", "-np", "2", "--", "./app")), "Open MPI: the same");
        assertThrows(Refusal.class, () -> words(LauncherGrammar.of("hydra"), "-n", "1", "--", "./app"),
                "hydra has no --");
    }

    private static <T> T assertDoesNotThrow(org.junit.jupiter.api.function.ThrowingSupplier<T> s) {
        return org.junit.jupiter.api.Assertions.assertDoesNotThrow(s);
    }

    @Test
    void aBadTableLineIsNamed() {
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> LauncherGrammar.parse("t",
                List.of("dashes any", "1 -np", "0 --np")));
        assertEquals("t.grammar line 3: --np is in the table twice", twice.getMessage());
        IllegalArgumentException word = assertThrows(IllegalArgumentException.class, () -> LauncherGrammar.parse("t",
                List.of("dashes any", "3 -np")));
        assertTrue(word.getMessage().startsWith("t.grammar line 2: '3' is neither"), word.getMessage());
        assertFalse(LauncherGrammar.of("openmpi-4.1").checkedAgainst().isEmpty());
    }
}
