package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plans' Java side in process (the native side and whole jobs: dist's PlansIT): the file name is
 * the FNV-1a hash jpmpi-plan computes, a plan is for the words up to the one program, its file holds
 * every input written down and what starts the job, and a planning that read something not written
 * down keeps none.
 */
class PlansTest {
    @TempDir
    Path dir;

    /** The installation's files a plan names (the launcher's jars, its properties). */
    @org.junit.jupiter.api.BeforeEach
    void installation() throws java.io.IOException {
        Path app = java.nio.file.Files.createDirectories(new Layout(dir).appDir());
        java.nio.file.Files.writeString(app.resolve("jpmpi-launcher.jar"), "jar");
        java.nio.file.Files.writeString(app.resolve("jpmpi-platform.jar"), "jar");
        java.nio.file.Files.writeString(new Layout(dir).propertiesFile(), "version=0\n");
    }

    private Context context(Map<String, String> env) {
        return new Context(new Layout(dir), env, new java.io.PrintWriter(java.io.Writer.nullWriter()),
                new java.io.PrintWriter(java.io.Writer.nullWriter()));
    }

    /** A job of orterun (known by its name: no --version asked) with -x inserted, as Launcher.pass makes it. */
    private static Job job(List<String> launcherWords) {
        List<String> cmd = new ArrayList<>();
        cmd.add(launcherWords.get(0));
        cmd.addAll(List.of("-x", "LD_PRELOAD=/x/libmpiprofilesupport.so"));
        cmd.addAll(launcherWords.subList(1, launcherWords.size()));
        Launcher l = new Launcher(Launcher.Kind.OPEN_MPI, "orterun", Path.of("/usr/bin/orterun"),
                Optional.of(MpiImpl.OPENMPI));
        return new Job(cmd, Map.of(), Map.of(), MpiImpl.OPENMPI, l, Optional.empty(), new EntryList(List.of()));
    }

    private static List<String> words(String... w) {
        return List.of(w);
    }

    @Test
    void theNameIsFnv1aOfTheWordsEachEndedByANul() {
        // (python: h = 0xcbf29ce484222325; for each byte of b"run\0--\0mpirun\0": h = (h ^ b) * 0x100000001b3 mod 2^64)
        assertEquals("3cc76d9574fa7017.plan", Plans.name(words("run", "--", "mpirun"), StandardCharsets.UTF_8));
    }

    @Test
    void aPlanIsForTheWordsUpToTheOneProgramOrForAllOfThem() {
        List<String> args = words("run", "--tools", "accounting", "--", "orterun", "-np", "2", "./a", "x", ":");
        // the program's own argument ':' after it: mpirun takes it for a context, so a plan of all the words
        assertEquals(OptionalInt.of(args.size()), Plans.keyLength(args, job(args.subList(4, args.size()))));
        List<String> one = args.subList(0, 9);
        assertEquals(OptionalInt.of(8), Plans.keyLength(one, job(one.subList(4, one.size()))));
        // MPMD contexts, an appfile: the same command line only
        List<String> two = words("run", "--", "orterun", "-np", "1", "./a", ":", "-np", "1", "./b");
        assertEquals(OptionalInt.of(two.size()), Plans.keyLength(two, job(two.subList(2, two.size()))));
        List<String> file = words("run", "--", "orterun", "--app", "appfile");
        assertEquals(OptionalInt.of(file.size()), Plans.keyLength(file, job(file.subList(2, file.size()))));
        // a command that is not the words' (what was planned is something else): no plan
        assertEquals(OptionalInt.empty(), Plans.keyLength(one, job(words("orterun", "-np", "2", "./b", "x"))));
    }

