package io.jpmpi.profilers.report;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What schema {@code jpmpi-profile-2} added to a profile (PROFILE.md, "Added in jpmpi-profile-2"):
 * how the job was run, the clock's resolution, and every rank's figures per function. Each part
 * may be absent (null): a profile read from a {@code jpmpi-profile-1} file has none, one written by
 * the profile's Java level inside the job has no run and no per-rank functions.
 *
 * @param run           the command line and jpmpi's settings, as the launcher knew them; null if the
 *                      job was not started by {@code jpmpi run}
 * @param timerSeconds  the shortest interval the recorder's clock shows between two reads, in seconds
 *                      (one tick of the clock if it was not measured); 0 if unknown
 * @param rankFunctions one row per world rank, in rank order: the functions that rank called; null if
 *                      the profile does not have them
 * @param breakdown     (schema 3) jpmpi's own start and finalize cost, time by message size, collectives'
 *                      buffer bytes and communicator sizes; null if the profile does not have them
 */
public record ProfileDetails(Run run, double timerSeconds, List<RankFunctions> rankFunctions,
                             ProfileBreakdown breakdown) {
    /** Nothing added. */
    public static final ProfileDetails NONE = new ProfileDetails(null, 0, null, null);

    /** Schema 2's details (no breakdown). */
    public ProfileDetails(Run run, double timerSeconds, List<RankFunctions> rankFunctions) {
        this(run, timerSeconds, rankFunctions, null);
    }

    /** These details with {@code r} as the run (the rest kept). */
    public ProfileDetails withRun(Run r) {
        return new ProfileDetails(r, timerSeconds, rankFunctions, breakdown);
    }

    /** These details with {@code b} as the breakdown. */
    public ProfileDetails withBreakdown(ProfileBreakdown b) {
        return new ProfileDetails(run, timerSeconds, rankFunctions, b);
    }

    /** Who told how the job was run: the launcher, or only rank 0 (a job started without jpmpi run). */
    public static final String FROM_LAUNCHER = "jpmpi run";
    public static final String FROM_RANK_0 = "rank 0";

    /**
     * How the job was run.
     *
     * @param source   {@link #FROM_LAUNCHER} or {@link #FROM_RANK_0}
     * @param command  the launcher command line (after {@code jpmpi run --}), word by word; from rank 0,
     *                 its own command line (the program and its arguments)
     * @param tools    the entry list as given ({@code --tools} or JPMPI_TOOLS_ENTRY)
     * @param output   the output directory
     * @param wallSeconds the job's wall time as the launcher saw it: from the start of the launcher
     *                 command to its end; 0 if unknown
     * @param settings the JPMPI_* settings in force in the ranks (the launcher's environment and what
     *                 it set for the ranks), by name
     */
    public record Run(String source, List<String> command, String tools, String output, double wallSeconds,
                      Map<String, String> settings) {
        public Run {
            Objects.requireNonNull(source);
            command = List.copyOf(command);
            Objects.requireNonNull(tools);
            Objects.requireNonNull(output);
            settings = Map.copyOf(settings);
        }
    }

    /** One rank's figures per function: only the functions it called, in the order of the dump. */
    public record RankFunctions(List<Entry> functions) {
        public RankFunctions {
            functions = List.copyOf(functions);
        }

        /** The entry of {@code name}, or null if this rank did not call it. */
        public Entry get(String name) {
            for (Entry e : functions) {
                if (e.name().equals(name)) {
                    return e;
                }
            }
            return null;
        }
    }

    /** A function's calls, time and bytes on one rank. */
    public record Entry(String name, long calls, double timeSeconds, long bytesSent, long bytesRecv) {
    }
}
