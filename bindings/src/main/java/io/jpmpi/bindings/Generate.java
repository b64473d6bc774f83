package io.jpmpi.bindings;

import io.jpmpi.bindings.c.DispatcherEmitter;
import io.jpmpi.bindings.c.ProfileEmitter;
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
 * <pre>Generate c-profile IMPL|all OUTDIR</pre> (the profile tool's recorder wrappers)
 * <pre>Generate java OUTDIR</pre> (the Java bindings, as sources under OUTDIR)
 */
public final class Generate {
    private Generate() {
    }

    public static void main(String[] args) throws IOException {
        boolean c = args.length == 3 && (args[0].equals("c-dispatcher") || args[0].equals("c-profile"));
        boolean java = args.length == 2 && args[0].equals("java");
        if (!c && !java) {
            System.err.println("usage: Generate c-dispatcher|c-profile <implementation id>|all <output directory>\n"
                    + "       Generate java <source output directory>");
            System.exit(2);
        }
        MpiSpec spec = MpiSpec.load();
        MpiConstants constants = MpiConstants.load();
        if (java) {
            write(new JavaEmitter(spec, constants).emit(), Path.of(args[1]));
            return;
        }
        List<String> impls = args[1].equals("all") ? List.copyOf(spec.implementations().keySet()) : List.of(args[1]);
        for (String impl : impls) {
            Map<String, String> files = args[0].equals("c-profile") ? new ProfileEmitter(spec, impl).emit()
                    : new DispatcherEmitter(spec, constants, impl).emit();
            write(files, args[1].equals("all") ? Path.of(args[2], impl) : Path.of(args[2]));
        }
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