    @Test
    void thePlanHoldsItsInputsAndWhatStartsTheJob() {
        List<String> args = words("run", "--", "orterun", "-np", "2", "./a", "arg");
        Plans.Inputs in = new Plans.Inputs();
        in.env("PATH", "/usr/bin");
        in.env("JPMPI_OUTPUT_DIR", null);
        in.notExecutable(Path.of("/opt/bin/orterun"));
        in.noFile(Path.of("/opt/lib/libt.so"));
        in.ran(List.of("/lib64/ld.so", "--list", "./a"), "\tlibmpi.so.40 => /l/libmpi.so.40 (0x00007f12ab)\n".getBytes(
                StandardCharsets.UTF_8));
        in.note("said once");
        Map<String, String> set = new java.util.LinkedHashMap<>(Map.of("A", "1,2"));
        set.put("LD_PRELOAD", null); // unset for the launcher (srun: SrunExport)
        Optional<byte[]> plan = Plans.plan(context(Map.of()), args, job(args.subList(2, args.size())), set, in);
        assertTrue(plan.isPresent());
        List<String> w = Arrays.asList(new String(plan.get(), StandardCharsets.UTF_8).split("\0", -1));
        assertEquals(List.of(Plans.MAGIC, Plans.VERSION, "home", dir.toString()), w.subList(0, 4));
        int key = w.indexOf("key");
        assertEquals(List.of("6", "run", "--", "orterun", "-np", "2", "./a", "separator", ":"), w.subList(key + 1, key + 10));
        String text = String.join("|", w);
        assertTrue(text.contains("|env|PATH|=/usr/bin|env|JPMPI_OUTPUT_DIR|-|"), text);
        // what was asked comes last of the checks (each a process), said without its load addresses
        assertTrue(text.contains("|notexec|/opt/bin/orterun|nofile|/opt/lib/libt.so|ran|3|/lib64/ld.so|--list|./a|"
                + "\tlibmpi.so.40 => /l/libmpi.so.40\n|note|said once|set|A=1,2|unset|LD_PRELOAD|"), text);
        // the launcher's words before the program's own argument, which the next command line brings
        assertTrue(text.endsWith("|exec|6|orterun|-x|LD_PRELOAD=/x/libmpiprofilesupport.so|-np|2|./a|end|"), text);
    }

    @Test
    void aPlanningThatReadSomethingNotWrittenDownKeepsNone() {
        List<String> args = words("run", "--", "orterun", "-np", "2", "./a");
        Plans.Inputs in = new Plans.Inputs();
        in.opaque("ran ldd");
        assertEquals(Optional.empty(), Plans.plan(context(Map.of()), args, job(args.subList(2, args.size())), Map.of(), in));
        Plans.Inputs gone = new Plans.Inputs();
        gone.file(dir.resolve("not-there"));
        assertTrue(gone.opaqueWhy().isPresent(), "a file that cannot be told again");
    }

    @Test
    void whatACommandSaidIsComparedWithoutTheLoadersAddresses() {
        assertEquals("\tlinux-vdso.so.1\n\tlibc.so.6 => /lib/libc.so.6\n/lib64/ld-linux-x86-64.so.2\n", steady(
                "\tlinux-vdso.so.1 (0x00007ffd5e3f1000)\n\tlibc.so.6 => /lib/libc.so.6 (0x00007F0A)\n"
                        + "/lib64/ld-linux-x86-64.so.2 (0x0000)\n"));
        // only " (0x" hex digits ")": anything else is what was said
        for (String kept : List.of("a (0x)", "a (0xg1)", "a(0x12)", "a (0x12", "mpirun (Open MPI) 4.1.4", " (0x")) {
            assertEquals(kept, steady(kept));
        }
        assertEquals("ab", steady("a (0x1) (0x2)b"));
        Plans.Inputs in = new Plans.Inputs();
        in.ran(List.of("x"), new byte[] {'a', 0, 'b'});
        assertTrue(in.opaqueWhy().isPresent(), "a NUL said: not written down");
        Plans.Inputs much = new Plans.Inputs();
        byte[] big = new byte[Plans.SAID_MAX + 1];
        Arrays.fill(big, (byte) 'a');
        much.ran(List.of("x"), big);
        assertTrue(much.opaqueWhy().isPresent(), "more than a plan holds");
    }

    private static String steady(String said) {
        return new String(Plans.steady(said.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
    }

    @Test
    void theRecordingEnvironmentWritesDownWhatIsRead() {
        Map<String, String> env = Plans.recording(Map.of("HOME", "/home/me"));
        assertEquals("/home/me", env.get("HOME"));
        assertEquals(Optional.of(Path.of("/home/me/.cache/jpmpi/plans")), Plans.directory(env));
        assertEquals(Optional.of(Path.of("/x/jpmpi/plans")), Plans.directory(Map.of("XDG_CACHE_HOME", "/x", "HOME", "/h")));
        assertEquals(Optional.of(Path.of("/h/.cache/jpmpi/plans")), Plans.directory(Map.of("XDG_CACHE_HOME", "rel", "HOME", "/h")),
                "a relative XDG_CACHE_HOME is not one (the XDG rule)");
        assertEquals(Optional.empty(), Plans.directory(Map.of()));
    }
}
