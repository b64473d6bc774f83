package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jpmpi.testsupport.MpiRun.Impl;
import java.util.List;
import org.junit.jupiter.api.Test;

/** bin/jpmpi mpit list on the installed MPIs: every variable, described, from a one-rank job. */
class MpitListIT {
    private static long lines(Jpmpi.Result r, String prefix) {
        return r.out().lines().filter(l -> l.startsWith(prefix)).count();
    }

    @Test
    void mpichListsItsControlVariablesAndSaysItHasNoPerformanceVariables() {
        assumeTrue(Impl.MPICH.installed(), "MPICH is not installed");
        Jpmpi.Result r = Jpmpi.run(List.of("mpit", "list", "--mpi", "mpich"));
        assertEquals(0, r.exit(), r::describe);
        assertTrue(r.out().contains("MPI_T variables of mpich "), r::describe);
        assertTrue(r.out().contains("this MPI has no performance variables"), r::describe);
        assertEquals(0, lines(r, "pvar "), r::describe);
        assertTrue(lines(r, "cvar ") > 300, r::describe);
        assertTrue(r.out().lines().anyMatch(l -> l.matches(
                "cvar +\\d+ MPIR_CVAR_POLLS_BEFORE_YIELD +all_eq +no_object +MPI_INT +user_basic .*")), r::describe);
    }

    @Test
    void openMpiListsItsPerformanceVariablesWithClassBindTypeAndDatatype() {
        assumeTrue(Impl.OPENMPI.installed(), "Open MPI is not installed");
        Jpmpi.Result r = Jpmpi.run(List.of("mpit", "list", "--mpi", "openmpi", "--", "--mca", "pml_monitoring_enable",
                "1"));
        assertEquals(0, r.exit(), r::describe);
        assertTrue(r.out().lines().anyMatch(l -> l.matches(
                "pvar +\\d+ pml_ob1_unexpected_msgq_length +size +comm +MPI_UNSIGNED +tuner_basic +cont,ro .*")),
                r::describe);
        assertTrue(r.out().lines().anyMatch(l -> l.matches(
                "pvar +\\d+ coll_monitoring_a2a_size +aggregate +comm +MPI_UNSIGNED_LONG_LONG .*")), r::describe);
        assertTrue(lines(r, "cvar ") > 1000, r::describe);
    }
}
