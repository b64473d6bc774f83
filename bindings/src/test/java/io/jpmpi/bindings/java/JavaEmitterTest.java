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
    }

    @Test
    void anUnknownCTypeIsAnError() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> SIGNATURES.code("struct foo", "x"));
        assertTrue(e.getMessage().contains("mpi-constants.json"), e.getMessage());
    }

    @Test
    void generatedApiHasOneMethodPerFunctionWithNeutralTypes() {
        Map<String, String> files = new JavaEmitter(SPEC, CONSTANTS).emit();
        String base = files.get("io/jpmpi/layering/generated/InterceptorMethods.java");
        assertTrue(base.startsWith("// " + JavaEmitter.HEADER), "generated header");
        assertTrue(base.contains("public int MPI_Send(long buf, int count, long datatype, int dest, int tag, long comm) {\n"
                + "        return pmpi().MPI_Send(buf, count, datatype, dest, tag, comm);"), base.substring(0, 2000));
        assertTrue(!base.contains("MPI_Pcontrol("), "Pcontrol is delivered typed, not as a varargs method");
        String functions = files.get("io/jpmpi/layering/generated/MpiFunctions.java");
        for (int i = 0; i < SPEC.functions().size(); i++) {
            assertTrue(functions.contains("public static final int " + SPEC.functions().get(i).name() + " = " + i + ";"));
        }
        String upcalls = files.get("io/jpmpi/layering/generated/Upcalls.java");
        assertTrue(upcalls.contains("site.afterInit(result)"), "MPI_Init runs afterInit");
        assertTrue(upcalls.contains("site.beforeFinalize()"), "MPI_Finalize runs beforeFinalize");
        String constants = files.get("io/jpmpi/layering/generated/Constants.java");
        assertTrue(constants.contains("public static final long MPI_COMM_WORLD = Abi.handle(\"MPI_COMM_WORLD\");"));
        assertTrue(constants.contains("public static final int MPI_ANY_SOURCE = Abi.integer(\"MPI_ANY_SOURCE\");"));
    }

    @Test
    void deterministic() {
        assertEquals(new JavaEmitter(SPEC, CONSTANTS).emit(), new JavaEmitter(MpiSpec.load(), MpiConstants.load()).emit());
    }
}
