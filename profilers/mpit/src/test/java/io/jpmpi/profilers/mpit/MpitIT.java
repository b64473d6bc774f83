package io.jpmpi.profilers.mpit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jpmpi.testsupport.BuiltTools;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The mpit tool on mpitpat (src/test/c/mpitpat.c), a known pattern in four Pcontrol regions: a ring
 * with receives posted first and an alltoall on MPI_COMM_WORLD, an alltoall on a split
 * communicator, sends before receives, communicators duplicated and freed in a loop. Open MPI with
 * its monitoring components gives communicator-bound variables with exact values; MPICH has no
 * performance variables at all.
 */
class MpitIT {
    private static final int RANKS = 4;
    private static final int LOOPS = 50;
    private static final String OUT = "mpit-out";

    private static Path mpitJar() {
        Path p = BuiltTools.profileJar().getParent().getParent().resolve("jpmpi-mpit/jpmpi-mpit.jar");
        assertTrue(Files.isRegularFile(p), () -> "missing " + p + " (mvn process-classes builds it)");
        return p;
    }

    private static Result run(Impl impl, String read, boolean monitoring, String cvars, String... before) {
        assumeTrue(impl.installed(), impl + " is not installed");
        String[] items = new String[before.length + 1];
        System.arraycopy(before, 0, items, 0, before.length);
        items[before.length] = mpitJar().toString();
        MpiRun run = MpiRun.on(impl).ranks(RANKS).env("JPMPI_OUTPUT_DIR", OUT).levels(MpiRun.entry(items)).java();
        if (read != null) {
            run.env("JPMPI_MPIT_READ", read);
        }
        if (cvars != null) {
            run.env("JPMPI_MPIT_CVARS", cvars);
        }
        if (monitoring) {
            run.mca("pml_monitoring_enable", "1");
        }
        Result r = run.run("mpitpat", Integer.toString(LOOPS));
        r.assertSuccess();
        assertEquals(1, r.countOut("mpitpat ok"), r::describe);
        return r;
    }

    private static JsonNode json(Result r) {
        Path f = r.runDir().resolve(OUT).resolve("mpit.json");
        if (!Files.isRegularFile(f)) {
            fail("no " + f + "\n" + r.describe());
        }
        try {
            JsonNode doc = new ObjectMapper().readTree(f.toFile());
            assertEquals("jpmpi-mpit-1", doc.get("schema").asText());
            assertEquals(RANKS, doc.get("perRank").size(), () -> "ranks in " + f);
            return doc;
        } catch (IOException e) {
            return fail(f + ": " + e, e);
        }
    }

    /** The change of {@code variable} on {@code object} charged to {@code function} on one rank, all elements. */
    private static double charged(JsonNode rank, String variable, String object, String function) {
        JsonNode w = watch(rank, variable, object);
        JsonNode d = w.get("functions").get(function);
        double s = 0;
        for (int i = 0; d != null && i < d.size(); i++) {
            s += d.get(i).asDouble();
        }
        return s;
    }

    private static JsonNode watch(JsonNode rank, String variable, String object) {
        for (JsonNode w : rank.get("watches")) {
            if (w.get("name").asText().equals(variable) && w.get("object").asText().equals(object)) {
                return w;
            }
        }
        return fail("rank " + rank.get("rank") + " has no " + variable + " on " + object);
    }

