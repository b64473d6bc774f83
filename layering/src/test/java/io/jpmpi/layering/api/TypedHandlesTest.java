package io.jpmpi.layering.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.MPI_Datatype;
import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Handles are typed in the interceptor API: a tool's source is compiled here against the API as
 * built (javax.tools, the module's own classes) and a swapped datatype and communicator is a
 * compile error that names both types, whether in a call, in an override's signature or in a
 * constant; the same tool with the handles in their places compiles. And the records behave as
 * handles: equal values are equal, their text is the C type and the value.
 */
class TypedHandlesTest {
    @TempDir
    Path out;

    private static final String TOOL = """
            package t;

            import io.jpmpi.layering.Interceptor;
            import io.jpmpi.layering.generated.Constants;
            import io.jpmpi.layering.generated.MPI_Comm;
            import io.jpmpi.layering.generated.MPI_Datatype;

            public final class Tool extends Interceptor {
                @Override
                public int MPI_Send(long buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
                    // BODY
                }
            }
            """;

    /** The diagnostics of compiling class t.Tool from {@code source}; empty when it compiles. */
    private List<String> compile(String source) throws IOException, URISyntaxException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            Path api = Path.of(Interceptor.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            files.setLocationFromPaths(StandardLocation.CLASS_PATH, List.of(api));
            files.setLocationFromPaths(StandardLocation.CLASS_OUTPUT, List.of(Files.createDirectories(out)));
            JavaFileObject unit = new SimpleJavaFileObject(URI.create("string:///t/Tool.java"), JavaFileObject.Kind.SOURCE) {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return source;
                }
            };
            StringWriter ignored = new StringWriter();
            javac.getTask(ignored, files, diagnostics, List.of("-Xlint:all", "-proc:none"), null, List.of(unit)).call();
        }
        return diagnostics.getDiagnostics().stream().filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                .map(d -> "line " + d.getLineNumber() + ": " + d.getMessage(Locale.ROOT)).collect(Collectors.toList());
    }

    @Test
    void handlesInTheirPlacesCompile() throws Exception {
        assertEquals(List.of(), compile(TOOL.replace("// BODY", "return pmpi().MPI_Send(buf, count, datatype, dest, tag, comm);")));
    }

    @Test
    void aSwappedDatatypeAndCommunicatorInACallDoesNotCompile() throws Exception {
        List<String> errors = compile(TOOL.replace("// BODY", "return pmpi().MPI_Send(buf, count, comm, dest, tag, datatype);"));
        assertEquals(1, errors.size(), errors::toString);
        assertTrue(errors.get(0).startsWith("line 11: "), errors::toString);
        assertTrue(errors.get(0).contains("io.jpmpi.layering.generated.MPI_Comm cannot be converted to"
                + " io.jpmpi.layering.generated.MPI_Datatype"), errors::toString);
    }

    @Test
    void anOverrideWithSwappedHandleTypesDoesNotCompile() throws Exception {
        List<String> errors = compile(TOOL.replace("MPI_Datatype datatype, int dest, int tag, MPI_Comm comm",
                "MPI_Comm datatype, int dest, int tag, MPI_Datatype comm").replace("// BODY", "return 0;"));
        assertEquals(1, errors.size(), errors::toString);
        assertTrue(errors.get(0).startsWith("line 9: method does not override or implement a method from a supertype"),
                errors::toString);
    }

    @Test
    void aPredefinedHandleHasItsType() throws Exception {
        assertEquals(List.of(), compile(TOOL.replace("// BODY",
                "return pmpi().MPI_Send(buf, count, Constants.MPI_INT, dest, tag, Constants.MPI_COMM_WORLD);")));
        List<String> errors = compile(TOOL.replace("// BODY",
                "return pmpi().MPI_Send(buf, count, Constants.MPI_COMM_WORLD, dest, tag, comm);"));
        assertEquals(1, errors.size(), errors::toString);
        assertTrue(errors.get(0).contains("MPI_Comm cannot be converted to io.jpmpi.layering.generated.MPI_Datatype"),
                errors::toString);
        errors = compile(TOOL.replace("// BODY", "long c = Constants.MPI_COMM_WORLD;\n        return c == 0 ? 1 : 0;"));
        assertEquals(1, errors.size(), errors::toString);
        assertTrue(errors.get(0).contains("io.jpmpi.layering.generated.MPI_Comm cannot be converted to long"),
                errors::toString);
    }

    @Test
    void recordsAreEqualByHandleAndPrintTheirTypeAndValue() {
        assertEquals(new MPI_Comm(0x44000000L), new MPI_Comm(0x44000000L));
        assertEquals(new MPI_Comm(7).hashCode(), new MPI_Comm(7).hashCode());
        assertNotEquals(new MPI_Comm(7), new MPI_Comm(8));
        assertNotEquals(new MPI_Comm(7), (Object) new MPI_Datatype(7)); // one value, two kinds of object
        assertEquals("MPI_Comm(0x7f3a12345678)", new MPI_Comm(0x7f3a12345678L).toString()); // Open MPI: a pointer
        assertEquals("MPI_Datatype(0x8c000101)", new MPI_Datatype((int) 0x8c000101L).toString()); // MPICH: an int
    }
}
