package io.jpmpi.bindings.c;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.specs.MpiSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AroundEmitterTest {
    private static final MpiSpec SPEC = MpiSpec.load();

    @Test
    void everyWrapperIsEnterPmpiExitAndIdsFollowTheNames() {
        for (String impl : SPEC.implementations().keySet()) {
            AroundEmitter e = new AroundEmitter(SPEC, impl, "hwc");
            Map<String, String> files = e.emit();
            String c = files.get("jpmpi_hwc.c");
            String ids = files.get("jpmpi_hwc_ids.h");
            List<String> names = e.functionNames();
            assertTrue(ids.contains("#define HWC_NFUNC " + names.size() + "\n"));
            assertTrue(ids.contains("    HWC_F_" + names.get(3) + " = 3,\n"));
            assertTrue(c.contains("    hwc_frame f = hwc_enter();\n    int rc = PMPI_Send(a_buf, a_count, a_datatype,"
                    + " a_dest, a_tag, a_comm);\n    hwc_exit(f, HWC_F_MPI_Send);\n    return rc;\n"), c);
            assertFalse(names.contains("MPI_Pcontrol"), "varargs are not wrapped");
            assertFalse(names.contains("MPI_Wtime"), "only functions returning int");
            assertFalse(names.contains("MPI_Comm_f2c"), "no handle conversions");
            for (String lifecycle : AroundEmitter.HAND_WRITTEN) {
                assertTrue(names.contains(lifecycle));
                assertFalse(c.contains(" " + lifecycle + "("), lifecycle + " is hand-written");
            }
            assertTrue(c.startsWith("/* generated from specs/mpi-functions.json"));
        }
    }

    @Test
    void badToolPrefixOrImplementationIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new AroundEmitter(SPEC, "openmpi", "Bad-Name"));
        assertThrows(IllegalArgumentException.class, () -> new AroundEmitter(SPEC, "nope", "hwc"));
        assertEquals("jpmpi_settings.h", List.copyOf(new AroundEmitter(SPEC, "mpich", "x").emit().keySet()).get(2));
    }
}
