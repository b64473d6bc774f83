package io.jpmpi.specs.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.specs.Category;
import io.jpmpi.specs.MpiConstants;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpecToolTest {
    @TempDir
    Path dir;

    /** A HeaderFacts file as clang spells the types, read into the spec's canonical spelling. */
    @Test
    void readsClangsFactsInTheSpecsSpelling() throws IOException {
        Path f = dir.resolve("x.json");
        Files.writeString(f, """
                {"functions": {
                  "MPI_Group_range_incl": {"return": "int", "params": [{"type": "MPI_Group", "name": "group"},
                    {"type": "int", "name": "n"}, {"type": "int[][3]", "name": "ranges"}, {"type": "MPI_Group *", "name": "newgroup"}]},
                  "MPI_Pcontrol": {"return": "int", "params": [{"type": "const int", "name": "level"}, {"type": "...", "name": null}]},
                  "MPI_Waitall": {"return": "int", "params": [{"type": "int", "name": "count"},
                    {"type": "MPI_Request[]", "name": "array_of_requests"}, {"type": "MPI_Status *", "name": null}]}},
                 "typedefs": {"MPI_Comm": {"canonical": "struct ompi_communicator_t *", "size": 8},
                              "MPI_Count": {"canonical": "long long", "size": 8}},
                 "status": {"size": 24, "fields": [{"name": "MPI_SOURCE", "type": "int", "offset": 0, "size": 4},
                   {"name": "MPI_TAG", "type": "int", "offset": 4, "size": 4}, {"name": "MPI_ERROR", "type": "int", "offset": 8, "size": 4},
                   {"name": "_ucount", "type": "size_t", "offset": 16, "size": 8}]}}
                """);
        ClangHeader h = ClangHeader.read(f);
        assertEquals(List.of("MPI_Group_range_incl", "MPI_Pcontrol", "MPI_Waitall"), List.copyOf(h.prototypes().keySet()));
        assertEquals(List.of(new ClangHeader.CParam("MPI_Group", "group"), new ClangHeader.CParam("int", "n"),
                new ClangHeader.CParam("int [][3]", "ranges"), new ClangHeader.CParam("MPI_Group *", "newgroup")),
                h.prototypes().get("MPI_Group_range_incl").params());
        assertEquals(new ClangHeader.CParam("...", null), h.prototypes().get("MPI_Pcontrol").params().get(1));
        assertEquals(new ClangHeader.CParam("MPI_Request []", "array_of_requests"),
                h.prototypes().get("MPI_Waitall").params().get(1));
        assertEquals(new ClangHeader.CParam("MPI_Status *", null), h.prototypes().get("MPI_Waitall").params().get(2));
        assertEquals(List.of(), h.check("x", MpiConstants.load()));
    }

    /** A typedef of the wrong size, or an MPI_Status without the fields the Java side reads, is named. */
    @Test
    void namesTypesThatBreakTheGeneratorsAssumptions() throws IOException {
        Path f = dir.resolve("bad.json");
        Files.writeString(f, """
                {"functions": {"MPI_Finalize": {"return": "int", "params": []}},
                 "typedefs": {"MPI_Comm": {"canonical": "long", "size": 8}, "MPI_Count": {"canonical": "int", "size": 4}},
                 "status": {"size": 8, "fields": [{"name": "MPI_SOURCE", "type": "int", "offset": 0, "size": 4},
                   {"name": "MPI_TAG", "type": "short", "offset": 4, "size": 2}]}}
                """);
        List<String> problems = ClangHeader.read(f).check("bad", MpiConstants.load());
        assertEquals(4, problems.size(), problems::toString);
        assertTrue(problems.get(0).startsWith("bad: handle type MPI_Comm is long"), problems::toString);
        assertTrue(problems.get(1).startsWith("bad: MPI_Count is int of 4 bytes"), problems::toString);
        assertTrue(problems.get(2).startsWith("bad: MPI_Status has no int field MPI_TAG"), problems::toString);
        assertTrue(problems.get(3).startsWith("bad: MPI_Status has no int field MPI_ERROR"), problems::toString);
    }

    @Test
    void refusesAFileWithoutFunctions() throws IOException {
        Path f = dir.resolve("empty.json");
        Files.writeString(f, "{\"functions\": {}, \"typedefs\": {}, \"status\": {}}");
        assertThrows(IllegalArgumentException.class, () -> ClangHeader.read(f));
    }

    @Test
    void categorizesByChapterAndHonoursOverrides() {
        Categorizer c = new Categorizer(Map.of("MPI_Pcontrol", Category.TOOLS));
        assertEquals(Category.COLL_NONBLOCKING, c.categorize("MPI_Ineighbor_alltoallw"));
        assertEquals(Category.COLL_PERSISTENT, c.categorize("MPI_Neighbor_alltoallw_init"));
        assertEquals(Category.COLL_BLOCKING, c.categorize("MPI_Reduce_local"));
        assertEquals(Category.ERROR, c.categorize("MPI_File_set_errhandler"));
        assertEquals(Category.ATTRIBUTE, c.categorize("MPI_Win_create_keyval"));
        assertEquals(Category.OTHER, c.categorize("MPI_Type_c2f"));
        assertEquals(Category.ERROR, c.categorize("MPIX_Delete_error_code"));
        assertEquals(Category.TOOLS, c.categorize("MPI_Pcontrol"));
    }

    @Test
    void fortranSpellings() {
        assertEquals(List.of("MPI_SEND", "mpi_send", "mpi_send_", "mpi_send__", "PMPI_SEND", "pmpi_send",
                "pmpi_send_", "pmpi_send__"), SpecTool.fortranNames("MPI_Send"));
    }
}
