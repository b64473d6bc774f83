package io.jpmpi.profilers.report;

import io.jpmpi.profilers.profile.RankDumps;
import io.jpmpi.profilers.profile.SiteTables;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * The one way a profile directory gets its {@value Reports#PROFILE} and its reports, whoever writes
 * them: the ranks at MPI_Finalize ({@link #publish}: they assemble the file together), {@code jpmpi
 * run} after a job that ended early and {@code jpmpi report} ({@link #mergeDumps}, then
 * {@link #writeProfile} and {@link #writeReports}, or {@link #writeAll}).
 */
public final class ProfileWriter {
    private ProfileWriter() {
    }

    /** The profile.json of {@code dir}. */
    public static Path profileFile(Path dir) {
        return dir.resolve(Reports.PROFILE);
    }

    /**
     * Whether {@code dir} has the ranks' dumps to make its profile.json from: it has none (not even a
     * link), or the one it has is of an earlier job ({@link #earlierThanDumps}).
     */
    public static boolean needsMerge(Path dir) {
        return RankDumps.present(dir) && (!Files.exists(profileFile(dir), LinkOption.NOFOLLOW_LINKS) || earlierThanDumps(dir));
    }

    /**
     * Whether {@code dir}'s profile.json is of another job than its dumps (rank 0's: the job id, the
     * executable and the start differ): an earlier job's, left there when a later one wrote its dumps
     * into the same directory without {@code jpmpi run}, which moves earlier results aside before a job
     * ({@link EarlierResults}). False when either cannot be read: the profile.json is then taken as it
     * is (and refused, if broken, by its reader). A profile.json the ranks' Java level wrote is of the
     * job whose dumps are beside it.
     */
    public static boolean earlierThanDumps(Path dir) {
        Optional<RankDumps.Job> dumps = RankDumps.job(dir);
        if (dumps.isEmpty()) {
            return false;
        }
        try {
            return !dumps.get().equals(RankDumps.Job.of(ProfileJson.read(profileFile(dir))));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The profile the ranks' dumps in {@code dir} (ranks/rank-R.bin) make, partial if some are missing,
     * with the call sites of the ranks' tables (sites/rank-R.tsv) if there are any.
     */
    public static Profile mergeDumps(Path dir) throws IOException {
        int ranks = SiteTables.present(dir) ? RankDumps.worldSize(dir) : -1;
        if (ranks <= 0) {
            return withSites(RankDumps.merge(dir), dir);
        }
        // The call sites (their tables read and addr2line asked: processes the merge would wait for) on a
        // thread of their own beside the dumps' merge (whose profile has no sites yet): the same profile as
        // withSites(merge) whenever the merged profile has the world size rank 0's dump says, which the
        // tables were read for; otherwise that.
        FutureTask<CallSites> sites = new FutureTask<>(() -> SiteNames.name(SiteTables.read(dir, ranks)));
        Thread t = new Thread(sites, "jpmpi-sites");
        t.setDaemon(true);
        t.start();
        Profile p = RankDumps.merge(dir);
        if (p.ranks() != ranks) {
            sites.cancel(false);
            return withSites(p, dir);
        }
        try {
            return p.withSites(sites.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while naming the call sites of " + dir);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IOException(e.getCause());
        }
    }

    /* ---- call sites (issue 21) ---- */

    /**
     * {@code p} with the call sites of the ranks' tables in {@code dir} merged and named
     * ({@link SiteNames}), when it has none yet and there are tables; otherwise {@code p} itself.
     */
    public static Profile withSites(Profile p, Path dir) throws IOException {
        if (p.sites() != null || !SiteTables.present(dir)) {
            return p;
        }
        return p.withSites(SiteNames.name(SiteTables.read(dir, p.ranks())));
    }

    /**
     * For a profile.json the ranks wrote themselves (the profile's Java level): {@code p} with the
     * call sites of {@code dir}'s tables, profile.json rewritten with them; {@code p} itself if it
     * has them already or there are none.
     */
    public static Profile addSites(Profile p, Path dir) throws IOException {
        Profile q = withSites(p, dir);
        if (q != p) {
            writeProfile(q, dir);
        }
        return q;
    }

    /* ---- end of call sites ---- */

    /** Writes {@code p} as the profile.json of {@code dir}, atomically. */
    public static void writeProfile(Profile p, Path dir) throws IOException {
        ProfileJson.write(p, profileFile(dir));
    }

    /** Writes the reports of {@code p} into {@code dir} (the HTML one if {@code html}); returns the text report. */
    public static String writeReports(Profile p, Path dir, boolean html) throws IOException {
        return Reports.writeReports(p, dir, html);
    }

    /** profile.json, then both reports; returns the text report. */
    public static String writeAll(Profile p, Path dir) throws IOException {
        writeProfile(p, dir);
        return writeReports(p, dir, true);
    }

    /**
     * For the ranks' rank 0, which has assembled profile.json's pieces in {@code assembled}: puts the
     * whole file in place (one rename), then writes both reports from the file as written (the
     * profile with every rank's row and the matrix, exactly what {@code jpmpi report} would read).
     */
    public static void publish(Path assembled, Path dir) throws IOException {
        Files.move(assembled, profileFile(dir), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        writeReports(ProfileJson.read(profileFile(dir)), dir, true);
    }
}
