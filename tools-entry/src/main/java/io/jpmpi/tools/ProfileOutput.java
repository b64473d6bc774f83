package io.jpmpi.tools;

import io.jpmpi.profilers.profile.RankDumps;
import io.jpmpi.profilers.report.EarlierResults;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileDetails;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.profilers.report.ProfileWriter;
import io.jpmpi.profilers.report.Reports;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** What the launcher does with the profile tool's output directory once the job has ended. */
final class ProfileOutput {
    private ProfileOutput() {
    }

    /**
     * After a job with the profile tool: the ranks' figures, which rank 0 wrote at MPI_Finalize
     * (ranks/rank-R.bin; or each rank its own, when the job aborted, was killed, or ranks exited
     * without MPI_Finalize), become profile.json and its reports, partial if some rank did not
     * finish; the dumps of a complete profile are then removed (profile.json holds all of them).
     * Either way, say where the reports are. A profile.json the ranks wrote (the profile's Java
     * level in a by-hand entry list) is left as it is but for the call sites (sites/rank-R.tsv),
     * which are named here and added to it. {@code run} (the command line, the settings, the wall
     * time) goes into the profile's header.
     */
    static void finish(Context ctx, Path dir, ProfileDetails.Run run) {
        finish(ctx, dir, run, Optional.empty());
    }

    /** The same with the profile {@link EarlyMerge} made of {@code dir}'s dumps, if it has one. */
    static void finish(Context ctx, Path dir, ProfileDetails.Run run, Optional<Profile> early) {
        finishOne(ctx, dir, "profile", run, early);
        // jobs the job started with MPI_Comm_spawn: each in a directory of its own inside (PROFILE.md)
        try (var subs = Files.list(dir)) {
            for (Path sub : subs.filter(p -> Files.isDirectory(p) && p.getFileName().toString().startsWith("spawned-"))
                    .sorted().toList()) {
                finishOne(ctx, sub, "profile of a spawned job", run, Optional.empty());
            }
        } catch (IOException e) {
            // no output directory (the job never started its ranks): finishOne said so
        }
    }

    /**
     * How the job was run, for the profile's header: the launcher command, the tool list as given,
     * the output directory, the wall time since {@code startedNanos} (System.nanoTime), and the
     * JPMPI_* settings the ranks ran with (the launcher's environment, then what jpmpi set for the
     * ranks, which wins; empty values left out).
     */
    static ProfileDetails.Run run(Context ctx, Job job, List<String> command, String tools, Path dir,
                                  long startedNanos) {
        Map<String, String> in = new TreeMap<>();
        for (Map<String, String> env : List.of(ctx.env(), job.rankEnv())) {
            env.forEach((k, v) -> {
                if (k.startsWith("JPMPI_") && v != null && !v.isEmpty()) {
                    in.put(k, v);
                }
            });
        }
        return new ProfileDetails.Run(ProfileDetails.FROM_LAUNCHER, command, tools, dir.toString(), (System.nanoTime() - startedNanos) / 1e9, in);
    }

    /**
     * profile.json and both reports, as {@link ProfileWriter#writeAll}, on three threads: this is the
     * time between the job's end and jpmpi's, and the machine has the cores the job has just left.
     * report.txt and profile.json each on a thread of its own, report.html on this one (each ~4 ms
     * after a 2-rank job; one after the other on two threads they took ~9).
     */
    private static void writeAll(Profile p, Path dir) throws IOException {
        Map<String, String> extra = Reports.extraSections(dir);
        Exception[] failed = new Exception[2];
        Thread text = new Thread(() -> {
            try {
                Reports.writeText(p, dir, extra);
            } catch (IOException | RuntimeException e) {
                failed[0] = e; // said by the caller, as if written here
            }
        }, "jpmpi-report-text");
        Thread json = new Thread(() -> {
            try {
                ProfileWriter.writeProfile(p, dir);
            } catch (IOException | RuntimeException e) {
                failed[1] = e;
            }
        }, "jpmpi-profile-json");
        text.start();
        json.start();
        try {
            Reports.writeHtml(p, dir, extra);
        } finally {
            for (Thread t : List.of(json, text)) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        for (Exception e : failed) {
            if (e instanceof IOException io) {
                throw io;
            } else if (e instanceof RuntimeException r) {
                throw r;
            }
        }
    }

    private static void finishOne(Context ctx, Path dir, String what, ProfileDetails.Run run, Optional<Profile> early) {
        Path json = ProfileWriter.profileFile(dir);
        try {
            if (ProfileWriter.needsMerge(dir)) {
                // an earlier job's profile.json beside this job's dumps (not moved aside before the job)
                EarlierResults.setAsideProfile(dir).ifPresent(m -> ctx.note(what + ": " + m.list() + " in " + dir
                        + " were of an earlier job: moved them to " + m.to()));
                Profile merged = early.isPresent() ? early.get() : ProfileWriter.mergeDumps(dir);
                // the header's command line and settings, which only the launcher knows
                Profile p = merged.withDetails(merged.details().withRun(run));
                writeAll(p, dir);
                if (p.partial()) {
                    ctx.note(what + ": not every rank reached MPI_Finalize: a partial profile was merged from the"
                            + " ranks' dumps (ranks/rank-R.bin, kept)");
                } else {
                    RankDumps.remove(dir);
                }
            } else if (Files.isRegularFile(json)) {
                Profile p = ProfileJson.read(json);
                Profile q = ProfileWriter.addSites(p, dir);
                if (q != p) {
                    ProfileWriter.writeReports(q, dir, true);
                }
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