    @Test
    void communicatorBoundMonitoringVariablesGiveTheExactPatternPerCommunicatorAndFunction() {
        Result r = run(Impl.OPENMPI, "calls", true, null);
        JsonNode doc = json(r);
        String world = "MPI_COMM_WORLD";
        String half = "comm 1 (split of MPI_COMM_WORLD)";
        for (JsonNode rank : doc.get("perRank")) {
            String who = "rank " + rank.get("rank");
            // one alltoall of 1 int on world (3 peers), one of 2 ints on the half (1 peer)
            assertEquals(1, charged(rank, "coll_monitoring_a2a_count", world, "MPI_Alltoall"), who);
            assertEquals((RANKS - 1) * 4, charged(rank, "coll_monitoring_a2a_size", world, "MPI_Alltoall"), who);
            assertEquals(1, charged(rank, "coll_monitoring_a2a_count", half, "MPI_Alltoall"), who);
            assertEquals((RANKS / 2 - 1) * 2 * 4, charged(rank, "coll_monitoring_a2a_size", half, "MPI_Alltoall"), who);
            JsonNode onHalf = watch(rank, "coll_monitoring_a2a_size", half).get("functions");
            assertEquals(1, onHalf.size(), () -> who + ": only MPI_Alltoall moved the half's a2a size: " + onHalf);
            assertEquals(watch(rank, "coll_monitoring_a2a_size", half).get("count").asInt(), 1);
            assertEquals(RANKS, watch(rank, "pml_ob1_posted_recvq_length", world).get("count").asInt(), who);
            // the ring's receive was posted before its message could arrive: the posted queue, not
            // the unexpected one; the late receive of region 3 takes its message from the unexpected queue
            assertEquals(1, charged(rank, "pml_ob1_posted_recvq_length", world, "MPI_Irecv"), who);
            assertEquals(0, charged(rank, "pml_ob1_unexpected_msgq_length", world, "MPI_Irecv"), who);
            assertEquals(-1, charged(rank, "pml_ob1_unexpected_msgq_length", world, "MPI_Recv"), who);
            assertEquals(5, rank.get("regions").size(), who);
            long allocated = rank.get("handlesAllocated").asLong();
            assertEquals(allocated, rank.get("handlesFreed").asLong(), () -> who + ": every handle freed");
            assertTrue(allocated >= LOOPS, () -> who + ": a handle per communicator of the loop at least: " + allocated);
        }
        try {
            String text = Files.readString(r.runDir().resolve(OUT).resolve("mpit.txt"));
            assertTrue(text.contains("coll_monitoring_a2a_size on comm 1 (split of MPI_COMM_WORLD)"), text);
        } catch (IOException e) {
            fail(e);
        }
    }

    @Test
    void theDefaultReadsAtRegionBoundariesOnlyAndStacksWithTheProfile() {
        Result r = run(Impl.OPENMPI, null, false, "coll_tuned_alltoall_algorithm=pairwise;no_such_cvar=1",
                BuiltTools.recorder(Impl.OPENMPI).toString(), BuiltTools.profileJar().toString());
        JsonNode doc = json(r);
        assertTrue(doc.get("mode").asText().startsWith("regions"), doc.get("mode").asText());
        for (JsonNode rank : doc.get("perRank")) {
            assertEquals(0, rank.get("calls").size(), "no call is read in the default mode");
            JsonNode posted = watch(rank, "pml_ob1_posted_recvq_length", "MPI_COMM_WORLD");
            assertEquals(0, posted.get("functions").size());
            assertEquals(rank.get("handlesAllocated").asLong(), rank.get("handlesFreed").asLong());
        }
        JsonNode set = doc.get("perRank").get(0).get("cvarsSet");
        assertEquals("coll_tuned_alltoall_algorithm = 2 (was 0)", set.get(0).asText());
        assertTrue(set.get(1).asText().startsWith("no_such_cvar: no such control variable"), set.toString());
        assertTrue(r.stderr().contains("mpit: control variable coll_tuned_alltoall_algorithm = 2 (was 0)"), r::describe);
        try {
            String report = Files.readString(r.runDir().resolve(OUT).resolve("report.txt"));
            assertTrue(report.contains("MPI_T performance variables (jpmpi mpit)"), report);
            assertTrue(Files.readString(r.runDir().resolve(OUT).resolve("report.html")).contains("<h2>MPI_T"));
        } catch (IOException e) {
            fail(e);
        }
    }

    @Test
    void mpichHasNoPerformanceVariablesAndTheToolSaysSoAndSetsControlVariables() {
        Result r = run(Impl.MPICH, "calls", false, "MPIR_CVAR_POLLS_BEFORE_YIELD=500");
        assertEquals(1, r.err().stream().filter(l -> l.contains("has no performance variables")).count(), r::describe);
        JsonNode doc = json(r);
        JsonNode r0 = doc.get("perRank").get(0);
        assertEquals(0, r0.get("pvarsAfterInit").asInt());
        assertTrue(r0.get("cvars").asInt() > 300, r0.get("cvars").toString());
        assertEquals("MPIR_CVAR_POLLS_BEFORE_YIELD = 500 (was 1000)", r0.get("cvarsSet").get(0).asText());
        assertEquals(0, r0.get("watches").size());
        assertFalse(r0.get("calls").size() > 0, "nothing to read: no upcall reads");
        try {
            assertTrue(Files.readString(r.runDir().resolve(OUT).resolve("mpit.txt"))
                    .contains("this MPI has no performance variables"));
        } catch (IOException e) {
            fail(e);
        }
    }
}
