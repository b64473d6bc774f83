package io.jpmpi.layering.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * jextract's bindings of one MPI as specs/regenerate.sh commits them (specs/jextract/IMPL/), read
 * as data: the function descriptors, typedef layouts and struct layouts jextract wrote, rebuilt as
 * FFM objects from the canonical C layouts of this platform's linker. They are not compiled: a
 * jextract function class resolves its symbol in the MPI library when first touched, so loading
 * them needs that library (and two MPIs never load into one JVM); the text jextract writes for a
 * descriptor or a layout is regular, and anything else in it is refused by name.
 *
 * @param functions C function name → its descriptor (for a variadic function, the fixed arguments)
 * @param typedefs typedef name → its layout
 * @param structs struct name (or name of a typedef of a struct) → its layout
 */
record JextractBindings(Map<String, FunctionDescriptor> functions, Map<String, MemoryLayout> typedefs,
                        Map<String, StructLayout> structs) {

    private static final Pattern CANONICAL = Pattern.compile(
            "public static final [\\w.]+ (C_\\w+) =\\s*\\(*[\\w.]*\\)*\\s*Linker\\.nativeLinker\\(\\)\\.canonicalLayouts\\(\\)"
                    + "\\.get\\(\"([^\"]+)\"\\)");
    private static final Pattern FUNCTION = Pattern.compile(
            "static class (\\w+) \\{\\s*(?:public|private) static final FunctionDescriptor (?:BASE_)?DESC ="
                    + " FunctionDescriptor\\.(of|ofVoid)\\(([^;]*)\\);");
    private static final Pattern TYPEDEF = Pattern.compile("public static final \\w+ (\\w+) = \\w+\\.(C_\\w+);");
    private static final Pattern STRUCT = Pattern.compile(
            "GroupLayout \\$LAYOUT = MemoryLayout\\.structLayout\\(([^;]*)\\)\\.withName\\(\"(\\w+)\"\\);");
    private static final Pattern FIELD = Pattern.compile("\\w+\\.(C_\\w+)\\.withName\\(\"(\\w+)\"\\)");
    private static final Pattern ALIAS = Pattern.compile("public class (\\w+) extends (\\w+) \\{");
    private static final Pattern PADDING = Pattern.compile("MemoryLayout\\.paddingLayout\\((\\d+)\\)");

    /** The bindings of {@code impl} under {@code dir} (specs/jextract). */
    static JextractBindings read(Path dir, String impl) {
        List<String> sources = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir.resolve(impl))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                sources.add(Files.readString(f));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, MemoryLayout> c = new TreeMap<>();
        for (String s : sources) {
            Matcher m = CANONICAL.matcher(s);
            while (m.find()) {
                c.put(m.group(1), Linker.nativeLinker().canonicalLayouts().get(m.group(2)));
            }
        }
        if (!c.containsKey("C_INT") || !c.containsKey("C_POINTER")) {
            throw new IllegalStateException(dir.resolve(impl) + ": no canonical C layouts (C_INT, C_POINTER) found");
        }
        Map<String, FunctionDescriptor> functions = new TreeMap<>();
        Map<String, MemoryLayout> typedefs = new TreeMap<>();
        Map<String, StructLayout> structs = new TreeMap<>();
        for (String s : sources) {
            Matcher m = FUNCTION.matcher(s);
            while (m.find()) {
                List<MemoryLayout> layouts = new ArrayList<>();
                for (String arg : m.group(3).split(",")) {
                    if (!arg.isBlank()) {
                        layouts.add(canonical(c, arg.trim().replaceFirst("^\\w+\\.", ""), m.group(1)));
                    }
                }
                functions.put(m.group(1), m.group(2).equals("ofVoid")
                        ? FunctionDescriptor.ofVoid(layouts.toArray(MemoryLayout[]::new))
                        : FunctionDescriptor.of(layouts.getFirst(), layouts.subList(1, layouts.size())
                                .toArray(MemoryLayout[]::new)));
            }
            m = TYPEDEF.matcher(s);
            while (m.find()) {
                typedefs.put(m.group(1), canonical(c, m.group(2), m.group(1)));
            }
            m = STRUCT.matcher(s);
            while (m.find()) {
                List<MemoryLayout> members = new ArrayList<>();
                for (String member : m.group(1).split(",")) {
                    Matcher f = FIELD.matcher(member.trim());
                    Matcher p = PADDING.matcher(member.trim());
                    if (f.matches()) {
                        members.add(canonical(c, f.group(1), m.group(2)).withName(f.group(2)));
                    } else if (p.matches()) {
                        members.add(MemoryLayout.paddingLayout(Long.parseLong(p.group(1))));
                    } else {
                        throw new IllegalStateException(m.group(2) + ": struct member '" + member.trim()
                                + "' is neither a named C scalar nor padding; extend JextractBindings");
                    }
                }
                structs.put(m.group(2), MemoryLayout.structLayout(members.toArray(MemoryLayout[]::new)));
            }
        }
        for (String s : sources) { // a typedef of a struct is a class extending the struct's
            Matcher m = ALIAS.matcher(s);
            while (m.find()) {
                if (structs.containsKey(m.group(2))) {
                    structs.put(m.group(1), structs.get(m.group(2)));
                }
            }
        }
        return new JextractBindings(functions, typedefs, structs);
    }

    private static MemoryLayout canonical(Map<String, MemoryLayout> c, String name, String where) {
        MemoryLayout l = c.get(name);
        if (l == null) {
            throw new IllegalStateException(where + ": jextract's layout " + name + " is not one of " + c.keySet());
        }
        return l;
    }
}
