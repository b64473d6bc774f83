package io.jpmpi.nativestubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.BadFiles;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves an unusable entry list stops every rank before the program's main runs, with one line
 * on stderr per rank naming the source variable, the item number and the item, and the reason:
 * a missing file, a directory, a file that is not an ELF shared library, an ELF library of another
 * machine (aarch64, i386), a tool built with the other MPI, a tool whose dependency the dynamic
 * loader does not find, more than 64 levels, a library defining no MPI function, an
 * unknown keyword, an empty item, a missing .jar, a bare name not on the library
 * path, the MPI library itself, a library listed twice, `fort` placed twice, a bad item after
 * good ones. Each rank exits with 78 (JPMPI_EXIT_BAD_ENTRY); through the launcher the status is
 * non-zero. The program prints nothing (not even its first line, written before MPI_Init).
 */
class BadEntryIT {
    static final Path NOT_A_TOOL = MpiRun.RUNS_DIR.resolve("notatool.so");
    static final String LIBM = "/lib/x86_64-linux-gnu/libm.so.6";
    static final String MISSING = "/nonexistent/jpmpi/libnope.so";
    static final Path DIRECTORY = MpiRun.RUNS_DIR.resolve("bad/dir.so");
    static final Path AARCH64 = MpiRun.RUNS_DIR.resolve("bad/libaarch64.so");
    static final Path FIFO = MpiRun.RUNS_DIR.resolve("bad/libfifo.so");
    static final Path I386 = MpiRun.RUNS_DIR.resolve("bad/libi386.so");
    static final int RANKS = 2;

    /** A bad list: its items, and the message expected after "JPMPI_TOOLS_ENTRY" (a regex). */
    record Case(String name, Function<Impl, String> entry, Function<Impl, String> message) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final List<Case> CASES = List.of(
            new Case("missing file", i -> MISSING,
                    i -> " item 1 '" + q(MISSING) + "': no such file"),
            new Case("not a library", i -> NOT_A_TOOL.toString(),
                    i -> " item 1 '" + q(NOT_A_TOOL.toString()) + "': is not an ELF shared library \\(no ELF header\\)"),
            new Case("a directory", i -> DIRECTORY.toString(),
                    i -> " item 1 '" + q(DIRECTORY.toString()) + "': is a directory"),
            new Case("a FIFO", i -> FIFO.toString(), i -> " item 1 '" + q(FIFO.toString()) + "': is not a regular file"),
            new Case("aarch64 library", i -> AARCH64.toString(),
                    i -> " item 1 '" + q(AARCH64.toString()) + "': is an ELF for aarch64, not x86-64"),
            new Case("i386 library", i -> I386.toString(),
                    i -> " item 1 '" + q(I386.toString()) + "': is an ELF for i386, not x86-64"),
            new Case("tool of the other MPI", i -> other(i).file("libcount.so"),
                    i -> " item 1 '" + q(other(i).file("libcount.so")) + "': needs " + q(other(i).libmpi)
                            + ", another MPI library than the program's " + q(i.libmpi) + " \\(build the tool with "
                            + q(i.displayName) + "'s mpicc\\)"),
            new Case("missing dependency", i -> i.file("libneedsgone.so"),
                    i -> " item 1 '" + q(i.file("libneedsgone.so")) + "': needs libjpmpigone\\.so, which the dynamic"
                            + " loader does not find \\(LD_LIBRARY_PATH, the linker cache\\)"),
            new Case("more than 64 levels", i -> String.join(",", java.util.stream.IntStream.rangeClosed(1, 65)
                    .mapToObj(n -> MISSING + n).toList()),
                    i -> " item 65 '" + q(MISSING + 65) + "': more than 64 levels \\(JPMPI_MAX_LEVELS\\)"),
            new Case("defines no MPI function", i -> LIBM,
                    i -> " item 1 '" + q(LIBM) + "': defines no MPI function.*"),
            new Case("unknown keyword", i -> "foo=bar",
                    i -> ":? item 1 'foo=bar': unknown keyword.*"),
            new Case("empty item", i -> MpiRun.entry(i.file("libloga.so"), "", i.file("liblogb.so")),
                    i -> ":? item 2\\b.*\\bempty\\b.*"),
            new Case("comma at the end", i -> MpiRun.entry(i.file("libloga.so"), ""),
                    i -> ":? item 2\\b.*\\bempty\\b.*"),
            new Case("jar", i -> MpiRun.RUNS_DIR.resolve("tool.jar").toString(),
                    i -> " item 1 '" + q(MpiRun.RUNS_DIR.resolve("tool.jar").toString()) + "': no such file"),
            new Case("bare name not found", i -> "nosuchtool",
                    i -> " item 1 'nosuchtool': .*libnosuchtool\\.so.*"),
            new Case("the MPI library", i -> i.libmpi,
                    i -> " item 1 '" + q(i.libmpi) + "': is the MPI library itself.*"),
            new Case("same library twice", i -> MpiRun.entry(i.file("libloga.so"), i.file("libloga.so")),
                    i -> " item 2 '" + q(i.file("libloga.so")) + "': is the same library as item 1.*"),
            new Case("fort twice", i -> MpiRun.entry("fort", i.file("libloga.so"), "fortran"),
                    i -> ":? item 3 'fortran': .*twice.*"),
            new Case("bad item after good ones", i -> MpiRun.entry("v", i.file("libloga.so"), i.file("libcount.so"), MISSING),
                    i -> " item 4 '" + q(MISSING) + "': no such file"));

