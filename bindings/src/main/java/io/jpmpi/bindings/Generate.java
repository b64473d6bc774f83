package io.jpmpi.bindings;

import io.jpmpi.bindings.c.AroundEmitter;
import io.jpmpi.bindings.c.DispatcherEmitter;
import io.jpmpi.bindings.c.ProfileEmitter;
import io.jpmpi.bindings.c.ProfileSemantics;
import io.jpmpi.bindings.c.SettingsHeaderEmitter;
import io.jpmpi.bindings.java.JavaEmitter;
import io.jpmpi.specs.MpiConstants;
import io.jpmpi.specs.MpiSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Command-line front end of the generators: reads the spec shipped in jpmpi-specs and writes the
 * files of one target into a directory.
 *
 * <pre>Generate c-dispatcher IMPL|all OUTDIR</pre> ("all" writes OUTDIR/IMPL for each implementation)
 * <pre>Generate c-profile IMPL|all OUTDIR SEMANTICS</pre> (the profile tool's recorder wrappers; SEMANTICS:
 * the tool's semantics.json)
 * <pre>Generate c-around TOOL IMPL|all OUTDIR</pre> (a level doing the same around every call, e.g. hwc)
 * <pre>Generate c-settings IMPL|all OUTDIR</pre> (jpmpi_settings.h alone, for a C level with no generated wrappers)
 * <pre>Generate java OUTDIR</pre> (the Java bindings, as sources under OUTDIR)
 */
public final class Generate {
    private Generate() {
    }

    public static void main(String[] args) throws IOException {
        boolean c = args.length == 3 && (args[0].equals("c-dispatcher") || args[0].equals("c-settings"))
                || args.length == 4 && args[0].equals("c-profile");
        boolean java = args.length == 2 && args[0].equals("java");
        boolean around = args.length == 4 && args[0].equals("c-around");
        if (!c && !java && !around) {
            System.err.println("usage: Generate c-dispatcher|c-settings <implementation id>|all <output directory>\n"
                    + "       Generate c-profile <implementation id>|all <output directory> <semantics.json>\n"
                    + "       Generate c-around <tool> <implementation id>|all <output directory>\n"
                    + "       Generate java <source output directory>");
            System.exit(2);
        }
        MpiSpec spec = MpiSpec.load();
        MpiConstants constants = MpiConstants.load();
        if (java) {
            write(new JavaEmitter(spec, constants).emit(), Path.of(args[1]));
            return;
        }
        if (around) {
            for (String impl : implementations(spec, args[2])) {
                write(new AroundEmitter(spec, impl, args[1]).emit(), out(args[2], args[3], impl));
            }
            return;
        }
        ProfileSemantics semantics = args[0].equals("c-profile") ? ProfileSemantics.load(Path.of(args[3])) : null;
        for (String impl : implementations(spec, args[1])) {
            Map<String, String> files = switch (args[0]) {
                case "c-profile" -> new ProfileEmitter(spec, impl, semantics).emit();
                case "c-settings" -> Map.of("jpmpi_settings.h", SettingsHeaderEmitter.emit());
                default -> new DispatcherEmitter(spec, constants, impl).emit();
            };
            write(files, out(args[1], args[2], impl));
        }
    }

    private static List<String> implementations(MpiSpec spec, String which) {
        return which.equals("all") ? List.copyOf(spec.implementations().keySet()) : List.of(which);
    }

    /** "all" writes each implementation to its own subdirectory. */
    private static Path out(String which, String dir, String impl) {
        return which.equals("all") ? Path.of(dir, impl) : Path.of(dir);
    }

    private static void write(Map<String, String> files, Path out) throws IOException {
        Files.createDirectories(out);
        for (Map.Entry<String, String> f : files.entrySet()) {
            Path target = out.resolve(f.getKey());
            Files.createDirectories(target.getParent());
            // Rewrite only on change, so make does not rebuild what did not change.
            if (!Files.exists(target) || !Files.readString(target).equals(f.getValue())) {
                Files.writeString(target, f.getValue());
            }
        }
    }
}
