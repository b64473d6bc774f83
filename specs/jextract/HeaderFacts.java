import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jextract.clang.Cursor;
import org.openjdk.jextract.clang.CursorKind;
import org.openjdk.jextract.clang.Diagnostic;
import org.openjdk.jextract.clang.Index;
import org.openjdk.jextract.clang.LibClang;
import org.openjdk.jextract.clang.TranslationUnit;
import org.openjdk.jextract.clang.Type;

/**
 * Development-time step of specs/regenerate.sh, not part of the build: reads an MPI's headers
 * with clang, through jextract's libclang binding (the parse jextract itself runs), and writes
 * the C facts the spec takes from them as JSON: every MPI_/PMPI_/MPIX_/PMPIX_ function (return
 * type and parameters as clang spells them, parameter names as declared), the MPI_ typedefs
 * (canonical type and size) and the MPI_Status layout. SpecTool reads the file.
 *
 * <pre>java ...jextract module... HeaderFacts.java OUT.json HEADER[,HEADER] CLANG_ARG...</pre>
 */
public final class HeaderFacts {
    private HeaderFacts() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: HeaderFacts OUT.json mpi.h[,mpi-ext.h] [clang arguments: -I...]");
            System.exit(2);
        }
        Path out = Path.of(args[0]);
        StringBuilder source = new StringBuilder();
        for (String h : args[1].split(",")) {
            source.append("#include <").append(h).append(">\n");
        }
        String[] clangArgs = Arrays.copyOfRange(args, 2, args.length);
        Map<String, String> functions = new TreeMap<>();
        Map<String, String> typedefs = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        String[] status = {null};
        try (Index index = LibClang.createIndex(false);
             TranslationUnit tu = index.parse("jpmpi-headers.c", source.toString(), d -> {
                 if (d.severity() >= Diagnostic.CXDiagnostic_Error) {
                     problems.add(d.toString());
                 }
             }, false, clangArgs)) {
            tu.getCursor().forEach(c -> {
                String name = c.spelling();
                if (c.kind() == CursorKind.FunctionDecl && name.matches("P?MPIX?_\\w+")) {
                    String f = function(c);
                    String prev = functions.putIfAbsent(name, f);
                    if (prev != null && !prev.equals(f)) {
                        problems.add(name + " is declared twice, differently: " + prev + " / " + f);
                    }
                } else if (c.kind() == CursorKind.TypedefDecl && name.matches("MPIX?_\\w+")) {
                    Type canonical = c.type().canonicalType();
                    typedefs.put(name, "{\"canonical\": " + quote(canonical.spelling()) + ", \"size\": "
                            + canonical.size() + "}");
                    if (name.equals("MPI_Status")) {
                        status[0] = status(canonical);
                    }
                }
            });
        }
        if (!problems.isEmpty()) {
            problems.forEach(p -> System.err.println("HeaderFacts: " + p));
            System.exit(1);
        }
        if (status[0] == null) {
            System.err.println("HeaderFacts: no typedef MPI_Status in " + args[1]);
            System.exit(1);
        }
        StringBuilder json = new StringBuilder("{\n  \"functions\": {\n");
        join(json, functions);
        json.append("  },\n  \"typedefs\": {\n");
        join(json, typedefs);
        json.append("  },\n  \"status\": ").append(status[0]).append("\n}\n");
        Files.writeString(out, json, StandardCharsets.UTF_8);
        System.err.printf("HeaderFacts: %s: %d functions, %d typedefs%n", out, functions.size(), typedefs.size());
    }

    /** {"return": "int", "params": [{"type": "const void *", "name": "buf"}, ...]}; "..." for varargs. */
    private static String function(Cursor c) {
        Type t = c.type();
        StringBuilder s = new StringBuilder("{\"return\": ").append(quote(t.resultType().spelling()))
                .append(", \"params\": [");
        for (int i = 0; i < c.numberOfArgs(); i++) {
            Cursor p = c.getArgument(i);
            s.append(i == 0 ? "" : ", ").append("{\"type\": ").append(quote(p.type().spelling()))
                    .append(", \"name\": ").append(p.spelling().isEmpty() ? "null" : quote(p.spelling())).append('}');
        }
        if (t.isVariadic()) {
            s.append(c.numberOfArgs() == 0 ? "" : ", ").append("{\"type\": \"...\", \"name\": null}");
        }
        return s.append("]}").toString();
    }

    /** {"size": 24, "fields": [{"name": "MPI_SOURCE", "type": "int", "offset": 0, "size": 4}, ...]}. */
    private static String status(Type record) {
        StringBuilder s = new StringBuilder("{\"size\": ").append(record.size()).append(", \"fields\": [");
        List<String> fields = new ArrayList<>();
        record.getDeclarationCursor().forEach(f -> {
            if (f.kind() == CursorKind.FieldDecl) {
                fields.add("{\"name\": " + quote(f.spelling()) + ", \"type\": " + quote(f.type().spelling())
                        + ", \"offset\": " + record.getOffsetOf(f.spelling()) / 8 + ", \"size\": " + f.type().size() + "}");
            }
        });
        return s.append(String.join(", ", fields)).append("]}").toString();
    }

    private static void join(StringBuilder json, Map<String, String> entries) {
        int i = 0;
        for (Map.Entry<String, String> e : entries.entrySet()) {
            json.append("    ").append(quote(e.getKey())).append(": ").append(e.getValue())
                    .append(++i < entries.size() ? ",\n" : "\n");
        }
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
