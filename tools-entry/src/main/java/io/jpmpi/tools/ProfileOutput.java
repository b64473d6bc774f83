package io.jpmpi.tools;

import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileWriter;
import io.jpmpi.profilers.report.Reports;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the launcher does with the profile tool's output directory once the job has ended. */
final class ProfileOutput {
    private ProfileOutput() {
    }

    /**
     * After a job with the profile tool: if the ranks did not write profile.json (the job aborted,
     * was killed, or ranks exited without MPI_Finalize), the per-rank dumps become a partial
     * profile and its reports; either way, say where the reports are.
     */
    static void finish(Context ctx, Path dir) {
        finishOne(ctx, dir, "profile");
        // jobs the job started with MPI_Comm_spawn: each in a directory of its own inside (PROFILE.md)
        try (var subs = Files.list(dir)) {
            for (Path sub : subs.filter(p -> Files.isDirectory(p) && p.getFileName().toString().startsWith("spawned-"))
                    .sorted().toList()) {
                finishOne(ctx, sub, "profile of a spawned job");
            }
        } catch (IOException e) {
            // no output directory (the job never started its ranks): finishOne said so
        }
    }

    private static void finishOne(Context ctx, Path dir, String what) {
        Path json = ProfileWriter.profileFile(dir);
        try {
            if (ProfileWriter.needsMerge(dir)) {
                Profile p = ProfileWriter.mergeDumps(dir);
                ProfileWriter.writeAll(p, dir);
                ctx.note("profile.json was not written by the ranks: " + (p.partial() ? "a partial profile" : "the profile")
                        + " was merged from their dumps (ranks/rank-R.bin)");
            }
        } catch (IOException | RuntimeException e) {
            ctx.note(what + ": cannot merge the ranks' dumps in " + dir + ": " + e.getMessage());
            return;
        }
        if (Files.exists(dir.resolve(Reports.TEXT))) {
            ctx.note(what + ": " + dir.resolve(Reports.TEXT) + " and " + Reports.HTML + " (jpmpi report " + dir + ")");
        } else if (!Files.exists(json)) {
            ctx.note(what + ": no profile was written in " + dir);
        }
    }
}
