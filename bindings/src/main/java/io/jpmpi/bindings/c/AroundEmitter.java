package io.jpmpi.bindings.c;

import io.jpmpi.specs.Includes;
import io.jpmpi.specs.MpiFunction;
import io.jpmpi.specs.MpiSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Emits the wrappers of a C level that does the same thing around every MPI call, for one MPI
 * implementation and one tool {@code T}: {@code jpmpi_T_ids.h} (an id per wrapped function) and
 * {@code jpmpi_T.c}, where each wrapper is
 * <pre>
 * T_frame f = T_enter();
 * int rc = PMPI_X(...);
 * T_exit(f, T_F_MPI_X);
 * return rc;
 * </pre>
 * The tool's hand-written header {@code T.h} defines {@code T_frame} and the two always-inline
 * helpers, and its C file wraps the {@link #HAND_WRITTEN} lifecycle functions itself.
 *
 * <p>Wrapped: every function of the implementation that returns {@code int}, except the handle
 * conversions and the varargs {@code MPI_Pcontrol}.
 */
public final class AroundEmitter {
    /** Lifecycle functions the tool wraps by hand (they open and close what the wrappers use). */
    public static final Set<String> HAND_WRITTEN = Set.of("MPI_Init", "MPI_Init_thread", "MPI_Finalize");

    private final String impl;
    private final String tool;
    private final List<MpiFunction> wrapped;

    public AroundEmitter(MpiSpec spec, String impl, String tool) {
        if (!spec.implementations().containsKey(impl)) {
            throw new IllegalArgumentException("the spec has no implementation '" + impl + "'");
        }
        if (!tool.matches("[a-z][a-z0-9]*")) {
            throw new IllegalArgumentException("a tool prefix is a lower-case C identifier: " + tool);
        }
        this.impl = impl;
        this.tool = tool;
        this.wrapped = spec.functionsOf(impl).stream().filter(this::wraps).toList();
    }

    private boolean wraps(MpiFunction f) {
        return f.returnType(impl).equals("int") && !f.isVarargs()
                && !f.name().matches(".*_(c2f|f2c|c2f08|f082c|f2f08|f082f)$");
    }

    /** The wrapped functions, in id order. */
    public List<String> functionNames() {
        return wrapped.stream().map(MpiFunction::name).toList();
    }

    public Map<String, String> emit() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("jpmpi_" + tool + "_ids.h", ids());
        files.put("jpmpi_" + tool + ".c", wrappers());
        files.put("jpmpi_settings.h", SettingsHeaderEmitter.emit());
        return files;
    }

    private String header() {
        return "/* generated from specs/mpi-functions.json by io.jpmpi.bindings.c.AroundEmitter - do not edit */\n";
    }

    private String upper() {
        return tool.toUpperCase(java.util.Locale.ROOT);
    }

    private String ids() {
        String guard = "JPMPI_" + upper() + "_IDS_H";
        StringBuilder h = new StringBuilder(header());
        h.append("/* The functions the ").append(tool).append(" level wraps for ").append(impl).append(". */\n")
                .append("#ifndef ").append(guard).append("\n#define ").append(guard).append("\n\n")
                .append("#define ").append(upper()).append("_NFUNC ").append(wrapped.size()).append("\n\nenum ")
                .append(tool).append("_function {\n");
        for (int i = 0; i < wrapped.size(); i++) {
            h.append("    ").append(upper()).append("_F_").append(wrapped.get(i).name()).append(" = ").append(i)
                    .append(",\n");
        }
        return h.append("};\n\nextern const char *const ").append(tool).append("_names[").append(upper())
                .append("_NFUNC];\n\n#endif\n").toString();
    }

    private String wrappers() {
        StringBuilder c = new StringBuilder(header());
        c.append("#include \"").append(tool).append(".h\"\n").append(Includes.EXTENSIONS).append('\n');
        c.append("/* Deprecated functions are wrapped like the others. */\n");
        c.append("#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n");
        for (MpiFunction f : wrapped) {
            c.append("#undef ").append(f.name()).append("\n#undef ").append(f.pmpiName()).append('\n');
        }
        c.append("\nconst char *const ").append(tool).append("_names[").append(upper()).append("_NFUNC] = {\n");
        for (MpiFunction f : wrapped) {
            c.append("    \"").append(f.name()).append("\",\n");
        }
        c.append("};\n");
        for (MpiFunction f : wrapped) {
            if (HAND_WRITTEN.contains(f.name())) {
                continue;
            }
            String args = f.parameters().stream().map(DispatcherEmitter::cName).collect(Collectors.joining(", "));
            c.append("\n__attribute__((visibility(\"default\"))) ")
                    .append(DispatcherEmitter.signature(f, impl, f.name(), true)).append("\n{\n")
                    .append("    ").append(tool).append("_frame f = ").append(tool).append("_enter();\n")
                    .append("    int rc = ").append(f.pmpiName()).append('(').append(args).append(");\n")
                    .append("    ").append(tool).append("_exit(f, ").append(upper()).append("_F_").append(f.name())
                    .append(");\n    return rc;\n}\n");
        }
        return c.toString();
    }
}
