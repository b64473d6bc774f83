package io.jpmpi.layering.runtime;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.layering.generated.MpiFunctions;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the Java side assumes of each MPI's ABI, against jextract's bindings of its mpi.h
 * (specs/jextract/IMPL/, written by specs/regenerate.sh; read as data by {@link JextractBindings},
 * so neither jextract nor an MPI is needed here):
 * <ul>
 *   <li>for every function of the spec the MPI declares, the FunctionDescriptor {@link Shapes}
 *       makes of the generated shape (bindings' Signatures) equals jextract's, a C pointer counting
 *       as the 64-bit integer the runtime passes it as (the same register on the C ABIs jpmpi runs
 *       on), and handle sizes taken from jextract's typedefs as the runtime takes them from the
 *       dispatcher's sizeof;</li>
 *   <li>jextract binds exactly those functions (the committed output is the current spec's);</li>
 *   <li>MPI_Status has the int fields {@link io.jpmpi.layering.Status} reads (MPI_SOURCE, MPI_TAG,
 *       MPI_ERROR, at the offsets the dispatcher reports), and the training run's stand-in bridge
 *       ({@link Train}) describes Open MPI's MPI_Status and handles as they are.</li>
 * </ul>
 */
class JextractDescriptorTest {
    private static final Path DIR = Path.of(System.getProperty("jpmpi.jextract.dir", "../specs/jextract"));

    /** A layout as a call passes it: a value's carrier and size; a C pointer as the runtime's 64-bit integer. */
    private static String passed(MemoryLayout l) {
        if (l instanceof AddressLayout) {
            return "long8";
        }
        if (l instanceof ValueLayout v) {
            Class<?> carrier = v.carrier() == MemorySegment.class ? long.class : v.carrier();
            return carrier.getSimpleName() + v.byteSize();
        }
        throw new IllegalArgumentException("not a scalar: " + l);
    }

    private static List<String> passed(FunctionDescriptor d) {
        List<String> out = new ArrayList<>();
        out.add(d.returnLayout().map(JextractDescriptorTest::passed).orElse("void"));
        d.argumentLayouts().forEach(l -> out.add(passed(l)));
        return out;
    }

    /** The differences between the runtime's descriptors of {@code impl} and jextract's, one line each. */
    private static List<String> differences(String impl, JextractBindings jx, ToIntFunction<String> handleSize,
            Set<String> compared) {
        List<String> diffs = new ArrayList<>();
        for (int id = 0; id < MpiFunctions.COUNT; id++) {
            String shape = MpiFunctions.shape(impl, id);
            if (shape == null) {
                continue;
            }
            String name = MpiFunctions.name(id);
            FunctionDescriptor theirs = jx.functions().get(name);
            if (theirs == null) {
                diffs.add(impl + ": " + name + " is not in jextract's bindings (run specs/regenerate.sh)");
                continue;
            }
            List<String> ours = passed(Shapes.descriptor(shape, handleSize));
            if (!ours.equals(passed(theirs))) {
                diffs.add(impl + ": " + name + " shape " + shape + " gives " + ours + ", jextract " + passed(theirs));
            }
            compared.add(name);
        }
        return diffs;
    }

    private static ToIntFunction<String> handleSizes(JextractBindings jx, String impl) {
        return type -> {
            MemoryLayout l = jx.typedefs().get(type);
            assertTrue(l != null, () -> impl + ": jextract has no typedef " + type);
            return (int) l.byteSize();
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"openmpi", "mpich"})
    void everyDescriptorIsJextracts(String impl) {
        JextractBindings jx = JextractBindings.read(DIR, impl);
        Set<String> compared = new TreeSet<>();
        List<String> diffs = differences(impl, jx, handleSizes(jx, impl), compared);
        assertEquals(List.of(), diffs, () -> diffs.size() + " descriptors differ:\n" + String.join("\n", diffs));
        assertEquals(jx.functions().keySet(), compared, impl + ": jextract binds other functions than the spec's");
        assertTrue(compared.size() > 400, () -> impl + ": only " + compared.size() + " functions compared");
        System.out.printf("%s: %d descriptors equal jextract's%n", impl, compared.size());
    }

    /** The comparison sees a wrong shape: a handle read as a pointer, or MPI_Count as an int. */
    @ParameterizedTest
    @ValueSource(strings = {"openmpi", "mpich"})
    void aWrongShapeIsCaught(String impl) {
        JextractBindings jx = JextractBindings.read(DIR, impl);
        FunctionDescriptor send = jx.functions().get("MPI_Send");
        String shape = MpiFunctions.shape(impl, MpiFunctions.MPI_Send);
        assertEquals(passed(send), passed(Shapes.descriptor(shape, handleSizes(jx, impl))));
        // MPI_Send(buf, count, datatype, dest, tag, comm): count (I) read as a 64-bit integer
        String wrongCount = shape.substring(0, 2) + "J" + shape.substring(3);
        assertNotEquals(passed(send), passed(Shapes.descriptor(wrongCount, handleSizes(jx, impl))));
        // every handle 4 bytes wide: wrong for Open MPI's pointers; every handle 8 bytes: wrong for MPICH's ints
        ToIntFunction<String> wrongHandles = t -> handleSizes(jx, impl).applyAsInt(t) == 4 ? 8 : 4;
        assertNotEquals(passed(send), passed(Shapes.descriptor(shape, wrongHandles)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"openmpi", "mpich"})
    void statusHasTheIntFieldsTheJavaSideReads(String impl) {
        JextractBindings jx = JextractBindings.read(DIR, impl);
        StructLayout status = status(jx, impl);
        for (String field : List.of("MPI_SOURCE", "MPI_TAG", "MPI_ERROR")) {
            MemoryLayout l = status.select(groupElement(field));
            assertEquals("int4", passed(l), () -> impl + ": MPI_Status." + field + " is " + l);
        }
        assertTrue(status.byteSize() >= 12, () -> impl + ": MPI_Status is " + status.byteSize() + " bytes");
    }

    @Test
    void theTrainingBridgeDescribesOpenMpi() {
        JextractBindings jx = JextractBindings.read(DIR, "openmpi");
        StructLayout status = status(jx, "openmpi");
        assertEquals(List.of(status.byteSize(), status.byteOffset(groupElement("MPI_SOURCE")),
                status.byteOffset(groupElement("MPI_TAG")), status.byteOffset(groupElement("MPI_ERROR"))),
                List.of(Train.STATUS[0], Train.STATUS[1], Train.STATUS[2], Train.STATUS[3]));
        for (String handle : Train.HANDLES.split(",")) {
            assertEquals(Train.HANDLE_SIZE, jx.typedefs().get(handle).byteSize(), handle);
        }
    }

    /** MPI_Status (in Open MPI a typedef of struct ompi_status_public_t). */
    private static StructLayout status(JextractBindings jx, String impl) {
        StructLayout s = jx.structs().get("MPI_Status");
        assertTrue(s != null, () -> impl + ": jextract's bindings have no MPI_Status; structs " + jx.structs().keySet());
        return s;
    }
}
