package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.profilers.report.FunctionProfile;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Programs that load their MPI library at run time, which the dispatcher finds at the first MPI
 * call instead of when it is loaded itself (native-stubs/README.md).
 *
 * <p>dlopenmpi.c links no MPI and dlopens it, then looks every function up by name, as a language
 * binding does: exact figures on both MPIs with each level, and nothing on stderr (the profile
 * tool says nothing inside the job unless asked with v).
 *
 * <p>mpi4py_traffic.py through Debian's python3-mpi4py (built for Open MPI; on MPICH the case is a
 * skip that says so): mpi4py initialises with MPI_Init_thread; a pickled send (MPI_Send of the
 * pickle, which the script measures, received with MPI_Mprobe + MPI_Mrecv), numpy Send/Recv of 40
 * bytes, an mprobe + Recv of 40 bytes back, an Allreduce of 24 bytes. Checked under the profile
 * tool's C and Java levels: the program's lines as without jpmpi, the traffic functions' calls and
 * bytes and the matrix exact (mpi4py's own bookkeeping calls, MPI_Initialized and the like, are
 * whatever its version makes).
 */
class RuntimeLoadedMpiIT {
    static final Path SCRIPT = Path.of("../../test-support/src/main/python/mpi4py_traffic.py").toAbsolutePath()
            .normalize();
    static final String PYTHON = "/usr/bin/python3";

    static Expected dlopened() {
        Expected e = new Expected(2).startup().finalizeAll();
        e.send(0, "MPI_Send", 1, 64, 1).io(1, "MPI_Recv", 0, 64);
        for (int r = 0; r < 2; r++) {
            e.io(r, "MPI_Allreduce", 4, 4).msg(r, 1 - r, 4);
        }
        return e;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void aProgramThatDlopensItsMpi(Impl impl, Level level) {
        Result r = ProfileRun.run(impl, level, 2, "dlopenmpi");
        Checks.exactly(r, level, "dlopenmpi", dlopened());
        // and nothing of jpmpi's on the application's streams when all is well (PROFILE.md)
        assertEquals(List.of(), r.err(), r::describe);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void pythonWithMpi4py(Impl impl) throws Exception {
        assumeTrue(impl == Impl.OPENMPI, "Debian's python3-mpi4py is built for Open MPI only");
        assumeTrue(Files.isExecutable(Path.of(PYTHON)) && Files.isRegularFile(SCRIPT), "no " + PYTHON);
        Result plain = MpiRun.on(impl).ranks(2).run(PYTHON, SCRIPT.toString()).assertSuccess();
        Result r = ProfileRun.run(impl, Level.FULL, 2, PYTHON, SCRIPT.toString()).assertSuccess();
        assertEquals(List.of(), r.err(), () -> "nothing on stderr when all is well\n" + r.describe());
        long pickled = r.out().stream().filter(l -> l.startsWith("pickled ")).mapToLong(l -> Long.parseLong(l.substring(8)))
                .findFirst().orElseThrow();
        // the same lines as without jpmpi (the launcher may join two ranks' lines into one, so by content)
        for (String line : List.of("mpi4py rank 0: ok", "mpi4py rank 1: ok", "pickled " + pickled)) {
            assertEquals(1, r.countOut(line), r::describe);
            assertTrue(String.join("", plain.out()).contains(line), plain::describe);
        }
        Profile p = ProfileRun.profile(r);
        Map<String, List<Long>> got = new TreeMap<>();
        for (FunctionProfile f : p.functions()) {
            got.put(f.name(), List.of(f.calls(), f.bytesSent(), f.bytesRecv()));
        }
        Map<String, List<Long>> want = Map.of("MPI_Init_thread", List.of(2L, 0L, 0L),
                "MPI_Send", List.of(3L, pickled + 80, 0L), "MPI_Recv", List.of(1L, 0L, 40L),
                "MPI_Mprobe", List.of(2L, 0L, 0L), "MPI_Mrecv", List.of(2L, 0L, pickled + 40),
                "MPI_Allreduce", List.of(2L, 48L, 48L), "MPI_Finalize", List.of(2L, 0L, 0L));
        want.forEach((fn, figures) -> assertEquals(figures, got.get(fn), () -> fn + " in " + got + "\n" + r.describe()));
        assertEquals(3, p.messages().get(0).get(1), r::describe);
        assertEquals(pickled + 40 + 24, p.bytes().get(0).get(1), r::describe);
        assertEquals(2, p.messages().get(1).get(0), r::describe);
        assertEquals(40 + 24, p.bytes().get(1).get(0), r::describe);
        assertTrue(p.messages().get(0).get(0) == 0 && p.messages().get(1).get(1) == 0, r::describe);
    }
}
