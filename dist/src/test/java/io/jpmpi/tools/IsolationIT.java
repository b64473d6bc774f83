package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.profilers.report.FunctionProfile;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The isolation rule end to end, through the installed launcher: every tool sees exactly the
 * application's MPI calls, in any stacking order. Four tools, each making MPI calls of its own:
 * profile (its C recorder's helper calls, its Java level's reductions and parallel write at
 * MPI_Finalize), java-counter (its rank query), mpicount (PMPI_Type_size in its wrappers, a
 * PMPI_Comm_dup and two PMPI_Reduce at MPI_Finalize), and test-support's libthirdparty.so
 * (PMPI_Comm_rank/size in MPI_Init, PMPI_Type_size and PMPI_Comm_size in its wrappers, a
 * PMPI_Reduce, a PMPI_Gather and a PMPI_Sendrecv ring at MPI_Finalize). Each tool's figures,
 * run alone on the program isolate (point-to-point, collectives, a sub-communicator) with 3
 * ranks, must be exactly its figures in each of the 24 orders of the four, and in stacks that add
 * accounting, mpit and hwc (their own calls included); the program's output must be the same as
 * without tools. Figures compared: profile's calls, bytes and histograms per function and rank and
 * its matrix (not its times); java-counter's count lines; mpicount's calls and bytes (not its
 * times); thirdparty's files. And the demo's java-counter lines equal java-counter's alone.
 */
class IsolationIT {
    static final int RANKS = 3;
    static final String PROGRAM = "isolate";
    static final String ITERS = "3";
    static final List<String> FOUR = List.of("profile", "java-counter", "mpicount", "thirdparty");
    /** (impl, tool) → its figures when it runs alone; "" → the program's output without tools. */
    static final Map<String, List<String>> ALONE = new ConcurrentHashMap<>();

    static Stream<Arguments> orders() {
        List<List<String>> orders = new ArrayList<>();
        permute(new ArrayList<>(FOUR), 0, orders);
        orders.add(List.of("accounting", "profile", "java-counter", "mpicount", "thirdparty"));
        orders.add(List.of("thirdparty", "mpicount", "accounting", "java-counter", "profile"));
        orders.add(List.of("mpit", "thirdparty", "profile", "mpicount", "java-counter"));
        orders.add(List.of("java-counter", "profile", "thirdparty", "mpit", "mpicount"));
        orders.add(List.of("hwc", "mpicount", "thirdparty", "java-counter", "profile"));
        orders.add(List.of("profile", "thirdparty", "java-counter", "mpicount", "hwc"));
        return MpiRun.implementations().flatMap(i -> orders.stream().map(o -> Arguments.of(i, String.join(",", o))));
    }

