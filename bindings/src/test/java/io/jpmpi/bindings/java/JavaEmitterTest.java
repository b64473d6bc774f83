package io.jpmpi.bindings.java;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.specs.MpiConstants;
import io.jpmpi.specs.MpiFunction;
import io.jpmpi.specs.MpiSpec;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Java bindings generator: shapes, neutral types, ids, determinism. */
class JavaEmitterTest {
    static final MpiSpec SPEC = MpiSpec.load();
    static final MpiConstants CONSTANTS = MpiConstants.load();
    static final Signatures SIGNATURES = new Signatures(CONSTANTS);

    private static MpiFunction f(String name) {
        return SPEC.byName().get(name);
    }

    @Test
    void everyFunctionHasAShapeInEveryImplementationThatDeclaresIt() {
        for (MpiFunction fn : SPEC.functions()) {
            String neutral = SIGNATURES.neutral(fn);
            for (String impl : fn.implementations()) {
                String shape = SIGNATURES.shape(fn, impl);
                assertEquals(neutral.length(), shape.length(), fn.name());
            }
            assertTrue(neutral.chars().allMatch(c -> "IJDP".indexOf(c) >= 0), fn.name() + " " + neutral);
        }
    }

    @Test
    void handlesAreLettersOfTheirTypeAndLongInTheNeutralShape() {
        int datatype = CONSTANTS.handleTypes().indexOf("MPI_Datatype");
        int comm = CONSTANTS.handleTypes().indexOf("MPI_Comm");
        String expected = "IPI" + (char) ('a' + datatype) + "II" + (char) ('a' + comm);
        assertEquals(expected, SIGNATURES.shape(f("MPI_Send"), "openmpi"));
        assertEquals(expected, SIGNATURES.shape(f("MPI_Send"), "mpich"));
        assertEquals("IPIJIIJ", SIGNATURES.neutral(f("MPI_Send")));
        assertEquals("D", SIGNATURES.neutral(f("MPI_Wtime")));
        assertEquals("IJJ", SIGNATURES.neutral(f("MPI_Comm_size")).replace('P', 'J'));
        assertEquals(expected, SIGNATURES.api(f("MPI_Send")), "the API keeps each handle's type");
    }

    @Test
    void theApiShapeIsTheNeutralOneWithHandleTypesKept() {
        for (MpiFunction fn : SPEC.functions()) {
            String api = SIGNATURES.api(fn);
            String neutral = SIGNATURES.neutral(fn);
            assertEquals(neutral.length(), api.length(), fn.name());
            for (int i = 0; i < api.length(); i++) {
                char a = api.charAt(i);
                assertEquals(neutral.charAt(i), Character.isLowerCase(a) ? 'J' : a, fn.name() + " " + api);
                if (Character.isLowerCase(a)) { // a handle letter only where every implementation has that type
                    for (String impl : fn.implementations()) {
                        assertEquals(a, SIGNATURES.shape(fn, impl).charAt(i), fn.name() + " in " + impl);
                    }
                }
            }
        }
    }

    @Test
    void anUnknownCTypeIsAnError() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> SIGNATURES.code("struct foo", "x"));
        assertTrue(e.getMessage().contains("mpi-constants.json"), e.getMessage());
    }

    @Test
    void generatedApiHasOneMethodPerFunctionWithTypedHandles() {
        Map<String, String> files = new JavaEmitter(SPEC, CONSTANTS).emit();
        String base = files.get("io/jpmpi/layering/generated/InterceptorMethods.java");
        assertTrue(base.startsWith("// " + JavaEmitter.HEADER), "generated header");
        assertTrue(base.contains("public int MPI_Send(long buf, int count, MPI_Datatype datatype, int dest, int tag,\n"
                + "            MPI_Comm comm) {\n"
                + "        return pmpi().MPI_Send(buf, count, datatype, dest, tag, comm);"), base.substring(0, 2000));
        assertTrue(!base.contains("MPI_Pcontrol("), "Pcontrol is delivered typed, not as a varargs method");
        String functions = files.get("io/jpmpi/layering/generated/MpiFunctions.java");
        for (int i = 0; i < SPEC.functions().size(); i++) {
            assertTrue(functions.contains("public static final int " + SPEC.functions().get(i).name() + " = " + i + ";"));
        }
        String upcalls = files.get("io/jpmpi/layering/generated/Upcalls.java");
        assertTrue(upcalls.contains("site.afterInit(result)"), "MPI_Init runs afterInit");
        assertTrue(upcalls.contains("site.beforeFinalize()"), "MPI_Finalize runs beforeFinalize");
        assertTrue(upcalls.contains("return interceptor.MPI_Send(buf, count, new MPI_Datatype(datatype), dest, tag, new MPI_Comm(comm));"),
                "the upcall makes the records from the neutral values");
        assertTrue(upcalls.contains("return (Integer) site.recover(failure, start, buf, count, datatype, dest, tag, comm);"),
                "a fault passes the neutral values on");
        String mpi = files.get("io/jpmpi/layering/generated/Mpi.java");
        assertTrue(mpi.contains("H_MPI_Send.HANDLE.invokeExact(target, buf, count, datatype.handle(), dest, tag, comm.handle());"),
                "the downcall unwraps them");
        assertTrue(mpi.contains("return new MPI_Comm(result);"), "a returned handle is a record (MPI_Comm_f2c)");
        String record = files.get("io/jpmpi/layering/generated/MPI_Comm.java");
        assertTrue(record.contains("public record MPI_Comm(long handle) {"), record);
        assertEquals(CONSTANTS.handleTypes().size(), files.keySet().stream().filter(k -> k.contains("/MPI_")).count());
        String constants = files.get("io/jpmpi/layering/generated/Constants.java");
        assertTrue(constants.contains("public static final MPI_Comm MPI_COMM_WORLD = new MPI_Comm(Abi.handle(\"MPI_COMM_WORLD\"));"),
                constants.substring(0, 3000));
        assertTrue(constants.contains("public static final int MPI_ANY_SOURCE = Abi.integer(\"MPI_ANY_SOURCE\");"));
    }

    @Test
    void deterministic() {
        assertEquals(new JavaEmitter(SPEC, CONSTANTS).emit(), new JavaEmitter(MpiSpec.load(), MpiConstants.load()).emit());
    }
}
