package io.jpmpi.specs.tool;

import io.jpmpi.platform.Toolchain;
import io.jpmpi.specs.CTypes;
import io.jpmpi.specs.Direction;
import io.jpmpi.specs.Implementation;
import io.jpmpi.specs.KindSource;
import io.jpmpi.specs.MpiConstants;
import io.jpmpi.specs.MpiFunction;
import io.jpmpi.specs.MpiSpec;
import io.jpmpi.specs.Parameter;
import io.jpmpi.specs.SpecJson;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Regenerates specs/mpi-functions.json from the mpi.h of every installed MPI implementation, as
 * clang read it ({@link ClangHeader}: one JSON per implementation in the {@code --clang}
 * directory, written by specs/jextract/HeaderFacts.java), joined with the MPI Forum's apis.json
 * and specs/overrides.jsonc. Deterministic: the same inputs give the same bytes.
 *
 * <pre>SpecTool --forum PATH/apis.json --overrides specs/overrides.jsonc --clang DIR --out specs/mpi-functions.json [--impl ID]...</pre>
 */
public final class SpecTool {
    private final ForumApis forum;
    private final Overrides overrides;
    private final Categorizer categorizer;
    private final Path clang;
    private final PrintStream log;
    private final List<Scan> scans = new ArrayList<>();

    private SpecTool(ForumApis forum, Overrides overrides, Path clang, PrintStream log) {
        this.forum = forum;
        this.clang = clang;
        this.overrides = overrides;
        this.categorizer = new Categorizer(overrides.categories());
        this.log = log;
    }

    /** What one implementation's toolchain told us. */
    private record Scan(Toolchain toolchain, Implementation impl, ClangHeader header,
                        Map<String, ClangHeader.Prototype> protos, Set<String> fortranSymbols) {
    }

