package io.jpmpi.profilers.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jpmpi.testsupport.BuiltTools;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import io.jpmpi.profilers.profile.RankDumps;
import io.jpmpi.profilers.profile.Snapshot;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Runs a test program of src/test/c under mpirun with the `profile` tool: the C level alone
 * (rank 0 then writes every rank's ranks/rank-R.bin at MPI_Finalize, which {@link Snapshot} reads;
 * jpmpi run would merge them into profile.json) or the
 * full entry, C level + Java level jar (profile.json, report.txt, report.html at MPI_Finalize).
 * The output directory is {@value #OUT} in the run's own directory (target/test-runs/...), where
 * the launcher's stdout and stderr are kept too.
 */
public final class ProfileRun {
    /** JPMPI_OUTPUT_DIR, relative: the recorder resolves it against the ranks' working directory. */
    static final String OUT = "prof";

    enum Level {
        /** libjpmpi-profile.so alone. */
        C,
        /** libjpmpi-profile.so, jpmpi-profile.jar. */
        FULL
    }

    private ProfileRun() {
    }

    /** Every installed MPI with each level: (Impl, Level). */
    static Stream<Arguments> cases() {
        return MpiRun.implementations().flatMap(i -> Stream.of(Level.values()).map(l -> Arguments.of(i, l)));
    }

    static Result run(Impl impl, Level level, int ranks, String program, String... args) {
        return run(impl, level, ranks, UnaryOperator.identity(), program, args);
    }

    /** `more` adds to the run (MCA parameters, variables) before it starts. */
    static Result run(Impl impl, Level level, int ranks, UnaryOperator<MpiRun> more, String program,
                      String... args) {
        MpiRun run = MpiRun.on(impl).ranks(ranks).env("JPMPI_OUTPUT_DIR", OUT);
        if (level == Level.C) {
            run.levels(BuiltTools.recorder(impl).toString());
        } else {
            run.levels(MpiRun.entry(BuiltTools.recorder(impl).toString(), BuiltTools.profileJar().toString())).java();
        }
        return more.apply(run).run(program, args);
    }

    static Path dir(Result r) {
        return r.runDir().resolve(OUT);
    }

    /** ranks/rank-R.bin of every rank (fails, with the run's output, if one is missing or unreadable). */
    static Snapshot[] snapshots(Result r, int ranks) {
        return snapshots(r, dir(r), ranks);
    }

    /** The same in another output directory (a spawned job's). */
    static Snapshot[] snapshots(Result r, Path dir, int ranks) {
        Snapshot[] s = new Snapshot[ranks];
        for (int rank = 0; rank < ranks; rank++) {
            s[rank] = snapshot(r, dir.resolve("ranks").resolve("rank-" + rank + ".bin"));
        }
        return s;
    }

    static Snapshot snapshot(Result r, Path file) {
        if (!Files.isRegularFile(file)) {
            fail("no " + file + "\n" + r.describe());
        }
        try {
            return Snapshot.read(file);
        } catch (IOException e) {
            return fail(file + ": " + e.getMessage() + "\n" + r.describe(), e);
        }
    }

    /** profile.json, read back; the two reports must be there too. */
    static Profile profile(Result r) {
        return profile(r, dir(r));
    }

    /** The same in another output directory (a spawned job's). */
    static Profile profile(Result r, Path dir) {
        Path json = dir.resolve("profile.json");
        if (!Files.isRegularFile(json)) {
            fail("no " + json + "\n" + r.describe());
        }
        for (String report : new String[] {"report.txt", "report.html"}) {
            Path f = dir.resolve(report);
            try {
                assertTrue(Files.isRegularFile(f) && Files.size(f) > 0, () -> "no (or empty) " + f + "\n"
                        + r.describe());
            } catch (IOException e) {
                fail(f + ": " + e + "\n" + r.describe(), e);
            }
        }
        assertFalse(RankDumps.present(dir), () -> "rank dumps left beside a complete profile.json: "
                + dir.resolve("ranks") + "\n" + r.describe());
        try {
            return ProfileJson.read(json);
        } catch (IOException e) {
            return fail(json + ": " + e.getMessage() + "\n" + r.describe(), e);
        }
    }
}
