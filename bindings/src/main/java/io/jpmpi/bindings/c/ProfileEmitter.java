package io.jpmpi.bindings.c;

import io.jpmpi.specs.CTypes;
import io.jpmpi.specs.Implementation;
import io.jpmpi.specs.Includes;
import io.jpmpi.specs.MpiFunction;
import io.jpmpi.specs.MpiSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Emits the generated half of the {@code profile} tool's C level (libjpmpi-profile.so) for one MPI
 * implementation: an id per recorded function ({@code jpmpi_profile_ids.h}) and one wrapper per
 * function ({@code jpmpi_profile.c}) that times the call around {@code PMPI_X} and applies the
 * function's byte/matrix semantics: the bodies the profile tool keeps beside its recorder
 * ({@link ProfileSemantics}, profilers/profile/src/main/c/semantics.json), which call the helpers
 * of the hand-written recorder (recorder.h).
 *
 * <p>Recorded: every function of the implementation that returns {@code int}, except the handle
 * conversions; {@link #HAND_WRITTEN} functions are wrapped by the recorder itself.
 */
public final class ProfileEmitter {
    static final String HEADER = "/* generated from specs/mpi-functions.json by io.jpmpi.bindings.c.ProfileEmitter"
            + " - do not edit */\n";
    /** Lifecycle functions the recorder wraps by hand (they start, end and flush the profile). */
    public static final Set<String> HAND_WRITTEN = Set.of("MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Abort",
            "MPI_Pcontrol");

    private final String impl;
    private final Implementation implementation;
    private final List<MpiFunction> recorded;
    private final ProfileSemantics semantics;

    public ProfileEmitter(MpiSpec spec, String impl, ProfileSemantics semantics) {
        this.impl = impl;
        this.semantics = semantics;
        this.implementation = spec.implementations().get(impl);
        if (implementation == null) {
            throw new IllegalArgumentException("the spec has no implementation '" + impl + "'");
        }
        List<MpiFunction> r = new ArrayList<>();
        for (MpiFunction f : spec.functionsOf(impl)) {
            if (records(f)) {
                r.add(f);
            }
        }
        this.recorded = List.copyOf(r);
    }

    private boolean records(MpiFunction f) {
        if (!f.returnType(impl).equals("int") || f.name().matches(".*_(c2f|f2c|c2f08|f082c|f2f08|f082f)$")) {
            return false;
        }
        return !f.isVarargs() || f.name().equals("MPI_Pcontrol");
    }

    /** The names of the recorded functions, in id order. */
    public List<String> functionNames() {
        return recorded.stream().map(MpiFunction::name).toList();
    }

    public Map<String, String> emit() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("jpmpi_profile_ids.h", ids());
        files.put("jpmpi_profile.c", wrappers());
        files.put("jpmpi_settings.h", SettingsHeaderEmitter.emit());
        return files;
    }

    private String ids() {
        StringBuilder h = new StringBuilder(HEADER);
        h.append("/* The functions the profile recorder records for ").append(implementation.name()).append(' ')
                .append(implementation.version()).append(". */\n")
                .append("#ifndef JPMPI_PROFILE_IDS_H\n#define JPMPI_PROFILE_IDS_H\n\n")
                .append("#define JP_NFUNC ").append(recorded.size()).append("\n\nenum jp_function {\n");
        for (int i = 0; i < recorded.size(); i++) {
            h.append("    JP_F_").append(recorded.get(i).name()).append(" = ").append(i).append(",\n");
        }
        return h.append("};\n\n#endif\n").toString();
    }

    private String wrappers() {
        StringBuilder c = new StringBuilder(HEADER);
        c.append("#include \"recorder.h\"\n").append(Includes.EXTENSIONS).append('\n');
        c.append("/* Deprecated functions are recorded like the others. */\n");
        c.append("#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n");
        for (MpiFunction f : recorded) {
            c.append("#undef ").append(f.name()).append("\n#undef ").append(f.pmpiName()).append('\n');
        }
        c.append("\nconst char jp_impl[] = \"").append(impl).append(' ').append(implementation.version())
                .append("\";\n");
        c.append("const char *const jp_names[JP_NFUNC] = {\n");
        for (MpiFunction f : recorded) {
            c.append("    \"").append(f.name()).append("\",\n");
        }
        c.append("};\n");
        List<String> leans = new ArrayList<>();
        List<String> unleans = new ArrayList<>();
        for (MpiFunction f : recorded) {
            if (HAND_WRITTEN.contains(f.name())) {
                continue;
            }
            ProfileSemantics.Semantics s = semantics.of(f);
            StringBuilder args = new StringBuilder();
            for (var p : f.parameters()) {
                args.append(args.isEmpty() ? "" : ", ").append(DispatcherEmitter.cName(p));
            }
            boolean early = s == null || (s.pre().isEmpty() && (s.post().isEmpty() || s.inputs()));
            String when = s == null ? null : s.quickWhen();
            boolean quick = early || when != null;
            int bytes = s != null && s.bytes() ? 1 : 0;
            String body = "{\n    struct jp_call c;\n    jp_begin(&c, JP_F_" + f.name() + ");\n"
                    + (s != null && !s.pre().isEmpty() ? "    " + String.join("\n    ", s.pre()) + "\n" : "")
                    + "    int rc = " + f.pmpiName() + "(" + args + ");\n"
                    + refire(f, args, "    ")
                    + "    jp_stop(&c);\n"
                    + (s != null && !s.post().isEmpty() ? "    " + String.join("\n    ", s.post()) + "\n" : "")
                    + "    jp_end(&c, JP_F_" + f.name() + ", " + bytes + ");\n    return rc;\n}\n";
            if (!quick) {
                c.append('\n').append("JP_EXPORT ").append(DispatcherEmitter.signature(f, impl, f.name(), true))
                        .append('\n').append(body);
                continue;
            }
            // The quick path (recorder.h, jp_quick): an untimed call is counted first, then made, so that
            // nothing but the arguments lives across it; a timed one takes the full wrapper. With a
            // "quick_when" condition, only while it holds, and then without any semantics line.
            c.append('\n').append("JP_TIMED ")
                    .append(DispatcherEmitter.signature(f, impl, "jp_timed_" + f.name(), true)).append('\n')
                    .append(body);
            boolean lines = early && s != null && !s.post().isEmpty();
            if (!lines && bytes == 0 && f.parameters().size() <= KEEP_MAX) {
                lean(c, f, args, when, null);
                leans.add(f.name());
                continue;
            }
            if (early && s != null && s.lean() != null && f.parameters().size() <= KEEP_MAX) {
                lean(c, f, args, when, s.lean());
                leans.add(f.name());
                unleans.add(f.name());
                continue;
            }
            c.append('\n').append("JP_HOT ").append(DispatcherEmitter.signature(f, impl, f.name(), true))
                    .append("\n{\n    struct jp_call c;\n    if (__builtin_expect(")
                    .append(early || when == null ? "" : "(" + when + ") && ").append("jp_quick(&c, JP_F_")
                    .append(f.name()).append("), 1)) {\n");
            if (early && s != null && !s.post().isEmpty()) {
                c.append("        ").append(String.join("\n        ", s.post())).append('\n');
            }
            c.append("        jp_end(&c, JP_F_").append(f.name()).append(", ").append(bytes).append(");\n")
                    .append("        int rc = ").append(f.pmpiName()).append('(').append(args).append(");\n")
                    .append(refire(f, args, "        "))
                    .append("        return rc;\n    }\n    return jp_timed_").append(f.name()).append('(')
                    .append(args).append(");\n}\n");
        }
        c.append("\nvoid (*const jp_recalls[JP_NFUNC])(const uint64_t *args) = {\n");
        for (String name : leans) {
            c.append("    [JP_F_").append(name).append("] = jp_recall_").append(name).append(",\n");
        }
        c.append("};\n\nint (*const jp_unleans[JP_NFUNC])(struct jp_thread *t, const uint64_t *args) = {\n");
        for (String name : unleans) {
            c.append("    [JP_F_").append(name).append("] = jp_unlean_").append(name).append(",\n");
        }
        return c.append("};\n").toString();
    }

    /** recorder.h's JP_KEEP_MAX: the most arguments a lean wrapper keeps. */
    static final int KEEP_MAX = 12;

    /**
     * The lean path (recorder.h, jp_keep): an untimed call with nothing to do after it is counted, keeps
     * its arguments for the fatal-error watch and ends in the library's call (a tail call); the watch
     * makes a failed call again through {@code jp_recall_X}.
     */
    private void lean(StringBuilder c, MpiFunction f, CharSequence args, String when, String counted) {
        c.append("\nstatic void jp_recall_").append(f.name()).append("(const uint64_t *args)\n{\n");
        kept(c, f);
        c.append("    (void)").append(f.pmpiName()).append('(').append(args).append(");\n}\n");
        String check = "(t = jp_lean(JP_F_" + f.name() + ")) != NULL";
        if (counted != null) {
            // a function with bytes: its helper counts the call from the arguments, or declines (sign -1:
            // takes it back, for the fatal-error watch)
            c.append("\nstatic int jp_unlean_").append(f.name()).append("(struct jp_thread *t, const uint64_t *args)\n{\n");
            kept(c, f);
            c.append("    return ").append(leanCall(f, counted, "-1")).append(";\n}\n");
            check = "(t = jp_lean_ok(JP_F_" + f.name() + ")) != NULL && " + leanCall(f, counted, "1");
        }
        c.append('\n').append("JP_HOT ").append(DispatcherEmitter.signature(f, impl, f.name(), true))
                .append("\n{\n    struct jp_thread *t;\n    if (__builtin_expect(")
                .append(when == null ? "" : "(" + when + ") && ").append(check).append(", 1)) {\n");
        int k = 0;
        for (var p : f.parameters()) {
            String v = "jp_k" + k;
            c.append("        ").append(declareAdjusted(p.cType(impl), v)).append(" = ").append(DispatcherEmitter.cName(p))
                    .append(";\n        jp_keep(t, ").append(k++).append(", ").append(v).append(");\n");
        }
        c.append("        t->recall = JP_F_").append(f.name()).append(" + 1;\n")
                .append("        return ").append(f.pmpiName()).append('(').append(args).append(");\n")
                .append("    }\n    return jp_timed_").append(f.name()).append('(').append(args).append(");\n}\n");
    }

    /** The function's arguments as variables of their names, from a lean call's kept words ({@code args}). */
    private void kept(StringBuilder c, MpiFunction f) {
        int k = 0;
        for (var p : f.parameters()) {
            c.append("    ").append(declareAdjusted(p.cType(impl), DispatcherEmitter.cName(p))).append(";\n")
                    .append("    jp_kept(args, ").append(k++).append(", ").append(DispatcherEmitter.cName(p))
                    .append(");\n");
        }
        if (k == 0) {
            c.append("    (void)args;\n");
        }
    }

    /** semantics.json's "lean" call with the thread, the function and the sign before its own arguments. */
    private static String leanCall(MpiFunction f, String counted, String sign) {
        int open = counted.indexOf('(');
        return counted.substring(0, open + 1) + "t, JP_F_" + f.name() + ", " + sign
                + (counted.charAt(open + 1) == ')' ? "" : ", ") + counted.substring(open + 1);
    }

    /**
     * A variable named {@code name} of the type a parameter of type {@code type} has in its function
     * ({@link CTypes#declareAdjusted}); a parameter of function type (MPICH's MPI_T_event_cb_function)
     * is a pointer to it.
     */
    static String declareAdjusted(String type, String name) {
        return CTypes.declareAdjusted(type.matches("MPI_\\w+_function") ? type + " *" : type, name);
    }

    /** After the call: a fatal error the recorder's watch saw makes the same call again, under the library's own handler. */
    private static String refire(MpiFunction f, CharSequence args, String indent) {
        return indent + "if (__builtin_expect(rc != MPI_SUCCESS && jp_refire, 0)) {\n" + indent + "    jp_refire = 0;\n"
                + indent + "    rc = " + f.pmpiName() + "(" + args + ");\n" + indent + "}\n";
    }
}