    public static void main(String[] args) throws IOException {
        Path forumPath = null;
        Path overridesPath = null;
        Path out = null;
        Path clang = null;
        List<String> implIds = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                usage("option " + a + " needs a value");
            }
            switch (a) {
                case "--forum" -> forumPath = Path.of(args[++i]);
                case "--overrides" -> overridesPath = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--clang" -> clang = Path.of(args[++i]);
                case "--impl" -> implIds.add(args[++i]);
                default -> usage("unknown option " + a);
            }
        }
        if (forumPath == null || overridesPath == null || out == null || clang == null) {
            usage("--forum, --overrides, --clang and --out are required");
        }
        if (!Files.isRegularFile(forumPath)) {
            usage("the MPI Forum description " + forumPath + " does not exist (pympistandard's apis.json)");
        }
        List<Toolchain> toolchains = implIds.isEmpty() ? Toolchain.installed()
                : implIds.stream().map(Toolchain::byId).toList();
        if (toolchains.isEmpty()) {
            usage("no MPI implementation found: install openmpi-bin libopenmpi-dev and/or mpich libmpich-dev");
        }
        long t0 = System.nanoTime();
        for (Toolchain t : toolchains) {
            if (!Files.isRegularFile(clang.resolve(t.id() + ".json"))) {
                usage(clang.resolve(t.id() + ".json") + " is missing: specs/regenerate.sh writes it with"
                        + " specs/jextract/HeaderFacts.java");
            }
        }
        SpecTool tool = new SpecTool(ForumApis.read(forumPath), Overrides.read(overridesPath), clang, System.err);
        MpiSpec spec = tool.generate(toolchains);
        Files.writeString(out, SpecJson.write(spec), StandardCharsets.UTF_8);
        for (Map.Entry<String, List<String>> e : tool.jextractIncludes(spec).entrySet()) {
            Files.write(clang.resolve(e.getKey() + ".jextract"), e.getValue(), StandardCharsets.UTF_8);
        }
        tool.report(spec);
        System.err.printf("wrote %s in %.1f s%n", out, (System.nanoTime() - t0) / 1e9);
    }

    private static void usage(String problem) {
        System.err.println("spec-tool: " + problem);
        System.err.println("usage: SpecTool --forum apis.json --overrides specs/overrides.jsonc"
                + " --clang DIR --out specs/mpi-functions.json [--impl openmpi|mpich]...");
        System.exit(2);
    }

    MpiSpec generate(List<Toolchain> toolchains) throws IOException {
        scans.clear();
        for (Toolchain t : toolchains) {
            scans.add(scan(t));
        }
        for (Scan s : scans) {
            // an implementation declaring one of these without its profiling twin does not have it here
            s.protos.keySet().removeIf(n -> {
                boolean out = !n.startsWith("P") && !s.protos.containsKey("P" + n)
                        && overrides.notInterceptable().containsKey(n);
                if (out) {
                    log.println("note: " + s.impl.id() + " declares " + n + " without P" + n + ", left out: "
                            + overrides.notInterceptable().get(n));
                }
                return out;
            });
        }
        Set<String> names = new TreeSet<>();
        for (Scan s : scans) {
            for (String n : s.protos.keySet()) {
                if (n.startsWith("PMPI")) {
                    if (!s.protos.containsKey(n.substring(1))) {
                        log.println("note: " + s.impl.id() + " declares " + n + " without " + n.substring(1));
                    }
                    continue;
                }
                if (!s.protos.containsKey("P" + n)) {
                    throw new IllegalStateException(s.impl.id() + " declares " + n + " but no P" + n);
                }
                checkSame(s.impl.id(), s.protos.get(n), s.protos.get("P" + n));
                names.add(n);
            }
        }
        Map<String, Implementation> impls = new TreeMap<>();
        scans.forEach(s -> impls.put(s.impl.id(), s.impl));
        List<MpiFunction> functions = new ArrayList<>();
        for (String name : names) {
            functions.add(function(name, scans));
        }
        return new MpiSpec(MpiSpec.SCHEMA_VERSION, impls, functions);
    }

    /**
     * Per implementation, jextract's filter options (an argument file, one option a line) for
     * exactly what the spec uses: its functions, the typedefs the Java side sizes (handle types,
     * fixed-size integer types) and the MPI_Status typedef with its struct.
     */
    Map<String, List<String>> jextractIncludes(MpiSpec spec) {
        MpiConstants constants = MpiConstants.load();
        Map<String, List<String>> out = new TreeMap<>();
        for (Scan s : scans) {
            String impl = s.impl.id();
            List<String> opts = new ArrayList<>();
            spec.functionsOf(impl).forEach(f -> opts.add("--include-function " + f.name()));
            Set<String> types = new TreeSet<>(constants.handleTypes());
            types.addAll(constants.int32Types());
            types.addAll(constants.int64Types());
            types.add("MPI_Status");
            types.retainAll(s.header.typedefs().keySet());
            types.forEach(t -> opts.add("--include-typedef " + t));
            String status = s.header.typedefs().get("MPI_Status").canonical();
            if (!status.startsWith("struct ")) {
                throw new IllegalStateException(impl + ": MPI_Status is " + status + ", not a struct");
            }
            opts.add("--include-struct " + status.substring("struct ".length()));
            out.put(impl, opts);
        }
        return out;
    }

    private Scan scan(Toolchain t) throws IOException {
        Map<String, String> macros = t.macros();
        ClangHeader header = ClangHeader.read(clang.resolve(t.id() + ".json"));
        List<String> problems = header.check(t.id(), MpiConstants.load());
        if (!problems.isEmpty()) {
            throw new IllegalStateException(String.join("\n", problems));
        }
        Map<String, ClangHeader.Prototype> protos = new TreeMap<>(header.prototypes());
        Set<String> candidates = new TreeSet<>();
        protos.keySet().stream().filter(n -> !n.startsWith("P")).forEach(n -> candidates.addAll(fortranNames(n)));
        Set<String> fsyms = new TreeSet<>();
        List<String> used = new ArrayList<>();
        for (Path lib : t.fortranLibraries()) {
            if (!lib.getFileName().toString().contains("mpi")) {
                continue; // libm, libz, libhwloc...: not MPI bindings (and sometimes linker scripts)
            }
            Set<String> syms = Toolchain.exportedSymbols(lib);
            syms.retainAll(candidates);
            if (!syms.isEmpty()) {
                fsyms.addAll(syms);
                used.add(lib.getFileName().toString());
            }
        }
        String mpiVersion = macros.getOrDefault("MPI_VERSION", "?") + "." + macros.getOrDefault("MPI_SUBVERSION", "?");
        Implementation impl = new Implementation(t.id(), t.name(), t.version(macros), mpiVersion, t.cc(), used);
        log.printf("%s %s: %d prototypes in mpi.h (clang), %d Fortran symbols in %s%n", t.name(), impl.version(),
                protos.size(), fsyms.size(), used);
        return new Scan(t, impl, header, protos, fsyms);
    }

    private static void checkSame(String impl, ClangHeader.Prototype mpi, ClangHeader.Prototype pmpi) {
        // Compared as the compiler sees them: Open MPI declares MPI_Waitall(..., MPI_Status *) but
        // PMPI_Waitall(..., MPI_Status []), which is the same type once the array adjusts.
        List<String> a = mpi.params().stream().map(p -> CTypes.adjusted(p.type())).toList();
        List<String> b = pmpi.params().stream().map(p -> CTypes.adjusted(p.type())).toList();
        if (!a.equals(b) || !mpi.returnType().equals(pmpi.returnType())) {
            throw new IllegalStateException(impl + ": " + mpi.name() + " and P" + mpi.name() + " differ: " + a + " / " + b);
        }
    }

    private MpiFunction function(String name, List<Scan> scans) {
        Map<String, ClangHeader.Prototype> byImpl = new LinkedHashMap<>();
        for (Scan s : scans) {
            ClangHeader.Prototype p = s.protos.get(name);
            if (p != null) {
                byImpl.put(s.impl.id(), p);
            }
        }
        int arity = byImpl.values().iterator().next().params().size();
        byImpl.forEach((id, p) -> {
            if (p.params().size() != arity) {
                throw new IllegalStateException(name + " has " + p.params().size() + " parameters in " + id
                        + " but " + arity + " elsewhere");
            }
        });
        boolean large = name.endsWith("_c") && forum.key(name.substring(0, name.length() - 2)) != null;
        String base = large ? name.substring(0, name.length() - 2) : null;
        String key = forum.key(large ? base : name);

        List<ForumApis.ForumParam> described = null;
        KindSource source = KindSource.NONE;
        if (key != null && forum.cParameters(key, large).size() == arity) {
            described = forum.cParameters(key, large);
            source = KindSource.FORUM;
        } else if (overrides.kindsLike().containsKey(name)) {
            String like = overrides.kindsLike().get(name);
            String likeKey = forum.key(like);
            if (likeKey == null || forum.cParameters(likeKey, false).size() != arity) {
                throw new IllegalStateException("overrides: " + name + " is not like " + like
                        + " (missing from the Forum's description or a different parameter count)");
            }
            described = forum.cParameters(likeKey, false);
            source = KindSource.OVERRIDE;
        } else if (overrides.kinds().containsKey(name)) {
            described = overrides.kinds().get(name);
            if (described.size() != arity) {
                throw new IllegalStateException("overrides: " + name + " lists " + described.size()
                        + " parameters, the header has " + arity);
            }
            source = KindSource.OVERRIDE;
        } else if (key != null) {
            log.println("warning: " + name + ": the Forum lists " + forum.cParameters(key, large).size()
                    + " C parameters, the header " + arity + "; kinds left out");
        }

        List<Parameter> params = new ArrayList<>();
        for (int i = 0; i < arity; i++) {
            Map<String, String> types = new TreeMap<>();
            String headerName = null;
            for (Map.Entry<String, ClangHeader.Prototype> e : byImpl.entrySet()) {
                ClangHeader.CParam cp = e.getValue().params().get(i);
                types.put(e.getKey(), cp.type());
                if (headerName == null) {
                    headerName = cp.name();
                }
            }
            if (described != null) {
                ForumApis.ForumParam fp = described.get(i);
                params.add(new Parameter(fp.name(), fp.kind(), source, Direction.fromId(fp.direction()), fp.length(),
                        fp.rootOnly(), fp.optional(), types));
            } else {
                String pname = types.containsValue("...") ? "varargs" : headerName != null ? headerName : "arg" + i;
                params.add(new Parameter(pname, null, KindSource.NONE, null, null, false, false, types));
            }
        }
        Map<String, String> ret = new TreeMap<>();
        byImpl.forEach((id, p) -> ret.put(id, p.returnType()));
        Map<String, List<String>> fortran = new TreeMap<>();
        for (Scan s : scans) {
            if (byImpl.containsKey(s.impl.id())) {
                List<String> found = fortranNames(name).stream().filter(s.fortranSymbols::contains).toList();
                if (!found.isEmpty()) {
                    fortran.put(s.impl.id(), found);
                }
            }
        }
        return new MpiFunction(name, categorizer.categorize(large ? base : name), large, base, key,
                key != null ? forum.returnKind(key) : null, ret, List.copyOf(byImpl.keySet()), params, fortran);
    }

    /** The symbol spellings Fortran compilers give {@code MPI_X} and {@code PMPI_X}. */
    static List<String> fortranNames(String name) {
        List<String> out = new ArrayList<>();
        for (String n : List.of(name, "P" + name)) {
            String lower = n.toLowerCase();
            out.addAll(List.of(n.toUpperCase(), lower, lower + "_", lower + "__"));
        }
        return out;
    }

    private void report(MpiSpec spec) {
        for (String impl : spec.implementations().keySet()) {
            List<MpiFunction> fs = spec.functionsOf(impl);
            long withFortran = fs.stream().filter(f -> f.fortran().containsKey(impl)).count();
            log.printf("%s: %d functions (%d large-count), %d with Fortran symbols%n", impl, fs.size(),
                    fs.stream().filter(MpiFunction::largeCount).count(), withFortran);
        }
        long total = 0;
        long forumKinds = 0;
        long overrideKinds = 0;
        List<String> missing = new ArrayList<>();
        for (MpiFunction f : spec.functions()) {
            for (Parameter p : f.parameters()) {
                total++;
                switch (p.kindSource()) {
                    case FORUM -> forumKinds++;
                    case OVERRIDE -> overrideKinds++;
                    case NONE -> missing.add(f.name() + "." + p.name());
                }
            }
        }
        log.printf("parameters: %d; Forum kind %d (%.1f %%), override kind %d, none %d %s%n", total, forumKinds,
                100.0 * forumKinds / total, overrideKinds, missing.size(), missing);
    }
}
