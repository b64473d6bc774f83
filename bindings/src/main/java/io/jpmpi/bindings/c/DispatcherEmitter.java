package io.jpmpi.bindings.c;

import io.jpmpi.specs.CTypes;
import io.jpmpi.specs.Implementation;
import io.jpmpi.specs.Includes;
import io.jpmpi.specs.MpiConstants;
import io.jpmpi.specs.MpiFunction;
import io.jpmpi.specs.MpiSpec;
import io.jpmpi.specs.Parameter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

/**
 * Emits the generated half of libmpiprofilesupport.so for one MPI implementation: a slot per MPI
 * function (slot n is the n-th function of the spec for that implementation, in name order) and,
 * per slot, the exported {@code MPI_X} and {@code PMPI_X}. Each is one indirect tail call through
 * the slot's entry table; the hand-written core (src/main/c/core) fills the tables. Until the core
 * has run, the tables hold boot stubs that run it first. Per slot too, the routing functions of the
 * isolation rule (jpmpi_core.h): three entries (the application's MPI_X and PMPI_X, the Fortran
 * layer's calls), the guard that every level's PMPI_X reaches, and a stub for a function the
 * library lacks.
 */
public final class DispatcherEmitter {
    static final String HEADER = "/* generated from specs/mpi-functions.json by io.jpmpi.bindings.c.DispatcherEmitter"
            + " - do not edit */\n";
    /** The one varargs function; the core delivers it to every level itself. */
    static final String PCONTROL = "MPI_Pcontrol";

    private final MpiSpec spec;
    private final MpiConstants constants;
    private final String impl;
    private final Implementation implementation;
    private final List<MpiFunction> functions;

    public DispatcherEmitter(MpiSpec spec, MpiConstants constants, String impl) {
        this.spec = spec;
        this.constants = constants;
        this.impl = impl;
        this.implementation = spec.implementations().get(impl);
        if (implementation == null) {
            throw new IllegalArgumentException("the spec has no implementation '" + impl + "' (it has "
                    + spec.implementations().keySet() + ")");
        }
        this.functions = spec.functionsOf(impl);
        for (MpiFunction f : functions) {
            if (f.isVarargs() && !f.name().equals(PCONTROL)) {
                throw new IllegalStateException(f.name() + " is varargs; only " + PCONTROL + " is expected to be");
            }
        }
    }