    private static void permute(List<String> items, int k, List<List<String>> out) {
        if (k == items.size()) {
            out.add(List.copyOf(items));
            return;
        }
        for (int i = k; i < items.size(); i++) {
            java.util.Collections.swap(items, k, i);
            permute(items, k + 1, out);
            java.util.Collections.swap(items, k, i);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("orders")
    void eachToolSeesExactlyTheProgramsCalls(Impl impl, String order) {
        List<String> tools = List.of(order.split(","));
        Run stacked = Run.of(impl, tools);
        assertEquals(alone(impl, null), stacked.program(), () -> "the program's output changed\n" + stacked.describe());
        for (String tool : tools) {
            if (FOUR.contains(tool)) {
                List<String> mine = alone(impl, tool);
                assertFalse(mine.isEmpty(), tool + " alone gave no figures");
                assertEquals(mine, stacked.figures(tool), () -> tool + "'s figures differ from its figures alone in "
                        + order + "\n" + stacked.describe());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void demosCounterLinesAreTheCountersAlone(Impl impl) throws IOException {
        Jpmpi.Result demo = Jpmpi.run(List.of("demo", "--mpi", impl.id));
        assertEquals(0, demo.exit(), demo::describe);
        List<String> inDemo = counterLines(demo.err());
        assertEquals(4, inDemo.size(), demo::describe);
        Path halo = Jpmpi.HOME.resolve("share/jpmpi/examples/halo-demo/build").resolve(impl.id).resolve("halo");
        assertTrue(Files.isExecutable(halo), demo::describe);
        List<String> args = new ArrayList<>(List.of("run", "--tools", "java-counter", "--"));
        args.addAll(LauncherIT.launcher(impl, 4));
        args.add(halo.toString());
        Jpmpi.Result alone = Jpmpi.run(args);
        assertEquals(0, alone.exit(), alone::describe);
        assertEquals(counterLines(alone.err()), inDemo, () -> "demo:\n" + demo.describe() + "\nalone:\n"
                + alone.describe());
    }

    /** java-counter's lines, sorted by rank. */
    static List<String> counterLines(String err) {
        return err.lines().filter(l -> l.startsWith("count java-counter rank ")).sorted().toList();
    }

    /** A tool's figures alone (null: the program's output with no tools), measured once per MPI. */
    static List<String> alone(Impl impl, String tool) {
        String key = impl.id + "/" + (tool == null ? "" : tool);
        return ALONE.computeIfAbsent(key, k -> {
            Run r = Run.of(impl, tool == null ? List.of() : List.of(tool));
            return tool == null ? r.program() : r.figures(tool);
        });
    }

    /** One run of isolate through bin/jpmpi run with the tools in this order. */
    record Run(Impl impl, List<String> tools, Jpmpi.Result result, Path out, Path thirdparty) {
        static Run of(Impl impl, List<String> tools) {
            try {
                Files.createDirectories(Jpmpi.RUNS);
                Path dir = Files.createTempDirectory(Jpmpi.RUNS, "isolation-");
                Path out = dir.resolve("out");
                Path third = Files.createDirectories(dir.resolve("thirdparty"));
                List<String> args = new ArrayList<>(List.of("run", "--output", out.toString()));
                if (!tools.isEmpty()) {
                    List<String> items = tools.stream().map(t -> t.equals("thirdparty") ? impl.file("libthirdparty.so")
                            : t).toList();
                    args.addAll(List.of("--tools", String.join(",", items)));
                }
                args.add("--");
                args.addAll(LauncherIT.launcher(impl, RANKS));
                args.addAll(List.of(impl.file(PROGRAM), ITERS));
                Map<String, String> env = new LinkedHashMap<>();
                env.put("THIRDPARTY_DIR", third.toString());
                env.put("JPMPI_ACCOUNTING_FILE", dir.resolve("accounting.jsonl").toString());
                Jpmpi.Result r = Jpmpi.run(env, args);
                Run run = new Run(impl, tools, r, out, third);
                assertEquals(0, r.exit(), run::describe);
                return run;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        String describe() {
            return impl + " tools " + tools + ": " + result.describe();
        }

        List<String> program() {
            List<String> lines = result.out().lines().filter(l -> l.startsWith(PROGRAM + " rank ")).sorted().toList();
            assertEquals(RANKS, lines.size(), this::describe);
            return lines;
        }

        List<String> figures(String tool) {
            return switch (tool) {
                case "profile" -> profile();
                case "java-counter" -> counterLines(result.err());
                case "mpicount" -> result.out().lines().filter(l -> l.startsWith("mpicount: ")).map(Run::callsAndBytes)
                        .toList();
                case "thirdparty" -> thirdpartyFiles();
                default -> throw new IllegalArgumentException(tool);
            };
        }

        /** "mpicount: MPI_X calls time max bytes" without the two times. */
        private static String callsAndBytes(String line) {
            String[] f = line.trim().split("\\s+");
            return f.length == 6 ? f[1] + " " + f[2] + " " + f[5] : line;
        }

        private List<String> thirdpartyFiles() {
            List<String> lines = new ArrayList<>();
            for (int rank = 0; rank < RANKS; rank++) {
                Path file = thirdparty.resolve("thirdparty-" + rank + ".txt");
                assertTrue(Files.isRegularFile(file), () -> "no " + file + "\n" + describe());
                try {
                    Files.readAllLines(file).forEach(l -> lines.add(file.getFileName() + " " + l));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return lines;
        }

        /** Calls, bytes and histograms per function and rank, and the matrix; no times. */
        private List<String> profile() {
            Path file = out.resolve("profile.json");
            assertTrue(Files.isRegularFile(file), () -> "no " + file + "\n" + describe());
            Profile p;
            try {
                p = ProfileJson.read(file);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            List<String> lines = new ArrayList<>();
            // (functions in name order: the file lists them by time)
            for (FunctionProfile f : p.functions().stream().sorted(java.util.Comparator.comparing(FunctionProfile::name))
                    .toList()) {
                lines.add(f.name() + " calls " + f.calls() + " sent " + f.bytesSent() + " recv " + f.bytesRecv()
                        + " sizes " + Arrays.toString(f.histogram()) + " per rank " + f.perRank().calls() + " "
                        + f.perRank().bytesSent() + " " + f.perRank().bytesRecv());
            }
            p.rankRows().forEach(r -> lines.add("rank " + r.rank() + " calls " + r.calls()));
            for (int rank = 0; rank < p.messages().size(); rank++) {
                lines.add("matrix " + rank + " " + p.messages().get(rank) + " " + p.bytes().get(rank));
            }
            lines.add("histogram " + Arrays.toString(p.histogram()));
            return lines;
        }
    }
}
