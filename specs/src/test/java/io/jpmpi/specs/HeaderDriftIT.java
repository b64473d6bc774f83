package io.jpmpi.specs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.jpmpi.platform.Toolchain;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fails on any drift between mpi-functions.json and the installed MPI implementations. The
 * function list is taken from the compiler itself ({@code gcc -aux-info}), not from the
 * generator's parser, and the prototypes are checked by compiling assignments with -Werror.
 */
class HeaderDriftIT {
    static final MpiSpec SPEC = MpiSpec.load();
    static final Path WORK = Path.of(System.getProperty("jpmpi.build.dir", "target"), "drift");
    /** One aux-info line: {@code extern int MPI_Send (const void *, int, ...);}. */
    static final Pattern AUX = Pattern.compile("extern (?<ret>[^(]*?)\\s*\\b(?<name>P?MPIX?_\\w+) \\((?<params>.*)\\);");

    static Stream<String> implementations() {
        return SPEC.implementations().keySet().stream();
    }

    private static Toolchain toolchain(String impl) {
        Toolchain t = Toolchain.byId(impl);
        assertTrue(Toolchain.installed().contains(t), impl + " is in the spec but " + t.cc()
                + " is not installed (run ./test.sh, which installs the MPI packages)");
        return t;
    }

    /** Prototypes gcc saw in mpi.h, by name, with adjusted parameter types. */
    private static Map<String, List<String>> compilerPrototypes(String impl) throws IOException {
        Files.createDirectories(WORK);
        Path aux = WORK.resolve(impl + ".aux");
        List<String> command = new ArrayList<>(List.of(toolchain(impl).cc(), "-aux-info", aux.toString(),
                "-fsyntax-only", "-x", "c"));
        command.addAll(toolchain(impl).includeFlags()); // mpi.h, and mpi-ext.h where there is one
        command.add("/dev/null");
        run(command);
        Map<String, List<String>> out = new TreeMap<>();
        for (String line : Files.readAllLines(aux)) {
            Matcher m = AUX.matcher(line);
            if (m.find()) {
                List<String> sig = new ArrayList<>();
                sig.add(squash(m.group("ret")));
                String params = m.group("params").trim();
                if (!params.equals("void")) {
                    for (String p : params.split(",")) {
                        // aux-info spells a pointer to a function typedef "T ( * )".
                        sig.add(squash(p.replaceAll("\\(\\s*(\\*+)\\s*\\)\\s*$", " $1")));
                    }
                }
                out.put(m.group("name"), sig);
            }
        }
        return out;
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void everyDeclaredFunctionIsInTheSpec(String impl) throws IOException {
        Map<String, List<String>> declared = compilerPrototypes(impl);
        Set<String> fromHeader = new TreeSet<>();
        for (String n : declared.keySet()) {
            if (!n.startsWith("P") && declared.containsKey("P" + n)) {
                fromHeader.add(n);
            }
        }
        Set<String> inSpec = new TreeSet<>();
        SPEC.functionsOf(impl).forEach(f -> inSpec.add(f.name()));
        assertTrue(fromHeader.size() > 300, impl + ": only " + fromHeader.size() + " functions found in mpi.h");
        Set<String> missing = new TreeSet<>(fromHeader);
        missing.removeAll(inSpec);
        Set<String> extra = new TreeSet<>(inSpec);
        extra.removeAll(fromHeader);
        assertEquals(Set.of(), missing, impl + ": declared in mpi.h but missing from the spec");
        assertEquals(Set.of(), extra, impl + ": in the spec but not declared in mpi.h");
        System.out.printf("%s: %d of %d declared functions in the spec (100 %%)%n", impl, inSpec.size(),
                fromHeader.size());
    }

    /**
     * Every MPI_X / MPIX_X the implementation's C library exports ({@code nm -D}) is in the spec, or
     * in specs/exported-not-covered.jsonc with the reason, or declared without a profiling twin
     * (overrides.jsonc, "not_interceptable"); and every name those files list is really exported and
     * really not in the spec.
     */
    @ParameterizedTest
    @MethodSource("implementations")
    void everyExportedFunctionIsCoveredOrDocumented(String impl) throws IOException {
        Set<String> exported = new TreeSet<>();
        for (Path lib : toolchain(impl).cLibraries()) {
            Toolchain.exportedFunctions(lib).stream().filter(n -> n.matches("MPIX?_\\w+")).forEach(exported::add);
        }
        assertTrue(exported.size() > 300, impl + ": only " + exported.size() + " MPI_ functions exported");
        Set<String> inSpec = new TreeSet<>();
        SPEC.functionsOf(impl).forEach(f -> inSpec.add(f.name()));
        Set<String> uncovered = new TreeSet<>(exported);
        uncovered.removeAll(inSpec);
        JsonNode documented = SpecJson.commentedMapper().readTree(Path.of("exported-not-covered.jsonc").toFile())
                .path(impl);
        Set<String> listed = new TreeSet<>();
        documented.fieldNames().forEachRemaining(listed::add);
        SpecJson.commentedMapper().readTree(Path.of("overrides.jsonc").toFile()).path("not_interceptable")
                .fieldNames().forEachRemaining(n -> {
                    if (exported.contains(n) && !inSpec.contains(n)) {
                        listed.add(n);
                    }
                });
        assertEquals(listed, uncovered, impl + ": exported but not in the spec (left) vs documented (right)");
        System.out.printf("%s: %d exported MPI functions, %d in the spec, %d documented as not covered%n", impl,
                exported.size(), exported.size() - uncovered.size(), uncovered.size());
    }

    /** Type text without whitespace: gcc and the spec space "int (*)[3]" differently. */
    private static String squash(String type) {
        return type.replaceAll("\\s+", "");
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void prototypesMatchTheCompilersView(String impl) throws IOException {
        Map<String, List<String>> declared = compilerPrototypes(impl);
        // A parameter of function type (MPICH: MPI_T_event_free_cb_function cb_function) adjusts
        // to a pointer, as an array does; find those typedefs in the preprocessed header.
        String header = toolchain(impl).preprocessedHeader();
        Set<String> functionTypedefs = new TreeSet<>();
        Matcher td = Pattern.compile("typedef[^;(]*\\(\\s*(\\w+)\\s*\\)\\s*\\(").matcher(header);
        while (td.find()) {
            functionTypedefs.add(td.group(1));
        }
        assertTrue(functionTypedefs.contains("MPI_Comm_copy_attr_function"), "function typedefs not found");
        for (MpiFunction f : SPEC.functionsOf(impl)) {
            List<String> sig = new ArrayList<>();
            sig.add(squash(f.returnType(impl)));
            for (Parameter p : f.parameters()) {
                String t = p.cType(impl);
                sig.add(squash(functionTypedefs.contains(t) ? t + " *" : CTypes.adjusted(t)));
            }
            assertEquals(declared.get(f.name()), sig, impl + ": " + f.name());
            assertEquals(declared.get(f.pmpiName()), sig, impl + ": " + f.pmpiName());
        }
    }

    /** One C file assigning every MPI_X and PMPI_X to a pointer of the spec's type. */
    static String assignmentCheck(String impl, MpiSpec spec) {
        StringBuilder c = new StringBuilder("/* generated from specs/mpi-functions.json by HeaderDriftIT */\n")
                .append("#include <mpi.h>\n").append(Includes.EXTENSIONS);
        for (MpiFunction f : spec.functionsOf(impl)) {
            List<String> types = f.parameters().stream().map(p -> p.cType(impl)).toList();
            String params = types.isEmpty() ? "void" : String.join(", ", types);
            for (String n : List.of(f.name(), f.pmpiName())) {
                c.append(f.returnType(impl)).append(" (*const jpmpi_check_").append(n).append(")(").append(params)
                        .append(") = ").append(n).append(";\n");
            }
        }
        return c.toString();
    }

    private static void compile(String impl, String source, String name) throws IOException {
        Files.createDirectories(WORK);
        Path c = WORK.resolve(name + ".c");
        Files.writeString(c, source);
        // Deprecation warnings are the headers' opinion of old functions, not a type mismatch.
        run(List.of(toolchain(impl).cc(), "-std=c11", "-Wall", "-Wextra", "-Werror", "-Wno-deprecated-declarations",
                "-c", c.toString(), "-o", WORK.resolve(name + ".o").toString()));
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void prototypesCompileWithWerror(String impl) throws IOException {
        compile(impl, assignmentCheck(impl, SPEC), impl + "-prototypes");
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void theCompileCheckCatchesAWrongType(String impl) {
        String wrong = "#include <mpi.h>\nint (*const p)(void *, int, MPI_Datatype, int, int, MPI_Comm) = MPI_Send;\n";
        IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
                () -> compile(impl, wrong, impl + "-negative"));
        assertTrue(e.getMessage().contains("incompatible"), e.getMessage());
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void fortranNamesExistInTheFortranLibrary(String impl) throws IOException {
        Toolchain t = toolchain(impl);
        List<String> libNames = SPEC.implementations().get(impl).fortranLibraries();
        assertFalse(libNames.isEmpty(), impl + ": no Fortran library recorded");
        Set<String> exported = new TreeSet<>();
        for (Path lib : t.fortranLibraries()) {
            if (libNames.contains(lib.getFileName().toString())) {
                exported.addAll(nmDefined(lib));
            }
        }
        assertFalse(exported.isEmpty(), impl + ": none of " + libNames + " found through " + t.fc());
        int checked = 0;
        for (MpiFunction f : SPEC.functionsOf(impl)) {
            for (String sym : f.fortran().getOrDefault(impl, List.of())) {
                assertTrue(exported.contains(sym), impl + ": " + f.name() + " lists " + sym + ", nm -D does not show it");
                checked++;
            }
        }
        MpiFunction send = SPEC.byName().get("MPI_Send");
        assertTrue(send.fortran().get(impl).contains("mpi_send_"), impl + ": mpi_send_ missing");
        assertNotEquals(0, checked);
    }

    private static Set<String> nmDefined(Path lib) throws IOException {
        Set<String> out = new TreeSet<>();
        for (String line : run(List.of("nm", "-D", "--defined-only", lib.toString())).split("\n")) {
            String[] w = line.trim().split("\\s+");
            if (w.length == 3) {
                out.add(w[2]);
            }
        }
        return out;
    }

    private static String run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(String.join(" ", cmd) + " failed:\n" + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        return out;
    }
}
