package io.jpmpi.bindings.c;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.specs.MpiSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProfileEmitterTest {
    static final MpiSpec SPEC = MpiSpec.load();
    /** A small table in the semantics file's form (the profile tool's own file is tested beside it). */
    static final String TABLE = """
            {"semantics": [
              {"functions": ["MPI_Send"], "post": ["jp_send(&c, a_count, a_datatype, a_dest, a_comm);"], "bytes": true,
               "inputs": true},
              {"functions": ["MPI_Recv"], "post": ["jp_recv(&c, a_count, a_datatype);"], "bytes": true},
              {"functions": ["MPI_Ssend"], "post": ["jp_send(&c, a_count, a_datatype, a_dest, a_comm);"], "bytes": true,
               "inputs": true, "lean": "jp_lean_send(a_count, a_datatype, a_dest, a_comm)"},
              {"functions": ["MPI_Sendrecv"], "post": ["jp_send(&c, a_sendcount, a_sendtype, a_dest, a_comm);"],
               "bytes": true, "inputs": true,
               "lean": "jp_lean_sendrecv(a_sendcount, a_sendtype, a_dest, a_comm, a_recvcount, a_recvtype, a_source)"},
              {"functions": ["MPI_Test"], "pre": ["save();"], "post": ["done();"], "bytes": false,
               "quick_when": "!jp_req_live"},
              {"functions": ["MPI_Bcast"], "pre": ["one();", "two();"], "post": ["three();"], "bytes": false}
            ]}
            """;

    static ProfileSemantics table() {
        try {
            return ProfileSemantics.parse("TABLE", TABLE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void recordsEveryIntFunctionOnceExceptHandleConversions() {
        for (String impl : SPEC.implementations().keySet()) {
            ProfileEmitter e = new ProfileEmitter(SPEC, impl, table());
            List<String> names = e.functionNames();
            assertEquals(names.size(), new HashSet<>(names).size());
            assertTrue(names.containsAll(ProfileEmitter.HAND_WRITTEN), impl);
            assertFalse(names.contains("MPI_Wtime"));
            assertFalse(names.contains("MPI_Comm_c2f"));
            String c = e.emit().get("jpmpi_profile.c");
            for (String hand : ProfileEmitter.HAND_WRITTEN) {
                assertFalse(c.contains(" " + hand + "("), hand + " is wrapped by hand, not generated");
            }
            String ids = e.emit().get("jpmpi_profile_ids.h");
            assertTrue(ids.contains("#define JP_NFUNC " + names.size() + "\n"), ids);
        }
    }

    @Test
    void generationIsDeterministic() {
        assertEquals(new ProfileEmitter(SPEC, "openmpi", table()).emit(),
                new ProfileEmitter(SPEC, "openmpi", table()).emit());
    }

    @Test
    void aWrapperRunsItsSemanticsAroundThePmpiCall() {
        String c = new ProfileEmitter(SPEC, "mpich", table()).emit().get("jpmpi_profile.c");
        // (after the call: a fatal error the recorder's watch saw makes the same call again)
        String refire = "    if (__builtin_expect(rc != MPI_SUCCESS && jp_refire, 0)) {\n        jp_refire = 0;\n";
        assertTrue(c.contains("    struct jp_call c;\n    jp_begin(&c, JP_F_MPI_Bcast);\n    one();\n    two();\n"
                + "    int rc = PMPI_Bcast(a_buffer, a_count, a_datatype, a_root, a_comm);\n" + refire
                + "        rc = PMPI_Bcast(a_buffer, a_count, a_datatype, a_root, a_comm);\n    }\n    jp_stop(&c);\n"
                + "    three();\n    jp_end(&c, JP_F_MPI_Bcast, 0);\n"), c);
        // The non-blocking and large-count forms take the blocking one's semantics.
        assertTrue(c.contains("    rc = PMPI_Ibcast(a_buffer, a_count, a_datatype, a_root, a_comm, a_request);\n"
                + "    }\n    jp_stop(&c);\n    three();\n"), c);
        assertTrue(c.contains("    jp_stop(&c);\n    jp_send(&c, a_count, a_datatype, a_dest, a_comm);\n"
                + "    jp_end(&c, JP_F_MPI_Send_c, 1);"), c);
        // Not listed: timed only.
        assertTrue(c.contains("        rc = PMPI_Barrier(a_comm);\n    }\n    jp_stop(&c);\n    jp_end(&c, JP_F_MPI_Barrier, 0);"), c);
    }

    @Test
    void anUntimedCallWhoseFiguresFollowFromItsArgumentsIsCountedBeforeTheCall() {
        String c = new ProfileEmitter(SPEC, "openmpi", table()).emit().get("jpmpi_profile.c");
        String refire = "        if (__builtin_expect(rc != MPI_SUCCESS && jp_refire, 0)) {\n            jp_refire = 0;\n";
        // semantics that read only the arguments ("inputs"): run before the call on the quick path
        assertTrue(c.contains("\n{\n    struct jp_call c;\n    if (__builtin_expect(jp_quick(&c, JP_F_MPI_Send), 1)) {\n"
                + "        jp_send(&c, a_count, a_datatype, a_dest, a_comm);\n        jp_end(&c, JP_F_MPI_Send, 1);\n"
                + "        int rc = PMPI_Send(a_buf, a_count, a_datatype, a_dest, a_tag, a_comm);\n" + refire
                + "            rc = PMPI_Send(a_buf, a_count, a_datatype, a_dest, a_tag, a_comm);\n        }\n"
                + "        return rc;\n    }\n"
                + "    return jp_timed_MPI_Send(a_buf, a_count, a_datatype, a_dest, a_tag, a_comm);\n}\n"), c);
        // the timed calls: the full wrapper, the same as for any other function
        assertTrue(c.contains("\nJP_TIMED int jp_timed_MPI_Send(const void *a_buf, int a_count,"), c);
        // no semantics at all: the lean path, counted, the arguments kept, then the library's call as a
        // tail call; the fatal-error watch makes it again from the kept arguments
        // (the wrappers an untimed call runs start a cache line of their own: recorder.h, JP_HOT; a
        // wrapper timed on every call does not)
        assertTrue(c.contains("JP_HOT int MPI_Barrier(MPI_Comm a_comm)\n{\n    struct jp_thread *t;\n"
                + "    if (__builtin_expect((t = jp_lean(JP_F_MPI_Barrier)) != NULL, 1)) {\n"
                + "        MPI_Comm jp_k0 = a_comm;\n        jp_keep(t, 0, jp_k0);\n"
                + "        t->recall = JP_F_MPI_Barrier + 1;\n        return PMPI_Barrier(a_comm);\n    }\n"
                + "    return jp_timed_MPI_Barrier(a_comm);\n}\n"), c);
        assertTrue(c.contains("static void jp_recall_MPI_Barrier(const uint64_t *args)\n{\n    MPI_Comm a_comm;\n"
                + "    jp_kept(args, 0, a_comm);\n    (void)PMPI_Barrier(a_comm);\n}\n"), c);
        assertTrue(c.contains("    [JP_F_MPI_Barrier] = jp_recall_MPI_Barrier,\n"), c);
        assertFalse(c.contains("jp_recall_MPI_Send("), c);
        // more arguments than the thread keeps (MPI_Rget_accumulate's 13): the framed quick path; as many
        // as it keeps (MPI_Alltoallw's 9), the lean path
        assertTrue(c.contains("    if (__builtin_expect(jp_quick(&c, JP_F_MPI_Rget_accumulate), 1)) {\n"), c);
        assertTrue(c.contains("\nJP_HOT int MPI_Rget_accumulate("), c);
        assertTrue(c.contains("    if (__builtin_expect((t = jp_lean(JP_F_MPI_Alltoallw)) != NULL, 1)) {\n"), c);
        // lines after the call not marked "inputs", or lines before it: the full wrapper only
        assertFalse(c.contains("jp_quick(&c, JP_F_MPI_Recv)"), c);
        assertFalse(c.contains("jp_quick(&c, JP_F_MPI_Bcast)"), c);
        assertTrue(c.contains("JP_EXPORT int MPI_Recv(void *a_buf, int a_count,"), c);
        assertFalse(c.contains("jp_timed_MPI_Recv("), c);
        // "quick_when": the quick path only while the condition holds, and then with no semantics line
        assertTrue(c.contains("    if (__builtin_expect((!jp_req_live) && (t = jp_lean(JP_F_MPI_Test)) != NULL, 1)) {\n"
                + "        MPI_Request *jp_k0 = a_request;\n"), c);
        assertTrue(c.contains("    return jp_timed_MPI_Test(a_request, a_flag, a_status);\n"), c);
        assertTrue(c.contains("    jp_begin(&c, JP_F_MPI_Test);\n    save();\n"), c);
    }

    @Test
    void aFunctionWithBytesAndALeanHelperTakesTheLeanPath() {
        String c = new ProfileEmitter(SPEC, "openmpi", table()).emit().get("jpmpi_profile.c");
        // the helper counts the call from its arguments, or declines before counting anything: then the full wrapper
        assertTrue(c.contains("    if (__builtin_expect((t = jp_lean_ok(JP_F_MPI_Ssend)) != NULL"
                + " && jp_lean_send(t, JP_F_MPI_Ssend, 1, a_count, a_datatype, a_dest, a_comm), 1)) {\n"
                + "        const void *jp_k0 = a_buf;\n        jp_keep(t, 0, jp_k0);\n"), c);
        assertTrue(c.contains("        t->recall = JP_F_MPI_Ssend + 1;\n"
                + "        return PMPI_Ssend(a_buf, a_count, a_datatype, a_dest, a_tag, a_comm);\n    }\n"
                + "    return jp_timed_MPI_Ssend(a_buf, a_count, a_datatype, a_dest, a_tag, a_comm);\n}\n"), c);
        // the fatal-error watch takes such a call back with the same helper, sign -1, from the kept arguments
        assertTrue(c.contains("static int jp_unlean_MPI_Ssend(struct jp_thread *t, const uint64_t *args)\n{\n"
                + "    const void *a_buf;\n    jp_kept(args, 0, a_buf);\n"), c);
        assertTrue(c.contains("    jp_kept(args, 5, a_comm);\n"
                + "    return jp_lean_send(t, JP_F_MPI_Ssend, -1, a_count, a_datatype, a_dest, a_comm);\n}\n"), c);
        assertTrue(c.contains("    [JP_F_MPI_Ssend] = jp_recall_MPI_Ssend,\n"), c);
        assertTrue(c.contains("    [JP_F_MPI_Ssend] = jp_unlean_MPI_Ssend,\n"), c);
        // twelve arguments, six of them on the stack: all kept, and the call still ends in the library's
        assertTrue(c.contains("        MPI_Status *jp_k11 = a_status;\n        jp_keep(t, 11, jp_k11);\n"
                + "        t->recall = JP_F_MPI_Sendrecv + 1;\n        return PMPI_Sendrecv(a_sendbuf,"), c);
        assertTrue(c.contains("    return jp_lean_sendrecv(t, JP_F_MPI_Sendrecv, -1, a_sendcount, a_sendtype, a_dest,"
                + " a_comm, a_recvcount, a_recvtype, a_source);\n}\n"), c);
        // a function without bytes takes calls and lean calls back itself (no helper)
        assertFalse(c.contains("jp_unlean_MPI_Barrier"), c);
        assertFalse(c.contains("jp_unlean_MPI_Send("), c);
    }

    @Test
    void aLeanHelperIsOnlyForAFunctionWithBytesWhoseLinesReadItsArguments() {
        for (String entry : List.of(
                "{\"functions\": [\"MPI_Send\"], \"bytes\": false, \"inputs\": true, \"lean\": \"jp_lean_send(a_count)\"}",
                "{\"functions\": [\"MPI_Send\"], \"bytes\": true, \"lean\": \"jp_lean_send(a_count)\"}",
                "{\"functions\": [\"MPI_Send\"], \"bytes\": true, \"inputs\": true, \"lean\": \"count(a_count)\"}")) {
            IOException e = assertThrows(IOException.class,
                    () -> ProfileSemantics.parse("t.json", "{\"semantics\": [" + entry + "]}"));
            assertTrue(e.getMessage().startsWith("t.json: \"lean\" is a call of a jp_lean_ helper"), e.getMessage());
        }
    }

    @Test
    void aKeptArgumentOfFunctionTypeIsAPointerToIt() {
        assertEquals("MPI_T_event_cb_function *x", ProfileEmitter.declareAdjusted("MPI_T_event_cb_function", "x"));
        assertEquals("int (*x)[3]", ProfileEmitter.declareAdjusted("int [][3]", "x"));
    }

    @Test
    void aFunctionListedTwiceOrAnUnknownKeyIsAnError() {
        IOException twice = assertThrows(IOException.class, () -> ProfileSemantics.parse("t.json",
                "{\"semantics\": [{\"functions\": [\"MPI_Send\"], \"bytes\": true},"
                        + " {\"functions\": [\"MPI_Send\"], \"bytes\": false}]}"));
        assertEquals("t.json: MPI_Send is listed twice", twice.getMessage());
        IOException unknown = assertThrows(IOException.class, () -> ProfileSemantics.parse("t.json",
                "{\"semantics\": [{\"functions\": [\"MPI_Send\"], \"bytes\": true, \"post\": [], \"prost\": []}]}"));
        assertTrue(unknown.getMessage().startsWith("t.json: unknown key \"prost\""), unknown.getMessage());
        IOException inputs = assertThrows(IOException.class, () -> ProfileSemantics.parse("t.json",
                "{\"semantics\": [{\"functions\": [\"MPI_Send\"], \"bytes\": true, \"inputs\": \"yes\"}]}"));
        assertTrue(inputs.getMessage().startsWith("t.json: \"inputs\" is true or false"), inputs.getMessage());
        IOException when = assertThrows(IOException.class, () -> ProfileSemantics.parse("t.json",
                "{\"semantics\": [{\"functions\": [\"MPI_Test\"], \"bytes\": false, \"quick_when\": 1}]}"));
        assertTrue(when.getMessage().startsWith("t.json: \"quick_when\" is a C condition"), when.getMessage());
    }
}
