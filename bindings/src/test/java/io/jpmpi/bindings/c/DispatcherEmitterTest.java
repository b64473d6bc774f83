package io.jpmpi.bindings.c;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.specs.MpiConstants;
import io.jpmpi.specs.MpiFunction;
import io.jpmpi.specs.MpiSpec;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class DispatcherEmitterTest {
    static final MpiSpec SPEC = MpiSpec.load();

    @Test
    void slotNIsTheNthFunctionOfTheSpec() {
        for (String impl : SPEC.implementations().keySet()) {
            DispatcherEmitter e = new DispatcherEmitter(SPEC, MpiConstants.load(), impl);
            String header = e.emit().get("jpmpi_slots.h");
            List<String> expected = SPEC.functionsOf(impl).stream().map(MpiFunction::name).toList();
            assertEquals(expected, e.slotNames());
            Matcher m = Pattern.compile("JPMPI_SLOT_(\\w+) = (\\d+),").matcher(header);
            int n = 0;
            while (m.find()) {
                assertEquals(expected.get(Integer.parseInt(m.group(2))), m.group(1));
                n++;
            }
            assertEquals(expected.size(), n, impl);
            assertTrue(header.contains("#define JPMPI_NSLOTS " + expected.size() + "\n"), impl);
        }
    }

    @Test
    void eachExportIsOneIndirectTailCall() {
        DispatcherEmitter e = new DispatcherEmitter(SPEC, MpiConstants.load(), "openmpi");
        int slot = e.slotNames().indexOf("MPI_Send");
        String c = e.emit().get("jpmpi_dispatch.c");
        assertTrue(c.startsWith(DispatcherEmitter.HEADER));
        assertTrue(c.contains("""
                JPMPI_EXPORT int MPI_Send(const void *a_buf, int a_count, MPI_Datatype a_datatype, int a_dest, \
                int a_tag, MPI_Comm a_comm)
                {
                    return ((jpmpi_MPI_Send_t)jpmpi_entry[%d])(a_buf, a_count, a_datatype, a_dest, a_tag, a_comm);
                }
                JPMPI_EXPORT int PMPI_Send(const void *a_buf, int a_count, MPI_Datatype a_datatype, int a_dest, \
                int a_tag, MPI_Comm a_comm)
                {
                    return ((jpmpi_MPI_Send_t)jpmpi_pentry[%d])(a_buf, a_count, a_datatype, a_dest, a_tag, a_comm);
                }
                """.formatted(slot, slot)), "MPI_Send forwarders");
        assertTrue(c.contains("double MPI_Wtime(void)\n"));
        assertTrue(c.contains("int MPI_Group_range_incl(MPI_Group a_group, int a_n, int a_ranges[][3], "
                + "MPI_Group *a_newgroup)\n"));
        assertTrue(c.contains("#undef MPI_Comm_f2c\n"), "function-like macros are undefined first");
        assertTrue(!c.contains("JPMPI_EXPORT int MPI_Pcontrol"), "Pcontrol is the core's");
    }

    @Test
    void generationIsDeterministic() {
        for (String impl : SPEC.implementations().keySet()) {
            Map<String, String> a = new DispatcherEmitter(SPEC, MpiConstants.load(), impl).emit();
            Map<String, String> b = new DispatcherEmitter(MpiSpec.load(), MpiConstants.load(), impl).emit();
            assertEquals(a, b, impl);
        }
    }

    @Test
    void unknownImplementationIsAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new DispatcherEmitter(SPEC, MpiConstants.load(), "lam"));
        assertTrue(e.getMessage().contains("lam"));
    }

    /** The dispatcher and the tools' C levels read their variables by the names of the one settings table. */
    @Test
    void settingsHeaderNamesEveryVariableTheCCodeReads() {
        String h = new DispatcherEmitter(SPEC, MpiConstants.load(), "openmpi").emit().get("jpmpi_settings.h");
        for (io.jpmpi.platform.Settings.Setting s : io.jpmpi.platform.Settings.all()) {
            String define = "#define JPMPI_SETTING_" + s.area() + "_" + s.key() + " \"" + s.env() + "\"\n";
            boolean c = s.reader() != io.jpmpi.platform.Settings.Reader.LAUNCHER;
            assertEquals(c, h.contains(define), s::env);
            if (s.alias() != null && c) {
                assertTrue(h.contains("_ALIAS \"" + s.alias() + "\"\n"), s::alias);
            }
        }
    }
}
