package io.jpmpi.tools;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The tools {@code --tools} knows by a short name, and where each one's build lives. jpmpi's own
 * profilers and the two examples.
 */
public final class BuiltinTools {
    /** One library of a tool: a C level or a Java level, and where its build puts it. */
    public record Part(EntryList.Kind kind, BiFunction<Layout, MpiImpl, Path> locator) {
    }

    /**
     * A tool: its parts, top level first (the profile tool is a C level that records, and whose rank
     * 0 writes every rank's figures at MPI_Finalize, which the launcher merges into the profile and
     * its reports after the ranks exit: no JVM in the ranks; the accounting tool a C level that
     * samples and writes one record per job, and takes the recorder's counts instead when it is
     * listed above).
     */
    public record Tool(String name, String description, List<Part> parts, String howToBuild) {
        /** The parts' files for {@code impl}, or empty if one of them is not built. */
        public Optional<List<Path>> locate(Layout layout, MpiImpl impl) {
            List<Path> paths = parts.stream().map(p -> p.locator().apply(layout, impl)).toList();
            return paths.stream().allMatch(p -> p != null && Files.isRegularFile(p)) ? Optional.of(paths)
                    : Optional.empty();
        }
    }

    /** How to get a missing part: every tool is in the installation the build assembles. */
    private static final String BUILD = "./mvnw install -DskipTests in the source tree, then bin/jpmpi install --prefix DIR";

    private static final List<Tool> ALL = List.of(
            new Tool("profile",
                    "jpmpi's profiler: calls, time and bytes per function, message sizes, the rank-to-rank matrix;"
                            + " profile.json, report.txt and report.html in the output directory",
                    List.of(new Part(EntryList.Kind.C_TOOL, Layout::profileRecorder)),
                    BUILD),
            new Tool("mpit",
                    "MPI_T performance variables per MPI function and Pcontrol region, control variables set before"
                            + " MPI_Init (JPMPI_MPIT_*); mpit.json and mpit.txt in the output directory",
                    List.of(new Part(EntryList.Kind.JAVA_LEVEL, (layout, impl) -> layout.mpitJar())),
                    BUILD),
            new Tool("hwc",
                    "hardware counters split inside vs outside MPI per rank (instructions, cycles, FP operations;"
                            + " software events without a PMU), read around every call or sampled where reads are"
                            + " dear (JPMPI_HWC_MODE); hwc.json and hwc.txt in the output directory",
                    List.of(new Part(EntryList.Kind.C_TOOL, Layout::hwcLevel),
                            new Part(EntryList.Kind.JAVA_LEVEL, (layout, impl) -> layout.hwcJar())),
                    BUILD),
            new Tool("accounting",
                    "one line per job (user, executable, ranks, nodes, wall time, MPI %, top functions, counters)"
                            + " appended at MPI_Finalize to JPMPI_ACCOUNTING_FILE; jpmpi accounting summary adds them up",
                    List.of(new Part(EntryList.Kind.C_TOOL, Layout::accountingLevel)),
                    BUILD),
            new Tool("java-counter",
                    "example Java level (examples/java-counter): calls and bytes per function, one line per rank",
                    List.of(new Part(EntryList.Kind.JAVA_LEVEL,
                            (layout, impl) -> layout.javaCounterJar().orElse(null))),
                    BUILD),
            new Tool("mpicount",
                    "example C PMPI tool (examples/c-tools): a call/time/byte table per rank",
                    List.of(new Part(EntryList.Kind.C_TOOL, (layout, impl) -> layout.exampleCTool(impl, "libmpicount.so"))),
                    BUILD));

    private BuiltinTools() {
    }

    public static List<Tool> all() {
        return ALL;
    }

    public static List<String> names() {
        return ALL.stream().map(Tool::name).toList();
    }

    public static Optional<Tool> byName(String name) {
        return ALL.stream().filter(t -> t.name.equals(name)).findFirst();
    }

}
