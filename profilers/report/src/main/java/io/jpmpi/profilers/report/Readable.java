package io.jpmpi.profilers.report;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What both reports say so that they read without a manual (issue 21): the functions worth a row,
 * which byte counts are collectives' pairwise messages, the shortest calls floored at the timer's
 * resolution, the two wall times named, the run's command line and settings.
 */
final class Readable {
    private Readable() {
    }

    /** Counted once per rank but never timed: they bound the application time (PROFILE.md). */
    private static final List<String> UNTIMED = List.of("MPI_Init", "MPI_Init_thread", "MPI_Finalize");

    /** Collectives, blocking, non-blocking, persistent, neighbourhood and large-count. */
    private static final Pattern COLLECTIVE = Pattern.compile("MPI_(Bcast|Reduce|Allreduce|Gatherv?|Scatterv?"
            + "|Allgatherv?|Alltoall[vw]?|Reduce_scatter(_block)?|Reduce_local|Scan|Exscan|Barrier"
            + "|Neighbor_(allgatherv?|alltoall[vw]?))(_init)?(_c)?");

    /** The note next to collectives' bytes (a profile without the buffer bytes). */
    static final String COLLECTIVE_NOTE = "* collective: bytes counted as the pairwise messages the call implies"
            + " (a 1 KiB MPI_Allreduce on 4 ranks: 3 KiB sent by each rank); the per-call buffer bytes mpiP"
            + " reports are not in this profile (written before jpmpi-profile-3)";
    /** The note next to collectives' bytes when the profile has their buffer bytes. */
    static final String COLLECTIVE_NOTE_3 = "* collective: bytes counted as the pairwise messages the call implies"
            + " (a 1 KiB MPI_Allreduce on 4 ranks: 3 KiB sent by each rank); the per-call buffer bytes mpiP"
            + " reports (1 KiB a call there) are in \"Collectives: buffer bytes\" below";

    /** The note for {@code p}'s collectives' bytes. */
    static String collectiveNote(Profile p) {
        ProfileBreakdown b = p.details().breakdown();
        return b != null && b.functions().stream().anyMatch(ProfileBreakdown.FunctionDetail::collective)
                ? COLLECTIVE_NOTE_3 : COLLECTIVE_NOTE;
    }

    /** "1-1", "2-3", "4-7", ...: the communicator sizes of bucket k; the last "2^20+" (1048576+). */
    static String commLabel(int k) {
        long lo = 1L << k;
        return k == ProfileBreakdown.COMM_BUCKETS - 1 ? lo + "+" : lo == 1 ? "1" : lo + "-" + (2 * lo - 1);
    }

    /** Whether the bytes of {@code name} are a collective's pairwise messages (MPI_Iallreduce as MPI_Allreduce). */
    static boolean collective(String name) {
        String blocking = name.length() > 5 && name.startsWith("MPI_I") && Character.isLowerCase(name.charAt(5))
                ? "MPI_" + Character.toUpperCase(name.charAt(5)) + name.substring(6) : name;
        return COLLECTIVE.matcher(blocking).matches();
    }

    /** A function that was counted but not timed (MPI_Init, MPI_Finalize): no row of 0 s. */
    static boolean untimed(FunctionProfile f) {
        return UNTIMED.contains(f.name()) && f.timeSeconds() == 0;
    }

    /** A site of a function counted but not timed (MPI_Init, MPI_Finalize): no row of 0 s either. */
    static boolean untimed(CallSites.Site s) {
        return UNTIMED.contains(s.function()) && s.timeSeconds().sum() == 0;
    }

    /** The sites worth a row, in the profile's order (by time). */
    static List<CallSites.Site> timedSites(CallSites cs) {
        return cs.sites().stream().filter(s -> !untimed(s)).toList();
    }

    /** The functions worth a row in the time tables, in the profile's order (by time). */
    static List<FunctionProfile> timed(Profile p) {
        List<FunctionProfile> out = new ArrayList<>();
        for (FunctionProfile f : p.functions()) {
            if (!untimed(f)) {
                out.add(f);
            }
        }
        return out;
    }

    /** "MPI_Init 4 calls, MPI_Finalize 4 calls: counted, not timed (...)", or null if none. */
    static String untimedNote(Profile p) {
        StringBuilder b = new StringBuilder();
        for (String name : UNTIMED) {
            for (FunctionProfile f : p.functions()) {
                if (f.name().equals(name) && untimed(f)) {
                    b.append(b.isEmpty() ? "" : ", ").append(f.name()).append(' ').append(f.calls())
                            .append(f.calls() == 1 ? " call" : " calls");
                }
            }
        }
        return b.isEmpty() ? null : b + ": counted, not timed (the application time runs from the end of MPI_Init"
                + " to the start of MPI_Finalize)";
    }

    /** A byte count, with "*" when the function is a collective. */
    static String bytes(FunctionProfile f, long bytes) {
        return Units.bytes(bytes) + (bytes != 0 && collective(f.name()) ? "*" : "");
    }

    /** The timer's resolution in seconds, 0 if the profile does not say. */
    static double resolution(Profile p) {
        return p.details().timerSeconds();
    }

