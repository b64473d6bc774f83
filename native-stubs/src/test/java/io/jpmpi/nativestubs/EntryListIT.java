package io.jpmpi.nativestubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.Pingpong;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves the entry list's options and sources: `v` prints the level table exactly once (rank 0
 * only) with each level, the Fortran position and the library at the bottom; `vv` adds each
 * level's functions; the list may come from OMPI_MCA_ompi_tools_entry (what Open MPI's
 * `--mca ompi_tools_entry LIST` sets) when JPMPI_TOOLS_ENTRY is unset, and JPMPI_TOOLS_ENTRY wins
 * when both are set; bare names (`count`, `libcount2.so`) are found on the library path; blanks
 * around items are ignored; `preload` is accepted; an empty list means no levels.
 */
class EntryListIT {
    static final int K = 2;
    static final Set<String> COUNTTOOL_FUNCTIONS = Set.of("MPI_Allreduce", "MPI_Barrier", "MPI_Comm_rank",
            "MPI_Finalize", "MPI_Init", "MPI_Init_thread", "MPI_Pcontrol", "MPI_Recv", "MPI_Send");

    private static List<String> jpmpiLines(Result r) {
        return r.err().stream().filter(l -> l.startsWith("jpmpi:")).toList();
    }

    private static Pattern header(Impl impl, int levels, String source) {
        return Pattern.compile("jpmpi: " + levels + " levels? over " + Pattern.quote(impl.displayName)
                + " \\S+ \\(\\d+ functions\\), from " + source);
    }

    private static String bottom(Impl impl, int depth) {
        return "jpmpi:   " + depth + "  " + Pattern.quote(impl.displayName) + " \\S+ \\(bottom\\)";
    }

    private static void assertLinesMatch(List<String> patterns, List<String> lines, Result r) {
        assertEquals(patterns.size(), lines.size(), () -> "jpmpi lines " + lines + "\n" + r.describe());
        for (int i = 0; i < patterns.size(); i++) {
            assertTrue(lines.get(i).matches(patterns.get(i)),
                    "line " + i + " '" + lines.get(i) + "' does not match " + patterns.get(i) + "\n" + r.describe());
        }
    }

    private static void assertCounted(Result r, String tool, int ranks, long commRank) {
        for (int rank = 0; rank < ranks; rank++) {
            assertEquals(Pingpong.counts(K, rank, commRank), r.counts(tool, rank), r::describe);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void verbosePrintsTheTableOnceFromRankZero(Impl impl) {
        String loga = impl.file("libloga.so");
        String count = impl.file("libcount.so");
        Result r = MpiRun.on(impl).ranks(4).levels(MpiRun.entry("v", loga, count)).run("pingpong", "" + K)
                .assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(4, K)), r::describe);
        assertLinesMatch(List.of(
                header(impl, 2, "JPMPI_TOOLS_ENTRY").pattern(),
                Pattern.quote("jpmpi:   -  fortran  (Fortran calls enter here)"),
                Pattern.quote("jpmpi:   0  " + loga + "  defines 3 functions"),
                Pattern.quote("jpmpi:   1  " + count + "  defines 9 functions"),
                bottom(impl, 2)), jpmpiLines(r), r);
        assertCounted(r, "count", 4, 1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void verboseShowsWhereFortranEnters(Impl impl) {
        String count = impl.file("libcount.so");
        String count2 = impl.file("libcount2.so");
        Result r = MpiRun.on(impl).ranks(2).levels(MpiRun.entry(count, "fort", count2, "v")).run("pingpong", "" + K)
                .assertSuccess();
        assertLinesMatch(List.of(
                header(impl, 2, "JPMPI_TOOLS_ENTRY").pattern(),
                Pattern.quote("jpmpi:   0  " + count + "  defines 9 functions"),
                Pattern.quote("jpmpi:   -  fortran  (Fortran calls enter here)"),
                Pattern.quote("jpmpi:   1  " + count2 + "  defines 9 functions"),
                bottom(impl, 2)), jpmpiLines(r), r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void veryVerboseListsEachLevelsFunctions(Impl impl) {
        String count = impl.file("libcount.so");
        Result r = MpiRun.on(impl).ranks(3).levels(MpiRun.entry("vv", count)).run("pingpong", "" + K)
                .assertSuccess();
        List<String> lines = jpmpiLines(r);
        List<String> patterns = new ArrayList<>(List.of(
                header(impl, 1, "JPMPI_TOOLS_ENTRY").pattern(),
                Pattern.quote("jpmpi:   -  fortran  (Fortran calls enter here)"),
                Pattern.quote("jpmpi:   0  " + count + "  defines 9 functions")));
        for (int i = 0; i < COUNTTOOL_FUNCTIONS.size(); i++) {
            patterns.add("jpmpi:        MPI_\\w+");
        }
        patterns.add(bottom(impl, 1));
        assertLinesMatch(patterns, lines, r);
        Set<String> listed = new TreeSet<>();
        for (String l : lines.subList(3, 3 + COUNTTOOL_FUNCTIONS.size())) {
            listed.add(l.substring("jpmpi:".length()).trim());
        }
        assertEquals(new TreeSet<>(COUNTTOOL_FUNCTIONS), listed, r::describe);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void entryFromOmpiMcaToolsEntry(Impl impl) {
        Result r = MpiRun.on(impl).ranks(3).preload().mca("ompi_tools_entry", MpiRun.entry("v", impl.file("libcount.so")))
                .run("pingpong", "" + K).assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(3, K)), r::describe);
        assertCounted(r, "count", 3, 1);
        assertEquals(1, jpmpiLines(r).stream().filter(l -> header(impl, 1, "OMPI_MCA_ompi_tools_entry")
                .matcher(l).matches()).count(), r::describe);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void jpmpiToolsEntryWinsOverOmpiMca(Impl impl) {
        Result r = MpiRun.on(impl).ranks(2).levels(impl.file("libcount2.so"))
                .mca("ompi_tools_entry", impl.file("libcount.so")).run("pingpong", "" + K).assertSuccess();
        assertEquals(Set.of("count2"), r.counts().keySet(), r::describe);
        assertCounted(r, "count2", 2, 1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void bareNamesBlanksAndPreload(Impl impl) {
        Result r = MpiRun.on(impl).ranks(2).levels(" preload , count ,\tlibcount2.so ")
                .env("LD_LIBRARY_PATH", impl.testDir().toString()).run("pingpong", "" + K).assertSuccess();
        assertEquals(1, r.countOut(Pingpong.resultLine(2, K)), r::describe);
        assertCounted(r, "count", 2, 1);
        assertCounted(r, "count2", 2, 1); // count's own PMPI_Comm_rank goes to the library, not to count2
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void emptyListMeansNoLevels(Impl impl) {
        for (String empty : List.of("", "  ")) {
            Result r = MpiRun.on(impl).ranks(2).levels(empty).run("pingpong", "" + K).assertSuccess();
            assertEquals(1, r.countOut(Pingpong.resultLine(2, K)), r::describe);
            assertEquals(Set.of(), r.counts().keySet(), r::describe);
            assertEquals(List.of(), jpmpiLines(r), r::describe);
        }
    }
}