    /** File name → content. */
    public Map<String, String> emit() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("jpmpi_slots.h", slotsHeader());
        files.put("jpmpi_dispatch.c", dispatchSource());
        files.put("jpmpi_abi.c", new AbiEmitter(spec, constants, impl).emit());
        files.put("jpmpi_settings.h", SettingsHeaderEmitter.emit());
        return files;
    }

    /** The slot of each function, in spec order. */
    public List<String> slotNames() {
        return functions.stream().map(MpiFunction::name).toList();
    }

    private String slotsHeader() {
        StringBuilder h = new StringBuilder(HEADER);
        h.append("/* Slots of the ").append(implementation.name()).append(' ').append(implementation.version())
                .append(" dispatcher: slot n is the n-th function of the spec for '").append(impl).append("'. */\n")
                .append("#ifndef JPMPI_SLOTS_H\n#define JPMPI_SLOTS_H\n\n")
                .append("#define JPMPI_NSLOTS ").append(functions.size()).append("\n\n")
                .append("enum jpmpi_slot {\n");
        for (int i = 0; i < functions.size(); i++) {
            h.append("    JPMPI_SLOT_").append(functions.get(i).name()).append(" = ").append(i).append(",\n");
        }
        return h.append("};\n\n#endif\n").toString();
    }

    private String dispatchSource() {
        StringBuilder c = new StringBuilder(HEADER);
        c.append("#include <stddef.h>\n#include <mpi.h>\n").append(Includes.EXTENSIONS)
                .append("#include \"jpmpi_core.h\"\n\n");
        c.append("/* Some MPI names are also function-like macros in mpi.h (MPI_Aint_add, MPI_Comm_f2c, ...). */\n");
        for (MpiFunction f : functions) {
            c.append("#undef ").append(f.name()).append("\n#undef ").append(f.pmpiName()).append('\n');
        }
        c.append('\n').append(metadata()).append('\n');
        for (MpiFunction f : functions) {
            c.append("typedef ").append(signature(f, "(*" + fnType(f) + ")", false)).append(";\n");
        }
        c.append('\n');
        for (MpiFunction f : dispatched()) {
            c.append("static ").append(signature(f, "jpmpi_boot_" + f.name(), true)).append(";\n");
            c.append("static ").append(signature(f, "jpmpi_boot_" + f.pmpiName(), true)).append(";\n");
        }
        c.append('\n').append(table("jpmpi_fn jpmpi_entry", "jpmpi_boot_"))
                .append(table("jpmpi_fn jpmpi_pentry", "jpmpi_boot_P")).append('\n');
        for (int i = 0; i < functions.size(); i++) {
            MpiFunction f = functions.get(i);
            if (f.name().equals(PCONTROL)) {
                continue;
            }
            c.append(forwarder(f, i, f.name(), "jpmpi_entry", "JPMPI_EXPORT "));
            c.append(forwarder(f, i, f.pmpiName(), "jpmpi_pentry", "JPMPI_EXPORT "));
            c.append(boot(f, i, f.name(), "jpmpi_entry"));
            c.append(boot(f, i, f.pmpiName(), "jpmpi_pentry"));
            c.append(routes(f, i));
        }
        c.append('\n');
        for (int i = 0; i < functions.size(); i++) {
            c.append("static void jpmpi_missing_").append(functions.get(i).name()).append("(void)\n{\n")
                    .append("    jpmpi_core_missing(").append(i).append(");\n}\n");
        }
        c.append('\n').append(table("const jpmpi_fn jpmpi_enter_app", "jpmpi_enter_app_"))
                .append(table("const jpmpi_fn jpmpi_enter_lone", "jpmpi_enter_lone_",
                        slot -> lone(functions.get(slot), slot) ? null : "a guard takes it for its equivalent"))
                .append(table("const jpmpi_fn jpmpi_enter_pmpi", "jpmpi_enter_pmpi_"))
                .append(table("const jpmpi_fn jpmpi_enter_fort", "jpmpi_enter_fort_"))
                .append(table("const jpmpi_fn jpmpi_guard", "jpmpi_guard_"))
                .append(table("const jpmpi_fn jpmpi_java_enter", "jpmpi_java_enter_"))
                .append(table("const jpmpi_fn jpmpi_java_below", "jpmpi_java_below_"));
        c.append("const jpmpi_fn jpmpi_missing[JPMPI_NSLOTS] = {\n");
        for (MpiFunction f : functions) {
            c.append("    (jpmpi_fn)jpmpi_missing_").append(f.name()).append(",\n");
        }
        return c.append("};\n").toString();
    }

    /** MPI_Init and MPI_Init_thread count as one function for the guard: either may forward the other. */
    private int equivalent(MpiFunction f, int slot) {
        String other = switch (f.name()) {
            case "MPI_Init" -> "MPI_Init_thread";
            case "MPI_Init_thread" -> "MPI_Init";
            default -> null;
        };
        int at = other == null ? -1 : slotNames().indexOf(other);
        return at < 0 ? slot : at;
    }

    /** A lone entry for slot: every function but MPI_Init and MPI_Init_thread, which a guard takes for each other. */
    private boolean lone(MpiFunction f, int slot) {
        return equivalent(f, slot) == slot;
    }

    /** Integer arguments the x86-64 calling convention passes in registers; the rest go on the stack. */
    static final int REGISTER_ARGUMENTS = 6;

    /** The slot's three entries, its guard, and its java-enter and java-below (the macros of jpmpi_core.h). */
    private String routes(MpiFunction f, int slot) {
        String ret = f.returnType(impl);
        String type = fnType(f);
        String args = "(" + arguments(f) + ")";
        StringBuilder r = new StringBuilder();
        // name, first level, when to ask whether the caller is the MPI library itself, the call site
        String ra = "__builtin_return_address(0)";
        // The application's MPI_X: a hot path that keeps nothing across the level's call but its
        // return value, and a cold one for a call that arrives while another is on its way down
        // (which asks whether the library makes it, from the return address it is handed).
        String slow = "jpmpi_enter_app_slow_" + f.name();
        boolean stacked = f.parameters().size() > REGISTER_ARGUMENTS;
        if (stacked) {
            // Arguments on the stack: the hot part in assembly where there is one (jpmpi_core.h).
            String call = "jpmpi_enter_app_call_" + f.name();
            String params = parameters(f, impl, true);
            // (slow and call: hidden, not static, for the assembly to name them; the entry: defined there)
            r.append("#ifdef JPMPI_ENTER_APP_STACK\n")
                    .append("JPMPI_HIDDEN ").append(signature(f, "jpmpi_enter_app_" + f.name(), true)).append(";\n")
                    .append("JPMPI_HIDDEN __attribute__((noinline, cold)) ").append(ret).append(' ').append(slow)
                    .append('(').append(params).append(")\n{\n")
                    .append("    void *jp_ra_ = jpmpi_entry_ra;\n    JPMPI_ENTER(").append(ret).append(", ").append(type)
                    .append(", ").append(slot).append(", 0, jp_saved_ != 0, jp_ra_, jp_ra_, ").append(args).append(");\n}\n")
                    .append("JPMPI_HIDDEN __attribute__((noinline)) ").append(ret).append(' ').append(call)
                    .append('(').append(params).append(")\n{\n")
                    .append("    JPMPI_ENTER_APP_CALL(").append(ret).append(", ").append(type).append(", ").append(slot)
                    .append(", ").append(args).append(");\n}\n")
                    .append("JPMPI_ENTER_APP_ASM(jpmpi_enter_app_").append(f.name()).append(", ").append(slot).append(", ")
                    .append(call).append(", ").append(slow).append(");\n")
                    .append("#else\n");
        }
        String slowParams = f.parameters().isEmpty() ? "void *jp_ra_" : "void *jp_ra_, " + parameters(f, impl, true);
        r.append("static __attribute__((noinline, cold)) ").append(ret).append(' ').append(slow).append('(')
                .append(slowParams).append(")\n{\n    JPMPI_ENTER(").append(ret).append(", ").append(type).append(", ")
                .append(slot).append(", 0, jp_saved_ != 0, jp_ra_, jp_ra_, ").append(args).append(");\n}\n");
        String slowArgs = f.parameters().isEmpty() ? "(" + ra + ")" : "(" + ra + ", " + arguments(f) + ")";
        r.append("static JPMPI_HOT_ALIGN ").append(signature(f, "jpmpi_enter_app_" + f.name(), true))
                .append("\n{\n    JPMPI_ENTER_APP(").append(ret).append(", ").append(type).append(", ").append(slot)
                .append(", ").append(slow).append(", ").append(args).append(", ").append(slowArgs).append(");\n}\n");
        if (stacked) {
            r.append("#endif\n");
        }
        // Where one C level alone defines X: the caller word and a jump to it (jpmpi_core.h, JPMPI_ENTER_LONE;
        // arguments on the stack: JPMPI_ENTER_LONE_ASM where there is one).
        if (lone(f, slot)) {
            String lone = "jpmpi_enter_lone_" + f.name();
            if (stacked) {
                r.append("#ifdef JPMPI_ENTER_APP_STACK\n")
                        .append("JPMPI_HIDDEN ").append(signature(f, lone, true)).append(";\n")
                        .append("JPMPI_ENTER_LONE_ASM(").append(lone).append(", ").append(slot)
                        .append(", jpmpi_enter_app_").append(f.name()).append(");\n")
                        .append("#else\n");
            }
            r.append("static JPMPI_HOT_ALIGN ").append(signature(f, lone, true))
                    .append("\n{\n    JPMPI_ENTER_LONE(").append(type).append(", ").append(slot).append(", jpmpi_enter_app_")
                    .append(f.name()).append(", ").append(args).append(");\n}\n");
            if (stacked) {
                r.append("#endif\n");
            }
        }
        String[][] entries = {{"pmpi", "1", "1", ra},
                {"fort", "jpmpi_fort_pos", "0", "jpmpi_fort_site(" + ra + ", __builtin_dwarf_cfa())"}};
        for (String[] e : entries) {
            r.append("static ").append(signature(f, "jpmpi_enter_" + e[0] + "_" + f.name(), true))
                    .append("\n{\n    JPMPI_ENTER(").append(ret).append(", ").append(type).append(", ").append(slot)
                    .append(", ").append(e[1]).append(", ").append(e[2]).append(", ").append(ra).append(", ").append(e[3])
                    .append(", ").append(args).append(");\n}\n");
        }
        r.append("static ").append(signature(f, "jpmpi_guard_" + f.name(), true))
                .append("\n{\n    JPMPI_GUARD(").append(ret).append(", ").append(type).append(", ").append(slot)
                .append(", ").append(equivalent(f, slot)).append(", ").append(args).append(");\n}\n");
        r.append("static ").append(signature(f, "jpmpi_java_enter_" + f.name(), true))
                .append("\n{\n    JPMPI_JAVA_ENTER(").append(ret).append(", ").append(type).append(", ").append(slot)
                .append(", ").append(args).append(");\n}\n");
        r.append("static ").append(signature(f, "jpmpi_java_below_" + f.name(), true))
                .append("\n{\n    JPMPI_JAVA_BELOW(").append(ret).append(", ").append(type).append(", ").append(slot)
                .append(", ").append(equivalent(f, slot)).append(", ").append(args).append(");\n}\n");
        return r.toString();
    }



    private List<MpiFunction> dispatched() {
        return functions.stream().filter(f -> !f.name().equals(PCONTROL)).toList();
    }

    private String metadata() {
        List<String> fortran = new ArrayList<>();
        for (String lib : implementation.fortranLibraries()) {
            // The recorded file is versioned (libmpi_mpifh.so.40.30.0); match on the stable prefix.
            int so = lib.indexOf(".so");
            fortran.add("\"" + (so > 0 ? lib.substring(0, so + 3) : lib) + "\"");
        }
        fortran.add("NULL");
        StringBuilder m = new StringBuilder();
        m.append("const char jpmpi_impl_id[] = \"").append(impl).append("\";\n")
                .append("const char jpmpi_impl_name[] = \"").append(implementation.name()).append("\";\n")
                .append("const char jpmpi_impl_version[] = \"").append(implementation.version()).append("\";\n")
                .append("const char *const jpmpi_fortran_libraries[] = {")
                .append(String.join(", ", fortran)).append("};\n")
                .append("const char *const jpmpi_slot_names[JPMPI_NSLOTS] = {\n");
        for (MpiFunction f : functions) {
            m.append("    \"").append(f.name()).append("\",\n");
        }
        return m.append("};\n").toString();
    }

    /** A slot table, {@code declaration[JPMPI_NSLOTS]}, of the functions {@code prefix + name}. */
    private String table(String declaration, String prefix) {
        return table(declaration, prefix, slot -> null);
    }

    /** A table of the slots' `prefix` functions; NULL with its reason where `without` gives one (and for MPI_Pcontrol). */
    private String table(String declaration, String prefix, IntFunction<String> without) {
        StringBuilder t = new StringBuilder(declaration).append("[JPMPI_NSLOTS] = {\n");
        for (int i = 0; i < functions.size(); i++) {
            MpiFunction f = functions.get(i);
            String why = f.name().equals(PCONTROL) ? "delivered by the core" : without.apply(i);
            if (why != null) {
                t.append("    NULL, /* ").append(f.name()).append(": ").append(why).append(" */\n");
            } else {
                t.append("    (jpmpi_fn)").append(prefix).append(f.name()).append(",\n");
            }
        }
        return t.append("};\n").toString();
    }

    private String forwarder(MpiFunction f, int slot, String name, String table, String linkage) {
        return linkage + signature(f, name, true) + "\n{\n    return ((" + fnType(f) + ")" + table + "[" + slot
                + "])(" + arguments(f) + ");\n}\n";
    }

    /**
     * The first call of the process (or a call of a function the MPI library lacks): the core
     * boots, then says where this call goes. The exports jump here, so the return address is
     * still the caller's, which tells the core whether the call came from the Fortran layer.
     */
    private String boot(MpiFunction f, int slot, String name, String table) {
        String self = "jpmpi_boot_" + name;
        int pmpi = table.equals("jpmpi_pentry") ? 1 : 0;
        return "__attribute__((noinline)) static " + signature(f, self, true) + "\n{\n"
                + "    jpmpi_fn target = jpmpi_core_first(" + slot + ", " + pmpi + ", __builtin_return_address(0));\n"
                + "    return ((" + fnType(f) + ")target)(" + arguments(f) + ");\n}\n";
    }

    private static String fnType(MpiFunction f) {
        return "jpmpi_" + f.name() + "_t";
    }

    /** {@code ret name(params)}; with or without parameter names. */
    private String signature(MpiFunction f, String name, boolean named) {
        return signature(f, impl, name, named);
    }

    /** {@code ret name(params)} of {@code f} in {@code impl}, parameters named {@code a_<name>} or unnamed. */
    static String signature(MpiFunction f, String impl, String name, boolean named) {
        return f.returnType(impl) + " " + name + "(" + (f.parameters().isEmpty() ? "void" : parameters(f, impl, named)) + ")";
    }

    /** The parameter list of {@code f} in {@code impl} (empty for none), named {@code a_<name>} or unnamed. */
    static String parameters(MpiFunction f, String impl, boolean named) {
        return f.parameters().stream()
                .map(p -> named ? CTypes.declare(p.cType(impl), cName(p)) : p.cType(impl))
                .collect(Collectors.joining(", "));
    }

    private String arguments(MpiFunction f) {
        return f.parameters().stream().map(DispatcherEmitter::cName).collect(Collectors.joining(", "));
    }

    /** Parameter names are prefixed so that none can collide with a macro or typedef of mpi.h. */
    static String cName(Parameter p) {
        return "a_" + p.name();
    }
}
