package io.jpmpi.specs.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.specs.Category;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HeaderParserTest {
    @Test
    void readsPrototypesThroughAttributesArraysAndVarargs() {
        String h = """
                typedef struct ompi_communicator_t *MPI_Comm;
                typedef int (MPI_Comm_copy_attr_function)(MPI_Comm, int, void *);
                __attribute__((visibility("default"))) int MPI_Send(const void *buf, int count,
                    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) __attribute__((nonnull(1)));
                static inline int helper(int x) { return x; }
                extern int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
                int MPI_Pcontrol(const int level, ...) ;
                double MPI_Wtime(void);
                int MPI_Unnamed(MPI_Comm, int *);
                int QMPI_Send(int context);
                """;
        Map<String, HeaderParser.Prototype> p = HeaderParser.parse(h);
        assertEquals(List.of("MPI_Group_range_incl", "MPI_Pcontrol", "MPI_Send", "MPI_Unnamed", "MPI_Wtime"),
                List.copyOf(p.keySet()));
        assertEquals(List.of(new HeaderParser.CParam("const void *", "buf"), new HeaderParser.CParam("int", "count"),
                new HeaderParser.CParam("MPI_Datatype", "datatype"), new HeaderParser.CParam("int", "dest"),
                new HeaderParser.CParam("int", "tag"), new HeaderParser.CParam("MPI_Comm", "comm")),
                p.get("MPI_Send").params());
        assertEquals("int [][3]", p.get("MPI_Group_range_incl").params().get(2).type());
        assertEquals("...", p.get("MPI_Pcontrol").params().get(1).type());
        assertEquals("const int", p.get("MPI_Pcontrol").params().get(0).type());
        assertEquals("double", p.get("MPI_Wtime").returnType());
        assertTrue(p.get("MPI_Wtime").params().isEmpty());
        assertEquals(new HeaderParser.CParam("MPI_Comm", null), p.get("MPI_Unnamed").params().get(0));
        assertEquals(new HeaderParser.CParam("int *", null), p.get("MPI_Unnamed").params().get(1));
    }

    @Test
    void refusesRawFunctionPointerParameters() {
        assertThrows(IllegalStateException.class, () -> HeaderParser.parse("int MPI_X(int (*fn)(int));"));
    }

    @Test
    void refusesConflictingRedeclarations() {
        assertThrows(IllegalStateException.class, () -> HeaderParser.parse("int MPI_X(int a); int MPI_X(long a);"));
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
