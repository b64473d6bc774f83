package io.jpmpi.bindings.c;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    /**
     * The application's MPI_X enters through a hot part that calls nothing but the level (JPMPI_ENTER_APP)
     * and hands a call arriving while another is on its way down to a cold part per slot, with the
     * caller's return address ahead of the arguments (functions without parameters included).
     */
    @Test
    void theApplicationsEntryHandsTheRareCaseToAColdPart() {
        DispatcherEmitter e = new DispatcherEmitter(SPEC, MpiConstants.load(), "mpich");
        String c = e.emit().get("jpmpi_dispatch.c");
        int rank = e.slotNames().indexOf("MPI_Comm_rank");
        assertTrue(c.contains("""
                static __attribute__((noinline, cold)) int jpmpi_enter_app_slow_MPI_Comm_rank(void *jp_ra_, \
                MPI_Comm a_comm, int *a_rank)
                {
                    JPMPI_ENTER(int, jpmpi_MPI_Comm_rank_t, %d, 0, jp_saved_ != 0, jp_ra_, jp_ra_, (a_comm, a_rank));
                }
                static JPMPI_HOT_ALIGN int jpmpi_enter_app_MPI_Comm_rank(MPI_Comm a_comm, int *a_rank)
                {
                    JPMPI_ENTER_APP(int, jpmpi_MPI_Comm_rank_t, %d, jpmpi_enter_app_slow_MPI_Comm_rank, (a_comm, a_rank), \
                (__builtin_return_address(0), a_comm, a_rank));
                }
                """.formatted(rank, rank)), "MPI_Comm_rank's application entry");
        int wtime = e.slotNames().indexOf("MPI_Wtime");
        assertTrue(c.contains("double jpmpi_enter_app_slow_MPI_Wtime(void *jp_ra_)\n"));
        assertTrue(c.contains("JPMPI_ENTER_APP(double, jpmpi_MPI_Wtime_t, %d, jpmpi_enter_app_slow_MPI_Wtime, (), "
                .formatted(wtime) + "(__builtin_return_address(0)));"));
        assertTrue(c.contains("JPMPI_ENTER(int, jpmpi_MPI_Comm_rank_t, %d, 1, 1, __builtin_return_address(0), "
                .formatted(rank) + "__builtin_return_address(0), (a_comm, a_rank));"), "the PMPI_X entry asks always");
    }

    /**
     * Where one C level alone defines a function, the application's call takes the slot's lone entry
     * (JPMPI_ENTER_LONE: the caller word and a jump to the level, else the slot's full entry; with
     * arguments on the stack JPMPI_ENTER_LONE_ASM, where there is one, leaves them in place); the table
     * has one per slot but MPI_Pcontrol (the core's) and MPI_Init and MPI_Init_thread, which a guard takes
     * for each other.
     */
    @Test
    void aLoneLevelIsEnteredWithAJump() {
        DispatcherEmitter e = new DispatcherEmitter(SPEC, MpiConstants.load(), "openmpi");
        String c = e.emit().get("jpmpi_dispatch.c");
        int send = e.slotNames().indexOf("MPI_Sendrecv");
        assertTrue(c.contains("""
                static JPMPI_HOT_ALIGN int jpmpi_enter_lone_MPI_Sendrecv(const void *a_sendbuf, int a_sendcount, \
                MPI_Datatype a_sendtype, int a_dest, int a_sendtag, void *a_recvbuf, int a_recvcount, \
                MPI_Datatype a_recvtype, int a_source, int a_recvtag, MPI_Comm a_comm, MPI_Status *a_status)
                {
                    JPMPI_ENTER_LONE(jpmpi_MPI_Sendrecv_t, %d, jpmpi_enter_app_MPI_Sendrecv, (a_sendbuf, a_sendcount, \
                a_sendtype, a_dest, a_sendtag, a_recvbuf, a_recvcount, a_recvtype, a_source, a_recvtag, a_comm, a_status));
                }
                """.formatted(send)), "MPI_Sendrecv's lone entry in C");
        assertTrue(c.contains("#ifdef JPMPI_ENTER_APP_STACK\nJPMPI_HIDDEN int jpmpi_enter_lone_MPI_Sendrecv(")
                && c.contains("\nJPMPI_ENTER_LONE_ASM(jpmpi_enter_lone_MPI_Sendrecv, %d, jpmpi_enter_app_MPI_Sendrecv);\n#else\n"
                        .formatted(send)), "and in assembly where there is one (its stack arguments stay)");
        assertFalse(c.contains("JPMPI_ENTER_LONE_ASM(jpmpi_enter_lone_MPI_Comm_rank,"), "registers only: C");
        String table = c.substring(c.indexOf("const jpmpi_fn jpmpi_enter_lone[JPMPI_NSLOTS] = {\n"));
        table = table.substring(0, table.indexOf("};\n"));
        assertEquals(e.slotNames().size(), table.split("\n").length - 1, "a row per slot");
        assertTrue(table.contains("    (jpmpi_fn)jpmpi_enter_lone_MPI_Comm_rank,\n"));
        assertTrue(table.contains("    NULL, /* MPI_Init: a guard takes it for its equivalent */\n"));
        assertTrue(table.contains("    NULL, /* MPI_Init_thread: a guard takes it for its equivalent */\n"));
        assertTrue(table.contains("    NULL, /* MPI_Pcontrol: delivered by the core */\n"));
        assertFalse(c.contains("jpmpi_enter_lone_MPI_Init("), "no lone entry for MPI_Init");
    }

    /**
     * A function with arguments on the stack (MPI_Sendrecv: 12) enters, where jpmpi_core.h has the
     * assembly hot part, through it: the cold part reads the return address the hot part left, the
     * level is called by a part of its own; elsewhere through JPMPI_ENTER_APP as the others.
     * MPI_Send (6 arguments, all in registers) keeps the C hot part only.
     */
    @Test
    void aFunctionWithStackArgumentsEntersThroughTheAssemblyHotPart() {
        DispatcherEmitter e = new DispatcherEmitter(SPEC, MpiConstants.load(), "openmpi");
        String c = e.emit().get("jpmpi_dispatch.c");
        int slot = e.slotNames().indexOf("MPI_Sendrecv");
        String params = "const void *a_sendbuf, int a_sendcount, MPI_Datatype a_sendtype, int a_dest, int a_sendtag, "
                + "void *a_recvbuf, int a_recvcount, MPI_Datatype a_recvtype, int a_source, int a_recvtag, "
                + "MPI_Comm a_comm, MPI_Status *a_status";
        String args = "(a_sendbuf, a_sendcount, a_sendtype, a_dest, a_sendtag, a_recvbuf, a_recvcount, a_recvtype, "
                + "a_source, a_recvtag, a_comm, a_status)";
        String expected = """
                #ifdef JPMPI_ENTER_APP_STACK
                JPMPI_HIDDEN int jpmpi_enter_app_MPI_Sendrecv(%1$s);
                JPMPI_HIDDEN __attribute__((noinline, cold)) int jpmpi_enter_app_slow_MPI_Sendrecv(%1$s)
                {
                    void *jp_ra_ = jpmpi_entry_ra;
                    JPMPI_ENTER(int, jpmpi_MPI_Sendrecv_t, %2$d, 0, jp_saved_ != 0, jp_ra_, jp_ra_, %3$s);
                }
                JPMPI_HIDDEN __attribute__((noinline)) int jpmpi_enter_app_call_MPI_Sendrecv(%1$s)
                {
                    JPMPI_ENTER_APP_CALL(int, jpmpi_MPI_Sendrecv_t, %2$d, %3$s);
                }
                JPMPI_ENTER_APP_ASM(jpmpi_enter_app_MPI_Sendrecv, %2$d, jpmpi_enter_app_call_MPI_Sendrecv, \
                jpmpi_enter_app_slow_MPI_Sendrecv);
                #else
                static __attribute__((noinline, cold)) int jpmpi_enter_app_slow_MPI_Sendrecv(void *jp_ra_, %1$s)
                """.formatted(params, slot, args);
        assertTrue(c.contains(expected), "MPI_Sendrecv's application entry");
        int end = c.indexOf("#endif\n", c.indexOf(expected));
        assertTrue(c.substring(c.indexOf(expected), end).contains("JPMPI_ENTER_APP(int, jpmpi_MPI_Sendrecv_t, "),
                "the C hot part where there is no assembly one");
        assertFalse(c.contains("JPMPI_ENTER_APP_ASM(jpmpi_enter_app_MPI_Send,"), "MPI_Send has its arguments in registers");
        long stacked = e.slotNames().stream().filter(n -> c.contains("JPMPI_ENTER_APP_ASM(jpmpi_enter_app_" + n + ", "))
                .count();
        // (an application entry and a lone one each)
        assertEquals(c.split("#ifdef JPMPI_ENTER_APP_STACK\n", -1).length - 1, 2 * stacked);
        assertTrue(stacked > 50, "MPI_Recv, MPI_Isend, the v-collectives, ...: " + stacked);
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