    /** A shortest call: "<=12 ns" when at or below the timer's resolution (then it means nothing shorter). */
    static String minCall(Profile p, double seconds) {
        double r = resolution(p);
        if (r > 0 && seconds > 0 && seconds <= r) {
            return "<=" + Units.seconds(r);
        }
        return Units.seconds(seconds);
    }

    /** What "<=" in the shortest calls means, or null if the profile does not know the resolution. */
    static String resolutionNote(Profile p) {
        double r = resolution(p);
        return r <= 0 ? null : "min call: \"<=" + Units.seconds(r) + "\" is a call at or below the timer's resolution ("
                + Units.seconds(r) + ": the shortest interval two reads of the recorder's clock show)";
    }

    /** "2.75 s (rank 1)": the longest application time, with its rank. */
    static String longestApp(Profile p) {
        Stat app = p.summary().appSeconds();
        return Units.seconds(app.max()) + " (rank " + app.maxRank() + ")";
    }

    /** The job's wall time as jpmpi run saw it, or why it is not known. */
    static String jobWall(Profile p) {
        ProfileDetails.Run run = p.details().run();
        return run == null || run.wallSeconds() <= 0 || !run.source().equals(ProfileDetails.FROM_LAUNCHER)
                ? "not known (the job was not started by jpmpi run)"
                : Units.seconds(run.wallSeconds()) + " (jpmpi run: from starting the launcher to its end)";
    }

    /** The launcher command line, words quoted for a shell where needed, or why it is not known. */
    static String commandLine(Profile p) {
        ProfileDetails.Run run = p.details().run();
        if (run == null) {
            return "not known (the job was not started by jpmpi run; the ranks' dumps name only the executable)";
        }
        StringBuilder b = new StringBuilder();
        for (String w : run.command()) {
            b.append(b.isEmpty() ? "" : " ").append(w.matches("[A-Za-z0-9_./:=@%+,-]+") ? w
                    : "'" + w.replace("'", "'\\''") + "'");
        }
        return run.source().equals(ProfileDetails.FROM_RANK_0) ? b + " (rank 0's own; the job was not started by"
                + " jpmpi run: the launcher's command line is not known)" : b.toString();
    }

    /** "tools profile; output DIR; JPMPI_X=v, ...", or null without a run. */
    static String settings(Profile p) {
        ProfileDetails.Run run = p.details().run();
        if (run == null) {
            return null;
        }
        StringBuilder b = new StringBuilder("tools ").append(run.tools().isEmpty() ? "(none)" : run.tools())
                .append("; output ").append(run.output());
        for (String k : new TreeSet<>(run.settings().keySet())) {
            b.append("; ").append(k).append('=').append(run.settings().get(k));
        }
        return b.toString();
    }

    /**
     * What the MPI time owes to sampled timing (PROFILE.md, "Sampled timing"): the standard error of
     * the functions' summed time (their errors are independent) and how many functions it is, or null
     * when every call was timed.
     */
    static String sampledError(Profile p) {
        double var = 0;
        int n = 0;
        for (FunctionProfile f : p.functions()) {
            if (f.sampled()) {
                var += f.timeErrorSeconds() * f.timeErrorSeconds();
                n++;
            }
        }
        if (n == 0) {
            return null;
        }
        double err = Math.sqrt(var);
        return "+- " + Units.seconds(err) + " (1 standard error, " + TextReport.small(TextReport.percentOf(err,
                p.summary().mpiSeconds().sum())) + "% of it: the time of " + n + (n == 1 ? " function is" : " functions is")
                + " estimated from a sample of its calls, see Sampled timing)";
    }

    /** The overhead line: the recorder's cost per call, and what it does not measure. */
    static String overhead(Profile p) {
        Profile.Overhead o = p.overhead();
        return Units.format("%s ns per call x %s calls = %s, %s%% of application time",
                Units.significant3(o.perCallNs()), Units.count(o.calls()), Units.seconds(o.totalSeconds()),
                TextReport.small(TextReport.percentOf(o.totalSeconds(), p.summary().appSeconds().sum())))
                + "; " + ends(p);
    }

    /** jpmpi's own start (in MPI_Init) and finalize (in MPI_Finalize), or that the profile does not have them. */
    static String ends(Profile p) {
        ProfileBreakdown b = p.details().breakdown();
        if (b == null || b.cost() == null) {
            return "jpmpi's own start (in MPI_Init) and finalize (the dumps to rank 0) are not in this profile";
        }
        ProfileBreakdown.Cost c = b.cost();
        String fin = c.rank0FinalizeSeconds() > 0
                ? "rank 0 " + Units.seconds(c.rank0FinalizeSeconds()) + " (it writes every rank's figures), the others"
                + " up to their snapshot max " + Units.seconds(c.finalizeSeconds().max()) + " (rank "
                + c.finalizeSeconds().maxRank() + ")"
                : "max " + Units.seconds(c.finalizeSeconds().max()) + " (rank " + c.finalizeSeconds().maxRank()
                + "), avg " + Units.seconds(c.finalizeSeconds().avg()) + " (up to each rank's snapshot)";
        return "jpmpi's own start in MPI_Init (after the library's): max " + Units.seconds(c.startSeconds().max())
                + " (rank " + c.startSeconds().maxRank() + "), avg " + Units.seconds(c.startSeconds().avg())
                + "; its finalize in MPI_Finalize: " + fin
                + "; the dispatcher's own load before MPI_Init is not measured";
    }
}
