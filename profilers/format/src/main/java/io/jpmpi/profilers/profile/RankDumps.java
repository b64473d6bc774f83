package io.jpmpi.profilers.profile;

import io.jpmpi.profilers.report.Profile;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A profile from the per-rank dumps {@code DIR/ranks/rank-R.bin} the recorder writes when a rank
 * ends without the Java level writing profile.json (MPI_Abort, exit without MPI_Finalize, a
 * signal, no Java level in the entry list) or on {@code MPI_Pcontrol(2)}. Ranks that left no dump
 * are listed as missing; any rank that did not reach MPI_Finalize makes the profile partial.
 */
public final class RankDumps {
    private static final Pattern NAME = Pattern.compile("rank-(\\d+)\\.bin");
    /** At most this many partial reasons are listed one by one. */
    static final int MAX_REASONS = 20;

    private RankDumps() {
    }

    /** Whether dir has rank dumps to merge. */
    public static boolean present(Path dir) {
        return !files(dir).isEmpty();
    }

    public static Profile merge(Path dir) throws IOException {
        TreeMap<Integer, Path> files = files(dir);
        if (files.isEmpty()) {
            throw new IOException("no profile.json and no rank dumps (ranks/rank-<R>.bin) in " + dir);
        }
        List<Snapshot> snaps = new ArrayList<>();
        for (Path f : files.values()) {
            snaps.add(Snapshot.read(f));
        }
        Snapshot first = snaps.getFirst();
        int ranks = first.size();
        for (Snapshot s : snaps) {
            if (s.size() != ranks || s.names().length != first.names().length || s.rank() < 0) {
                throw new IOException(dir.resolve("ranks") + ": rank dumps of different jobs (rank " + s.rank()
                        + " of " + s.size() + " beside " + ranks + " ranks)");
            }
        }
        Aggregate total = null;
        List<String> reasons = new ArrayList<>();
        Set<String> hosts = new HashSet<>();
        Profile.RankRow[] rows = new Profile.RankRow[ranks];
        Profile.SparseRow[] messages = new Profile.SparseRow[ranks];
        Profile.SparseRow[] bytes = new Profile.SparseRow[ranks];
        boolean partial = false;
        for (Snapshot s : snaps) {
            Aggregate a = Aggregate.of(s, ranks);
            if (total == null) {
                total = a;
            } else {
                total.add(a);
            }
            hosts.add(s.host());
            rows[s.rank()] = Aggregate.rankRow(s);
            Profile.SparseRow[] m = Aggregate.matrixRows(s);
            messages[s.rank()] = m[0];
            bytes[s.rank()] = m[1];
            if (s.partialReason() != null) {
                partial = true;
                reasons.add("rank " + s.rank() + ": " + s.partialReason());
            }
        }
        for (int r = 0; r < ranks; r++) {
            if (rows[r] == null) {
                partial = true;
                reasons.add("rank " + r + ": no figures (no dump)");
                rows[r] = new Profile.RankRow(r, "", 0, 0, 0, 0, "no figures (no dump)");
                messages[r] = Profile.SparseRow.EMPTY;
                bytes[r] = Profile.SparseRow.EMPTY;
            }
        }
        if (reasons.size() > MAX_REASONS) {
            int more = reasons.size() - MAX_REASONS;
            reasons.subList(MAX_REASONS, reasons.size()).clear();
            reasons.add("... and " + more + " more ranks");
        }
        Snapshot rank0 = snaps.stream().filter(s -> s.rank() == 0).findFirst().orElse(first);
        return total.toProfile(rank0, snaps.size(), hosts.size(), partial, reasons, List.of(rows),
                List.of(messages), List.of(bytes));
    }

    private static TreeMap<Integer, Path> files(Path dir) {
        TreeMap<Integer, Path> files = new TreeMap<>();
        Path ranks = dir.resolve("ranks");
        if (!Files.isDirectory(ranks)) {
            return files;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(ranks, "rank-*.bin")) {
            for (Path p : ds) {
                Matcher m = NAME.matcher(p.getFileName().toString());
                if (m.matches()) {
                    files.put(Integer.parseInt(m.group(1)), p);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return files;
        }
        return files;
    }
}
