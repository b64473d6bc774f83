package io.jpmpi.specs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The committed file: valid against its schema, canonical, and semantically sane. */
class SpecFileTest {
    static final Path DIR = Path.of(System.getProperty("jpmpi.specs.dir", "."));
    static final ObjectMapper JSON = new ObjectMapper();

    private static JsonSchema schema() throws IOException {
        return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                .getSchema(Files.readString(DIR.resolve("mpi-functions.schema.json")));
    }

    @Test
    void validatesAgainstTheSchema() throws IOException {
        JsonNode doc = JSON.readTree(DIR.resolve("mpi-functions.json").toFile());
        Set<ValidationMessage> errors = schema().validate(doc);
        assertTrue(errors.isEmpty(), () -> "schema violations: " + errors);
    }

    @Test
    void schemaRejectsABrokenEntry() throws IOException {
        ObjectNode doc = (ObjectNode) JSON.readTree(DIR.resolve("mpi-functions.json").toFile());
        ObjectNode first = (ObjectNode) doc.withArray("functions").get(0);
        first.put("category", "gossip");
        ((ObjectNode) first.withArray("parameters").get(0)).remove("c_type");
        Set<ValidationMessage> errors = schema().validate(doc);
        assertTrue(errors.size() >= 2, () -> "expected the schema to catch both faults: " + errors);
    }

    @Test
    void isInCanonicalForm() throws IOException {
        String committed = Files.readString(DIR.resolve("mpi-functions.json"), StandardCharsets.UTF_8);
        assertEquals(committed, SpecJson.write(MpiSpec.load()),
                "mpi-functions.json is not what SpecJson writes for its own model: regenerate it, do not hand-edit");
    }

    @Test
    void everyFunctionIsComplete() {
        MpiSpec spec = MpiSpec.load();
        Map<String, MpiFunction> byName = spec.byName();
        for (MpiFunction f : spec.functions()) {
            if (f.largeCount()) {
                MpiFunction base = byName.get(f.base());
                assertNotNull(base, f.name() + " has no base " + f.base());
                assertEquals(base.category(), f.category(), f.name());
                assertTrue(base.implementations().containsAll(f.implementations()), f.name());
            }
            for (Parameter p : f.parameters()) {
                assertTrue(p.kindSource() != KindSource.NONE, f.name() + "." + p.name() + " has no kind");
            }
        }
    }

    @Test
    void categoriesFollowTheStandardsChapters() {
        Map<String, MpiFunction> f = MpiSpec.load().byName();
        Map<String, Category> expected = Map.ofEntries(
                Map.entry("MPI_Send", Category.P2P_BLOCKING), Map.entry("MPI_Sendrecv", Category.P2P_BLOCKING),
                Map.entry("MPI_Irecv", Category.P2P_NONBLOCKING), Map.entry("MPI_Send_init", Category.P2P_PERSISTENT),
                Map.entry("MPI_Allreduce", Category.COLL_BLOCKING), Map.entry("MPI_Ialltoallw", Category.COLL_NONBLOCKING),
                Map.entry("MPI_Bcast_init", Category.COLL_PERSISTENT), Map.entry("MPI_Put", Category.ONE_SIDED),
                Map.entry("MPI_Win_fence", Category.ONE_SIDED), Map.entry("MPI_File_write_all", Category.IO),
                Map.entry("MPI_Comm_split", Category.COMMUNICATOR), Map.entry("MPI_Group_incl", Category.GROUP),
                Map.entry("MPI_Type_commit", Category.DATATYPE), Map.entry("MPI_Waitall", Category.REQUEST_COMPLETION),
                Map.entry("MPI_Info_set", Category.INFO), Map.entry("MPI_Comm_set_errhandler", Category.ERROR),
                Map.entry("MPI_Comm_get_attr", Category.ATTRIBUTE), Map.entry("MPI_Cart_create", Category.TOPOLOGY),
                Map.entry("MPI_T_pvar_read", Category.TOOLS), Map.entry("MPI_Init_thread", Category.INIT_FINALIZE),
                Map.entry("MPI_Session_init", Category.SESSION), Map.entry("MPI_Wtime", Category.OTHER),
                Map.entry("MPI_Comm_c2f", Category.OTHER), Map.entry("MPI_Send_c", Category.P2P_BLOCKING));
        expected.forEach((name, cat) -> assertEquals(cat, f.get(name).category(), name));
    }

    @Test
    void forumFactsAreJoined() {
        Map<String, MpiFunction> f = MpiSpec.load().byName();
        Parameter recvcounts = f.get("MPI_Gatherv").parameters().get(4);
        assertEquals("recvcounts", recvcounts.name());
        assertTrue(recvcounts.rootOnly());
        assertEquals(Direction.IN, recvcounts.direction());
        assertEquals("MPI_Count", f.get("MPI_Send_c").parameters().get(1).cType("mpich"));
        assertEquals("int", f.get("MPI_Send").parameters().get(1).cType("openmpi"));
        assertEquals("double", f.get("MPI_Wtime").returnType("openmpi"));
        assertTrue(f.get("MPI_Pcontrol").isVarargs());
        assertEquals("n, 3", f.get("MPI_Group_range_incl").parameters().get(2).length());
    }

    @Test
    void theModelRefusesInconsistentInput() {
        Parameter p = new Parameter("x", null, KindSource.NONE, null, null, false, false, Map.of("a", "int"));
        Implementation a = new Implementation("a", "A", "1", "4.0", "cc", java.util.List.of());
        MpiFunction f = new MpiFunction("MPI_X", Category.OTHER, false, null, null, null, Map.of("a", "int"),
                java.util.List.of("a", "b"), java.util.List.of(p), Map.of());
        assertThrows(IllegalArgumentException.class,
                () -> new MpiSpec(MpiSpec.SCHEMA_VERSION, Map.of("a", a), java.util.List.of(f)));
    }
}