    /** The MPI other than {@code impl}: the tool of the wrong-MPI case is built with it. */
    private static Impl other(Impl impl) {
        return impl == Impl.OPENMPI ? Impl.MPICH : Impl.OPENMPI;
    }

    private static String q(String s) {
        return Pattern.quote(s);
    }

    static Stream<Arguments> cases() {
        return MpiRun.implementations().flatMap(i -> CASES.stream().map(c -> Arguments.of(i, c)));
    }

    @BeforeAll
    static void makeNotATool() throws IOException {
        Files.createDirectories(NOT_A_TOOL.getParent());
        Files.writeString(NOT_A_TOOL, "this is a text file, not a shared library\n");
        BadFiles.directory(DIRECTORY);
        BadFiles.fifo(FIFO);
        BadFiles.foreignLibrary(AARCH64, BadFiles.AARCH64, true);
        BadFiles.foreignLibrary(I386, BadFiles.I386, false);
        assertTrue(Files.isRegularFile(Path.of(LIBM)), LIBM + " is missing");
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void stopsEveryRankWithOneLine(Impl impl, Case c) {
        Result r = MpiRun.on(impl).ranks(RANKS).levels(c.entry.apply(impl)).run("pingpong");
        checkFailure(r, "JPMPI_TOOLS_ENTRY" + c.message.apply(impl));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void namesOmpiMcaToolsEntryWhenTheListCameFromThere(Impl impl) {
        Result r = MpiRun.on(impl).ranks(RANKS).preload().mca("ompi_tools_entry", MISSING).run("pingpong");
        checkFailure(r, "OMPI_MCA_ompi_tools_entry item 1 '" + q(MISSING) + "': no such file");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void exitStatusIs78WithoutALauncher(Impl impl) {
        Result r = MpiRun.on(impl).direct().levels(MISSING).run("pingpong");
        assertFalse(r.timedOut(), r::describe);
        assertEquals(78, r.exit(), r::describe);
        assertEquals(List.of("jpmpi: JPMPI_TOOLS_ENTRY item 1 '" + MISSING + "': no such file"), r.err(), r::describe);
        assertEquals("", r.stdout(), r::describe);
    }

    /** Non-zero status; every jpmpi line matches, at most one per rank, at least one; no program output. */
    private static void checkFailure(Result r, String message) {
        assertFalse(r.timedOut(), r::describe);
        assertNotEquals(0, r.exit(), r::describe);
        Pattern line = Pattern.compile("jpmpi \\(rank (\\d+)\\): " + message);
        Map<Integer, Integer> perRank = new HashMap<>();
        for (String l : r.err()) {
            if (!l.startsWith("jpmpi")) {
                continue;
            }
            Matcher m = line.matcher(l);
            assertTrue(m.matches(), "unexpected line '" + l + "', expected /" + line + "/\n" + r.describe());
            int rank = Integer.parseInt(m.group(1));
            assertTrue(rank >= 0 && rank < RANKS, r::describe);
            perRank.merge(rank, 1, Integer::sum);
        }
        assertFalse(perRank.isEmpty(), () -> "no jpmpi error line\n" + r.describe());
        perRank.forEach((rank, n) -> assertEquals(1, n, () -> "rank " + rank + " printed " + n + " lines\n"
                + r.describe()));
        assertTrue(r.out().stream().noneMatch(l -> l.contains("pingpong") || l.startsWith("count ")),
                () -> "the program ran\n" + r.describe());
    }
}
