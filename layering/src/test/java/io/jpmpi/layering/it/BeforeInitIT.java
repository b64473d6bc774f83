package io.jpmpi.layering.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.layering.tools.PreInit;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JVM starts at the first MPI call of the process, whatever it is, so a Java level sees the
 * calls allowed before MPI_Init (MPI_Initialized, the MPI_T interface) as well as MPI_Init, and
 * its afterInit runs once, after MPI_Init.
 */
class BeforeInitIT {
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void callsBeforeMpiInitReachTheJavaLevel(Impl impl) {
        Result r = MpiRun.on(impl).ranks(2).java().levels(Jars.of("preinit", PreInit.class)).run("preinit")
                .assertSuccess();
        for (int rank = 0; rank < 2; rank++) {
            assertEquals(1, r.countOut("preinit rank " + rank + ": initialized-before=0 ok"), r::describe);
            assertEquals(1, r.err().stream().filter(("preinit-level rank " + rank + ": MPI_Initialized=1"
                    + " MPI_T_init_thread=1 MPI_T_finalize=1 MPI_Init=1 afterInit=1")::equals).count(), r::describe);
        }
    }
}
