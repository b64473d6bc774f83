package io.jpmpi.profilers.report;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An earlier job's results in an output directory that a new job writes into (an {@code --output}
 * named again, a job script run twice, {@code JPMPI_OUTPUT_DIR} fixed in a module): moved into a
 * directory of their own inside it, {@code earlier-<yyyyMMdd-HHmmss>} (the time of the newest of
 * them, in the machine's time zone, as the launcher names a job's own directory), so that nothing of
 * them is lost and nothing of them is taken for the new job's: its dumps beside the earlier job's
 * profile.json (which a merge would otherwise leave in place), the earlier job's hwc.txt or mpit.txt
 * in the new job's reports, or dumps of a rank the new job does not have.
 */
public final class EarlierResults {
    /** The names of the directories results are moved into, followed by their time. */
    public static final String PREFIX = "earlier-";
    /** The profile's own files: its data and its two reports. */
    static final List<String> PROFILE_FILES = List.of(Reports.PROFILE, Reports.TEXT, Reports.HTML);
    /**
     * Everything jpmpi's tools write into an output directory: the profile's files, the mpit and hwc
     * tools' (profilers/mpit Mpit.JSON and .TEXT, profilers/hwc HwcLevel), the profile's rank dumps
     * and call-site tables, and (by the prefix {@value #SPAWNED}) the directories of jobs the job
     * started with MPI_Comm_spawn.
     */
    static final List<String> ALL = List.of(Reports.PROFILE, Reports.TEXT, Reports.HTML, "mpit.json", "mpit.txt",
            "hwc.json", "hwc.txt", "ranks", "sites");
    static final String SPAWNED = "spawned-";
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    private EarlierResults() {
    }

    /** What was moved ({@code names}, in the order of {@link #ALL}) and where to ({@code to}, inside the output directory). */
    public record Moved(Path to, List<String> names) {
        /** "profile.json, report.txt and ranks/" */
        public String list() {
            List<String> shown = new ArrayList<>();
            for (String n : names) {
                shown.add(n.contains(".") ? n : n + "/");
            }
            if (shown.size() == 1) {
                return shown.getFirst();
            }
            return String.join(", ", shown.subList(0, shown.size() - 1)) + " and " + shown.getLast();
        }
    }

    /**
     * Before a job writes into {@code dir}: every result of an earlier job there moved aside; empty
     * when there is none (or no {@code dir}).
     */
    public static Optional<Moved> setAside(Path dir) throws IOException {
        return move(dir, present(dir, true));
    }

    /**
     * {@code dir}'s profile.json and reports moved aside (the dumps beside them are a later job's:
     * {@link ProfileWriter#needsMerge}); empty when there are none.
     */
    public static Optional<Moved> setAsideProfile(Path dir) throws IOException {
        return move(dir, present(dir, false));
    }

    /** The names of {@link #ALL} (or of {@link #PROFILE_FILES}) there in {@code dir}, the spawned jobs' too with {@code all}. */
    private static List<String> present(Path dir, boolean all) throws IOException {
        List<String> out = new ArrayList<>();
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return out;
        }
        for (String n : all ? ALL : PROFILE_FILES) {
            if (Files.exists(dir.resolve(n), LinkOption.NOFOLLOW_LINKS)) {
                out.add(n);
            }
        }
        if (all) {
            List<String> spawned = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, SPAWNED + "*")) {
                ds.forEach(p -> spawned.add(p.getFileName().toString()));
            }
            spawned.sort(null);
            out.addAll(spawned);
        }
        return out;
    }

    private static Optional<Moved> move(Path dir, List<String> names) throws IOException {
        if (names.isEmpty()) {
            return Optional.empty();
        }
        FileTime newest = null;
        for (String n : names) {
            FileTime t = Files.getLastModifiedTime(dir.resolve(n), LinkOption.NOFOLLOW_LINKS);
            newest = newest == null || t.compareTo(newest) > 0 ? t : newest;
        }
        String name = PREFIX + TIME.format(LocalDateTime.ofInstant(newest.toInstant(), ZoneId.systemDefault()));
        Path to = OwnDirectory.fresh(dir, name);
        for (String n : names) {
            Files.move(dir.resolve(n), to.resolve(n)); // one rename each: the same file system
        }
        return Optional.of(new Moved(to, List.copyOf(names)));
    }
}
