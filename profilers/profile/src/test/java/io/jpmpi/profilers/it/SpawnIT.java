package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jpmpi.profilers.it.ProfileRun.Level;
import io.jpmpi.profilers.profile.Snapshot;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A job that starts another with MPI_Comm_spawn (spawn.c: 2 parent ranks, 2 children): each job
 * keeps its own figures. The parent's are in the output directory, the children's in a directory of
 * their own inside it, spawned-&lt;host&gt;-&lt;pid of the child's rank 0&gt; (PROFILE.md), where they
 * used to replace the parent's profile.json. Exact per job: the parent's rank 0 sends 8 ints to each
 * child over the intercommunicator; each child receives them, and runs one MPI_Allreduce in its own
 * MPI_COMM_WORLD. (A message between jobs has no place in a job's rank-to-rank matrix, whose ranks
 * are its own MPI_COMM_WORLD's: it counts as bytes only.) Where the MPI cannot spawn at all (Debian's
 * MPICH 4.0.2 here: MPI_Comm_spawn fails without jpmpi too), the case is skipped with the library's
 * reason.
 */
class SpawnIT {
    static final int PARENTS = 2;
    static final int CHILDREN = 2;
    /** Per MPI: "" if spawn works without jpmpi, else the library's line about it. */
    static final Map<Impl, String> UNSUPPORTED = new ConcurrentHashMap<>();

    static String spawnProblem(Impl impl) {
        return UNSUPPORTED.computeIfAbsent(impl, i -> {
            Result plain = MpiRun.on(i).ranks(PARENTS).run("spawn", Integer.toString(CHILDREN));
            return plain.exit() == 0 ? "" : plain.err().stream().filter(l -> l.contains("spawn")).findFirst()
                    .orElse("exit " + plain.exit());
        });
    }

    static Expected parent() {
        Expected e = new Expected(PARENTS).startup().finalizeAll();
        for (int r = 0; r < PARENTS; r++) {
            e.call(r, "MPI_Comm_spawn").call(r, "MPI_Barrier").call(r, "MPI_Comm_disconnect");
        }
        return e.io(0, "MPI_Send", 32, 0, CHILDREN);
    }

    static Expected child() {
        Expected e = new Expected(CHILDREN).startup().finalizeAll();
        for (int r = 0; r < CHILDREN; r++) {
            e.call(r, "MPI_Comm_get_parent").call(r, "MPI_Barrier").call(r, "MPI_Comm_disconnect");
            e.io(r, "MPI_Recv", 0, 32).io(r, "MPI_Allreduce", 4, 4).msg(r, 1 - r, 4, 1);
        }
        return e;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.jpmpi.profilers.it.ProfileRun#cases")
    void eachJobKeepsItsOwnFigures(Impl impl, Level level) throws IOException {
        String problem = spawnProblem(impl);
        assumeTrue(problem.isEmpty(), () -> impl.displayName + " cannot spawn here, without jpmpi too: " + problem);
        Result r = ProfileRun.run(impl, level, PARENTS, "spawn", Integer.toString(CHILDREN)).assertSuccess();
        for (int rank = 0; rank < PARENTS; rank++) {
            assertEquals(1, r.countOut("spawn parent rank " + rank + ": ok"), r::describe);
        }
        for (int rank = 0; rank < CHILDREN; rank++) {
            assertEquals(1, r.countOut("spawn child rank " + rank + ": ok"), r::describe);
        }
        Path dir = ProfileRun.dir(r);
        List<Path> spawned;
        try (Stream<Path> s = Files.list(dir)) {
            spawned = s.filter(p -> p.getFileName().toString().startsWith("spawned-")).toList();
        }
        assertEquals(1, spawned.size(), () -> "one spawned-* directory in " + dir + "\n" + r.describe());
        check(r, level, dir, parent());
        check(r, level, spawned.get(0), child());
    }

    private static void check(Result r, Level level, Path dir, Expected e) {
        if (level == Level.C) {
            Checks.of(r).snapshots(ProfileRun.snapshots(r, dir, e.ranks), e, Snapshot.State.FINALIZE).done();
        } else {
            Profile p = ProfileRun.profile(r, dir);
            Checks.of(r).profile(p, e).complete(p).done();
        }
    }
}
