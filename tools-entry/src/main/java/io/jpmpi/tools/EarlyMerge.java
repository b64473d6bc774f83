package io.jpmpi.tools;

import io.jpmpi.profilers.profile.RankDumps;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileWriter;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The ranks' dumps merged while the job's launcher is still taking the job down. At MPI_Finalize
 * rank 0 writes every rank's figures (ranks/rank-R.bin, then finalize-0.txt: {@link RankDumps#finished});
 * what follows, the MPI library's own finalize, the ranks' exit and the launcher's teardown, took
 * ~55 ms with Open MPI's mpirun at 2 ranks and ~9 ms with MPICH's mpiexec here, and the launcher
 * merged only after it (benchmarks/README.md, "The seventh session"). Here the merge (and the call
 * sites named) runs as soon as rank 0 is done, on the warm-up's thread ({@link Warmup}: Linux's
 * SCHED_IDLE, so only idle CPU while the job runs), and after the job {@link #take} gives it to
 * the launcher only if the files it was made from are still exactly as they were (every file of
 * ranks/ and sites/: the same file, size and modification time), and there is still no profile.json;
 * otherwise the launcher merges as before. Either way the profile is {@link ProfileWriter#mergeDumps}
 * of the same files: the same profile.
 */
final class EarlyMerge {
    /** How long {@link #watch} waits for a change in the directory before it looks anyway (file systems without inotify). */
    static final long LOOK_EVERY_MS = 1000;
    /** How long it lets a burst of dumps settle before it looks (a job of many ranks writes one file each). */
    static final long SETTLE_MS = 3;
    /** How long {@link #take} waits for a merge under way. */
    static final long TAKE_SECONDS = Processes.AFTER_SECONDS;

    private final Path dir;
    /** Rank 0's dump and the file it writes after the last one (RankDumps.finished). */
    private final Path rank0;
    private final Path last;
    /** rank-0.bin and finalize-0.txt as they were when the job started (an earlier job's, or none). */
    private final Map<Path, Object> before;
    private final Object lock = new Object();
    private boolean over;
    private boolean merging;
    private Profile merged;
    private Map<Path, Object> mergedFrom;
    private volatile WatchService watching;

    /** For the output directory {@code dir} of a job about to start (absolute). */
    EarlyMerge(Path dir) {
        this.dir = dir;
        this.rank0 = dir.resolve("ranks/rank-0.bin");
        this.last = dir.resolve("ranks/finalize-0.txt");
        this.before = stamp(List.of(rank0, last));
    }

    /**
     * On the warm-up's thread: waits until rank 0 has written every rank's figures of this job, then
     * merges them; returns at once when the job has ended ({@link #take}), or when anything goes wrong
     * (the launcher then merges after the job, as without this).
     */
    void watch() {
        try (WatchService ws = dir.getFileSystem().newWatchService()) {
            watching = ws;
            if (ended()) {
                return;
            }
            dir.register(ws, StandardWatchEventKinds.ENTRY_CREATE);
            boolean ranksWatched = false;
            while (!ended()) {
                Path ranks = dir.resolve("ranks");
                if (!ranksWatched && Files.isDirectory(ranks, LinkOption.NOFOLLOW_LINKS)) {
                    ranks.register(ws, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
                    ranksWatched = true;
                }
                if (ranksWatched && RankDumps.finished(dir) && written()) {
                    merge();
                    return;
                }
                WatchKey k = ws.poll(LOOK_EVERY_MS, TimeUnit.MILLISECONDS);
                if (k != null) {
                    Thread.sleep(SETTLE_MS);
                    drain(ws, k);
                }
            }
        } catch (IOException | RuntimeException e) {
            // closed by take, no inotify, a directory gone: the launcher merges after the job
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            watching = null;
        }
    }

    /** After the job: the profile merged during its end, if the files it was made from are unchanged. */
    Optional<Profile> take() {
        Profile p;
        Map<Path, Object> from;
        synchronized (lock) {
            over = true;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(TAKE_SECONDS);
            try {
                while (merging && System.nanoTime() < until) {
                    lock.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime())));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
            if (merging || merged == null) {
                return Optional.empty();
            }
            p = merged;
            from = mergedFrom;
        }
        WatchService ws = watching;
        if (ws != null) {
            try {
                ws.close();
            } catch (IOException e) {
                // closed with the thread
            }
        }
        return ProfileWriter.needsMerge(dir) && from.equals(files()) ? Optional.of(p) : Optional.empty();
    }

    /** The profile merged so far, if any (tests). */
    Optional<Profile> peek() {
        synchronized (lock) {
            return Optional.ofNullable(merged);
        }
    }

    private boolean ended() {
        synchronized (lock) {
            return over;
        }
    }

    /** Whether rank-0.bin (and finalize-0.txt) are this job's: not the files that were there at its start. */
    private boolean written() {
        Map<Path, Object> now = stamp(List.of(rank0, last));
        return !Objects.equals(now.get(rank0), before.get(rank0))
                && (!now.containsKey(last) || !Objects.equals(now.get(last), before.get(last)));
    }

    private void merge() {
        synchronized (lock) {
            if (over) {
                return;
            }
            merging = true;
        }
        Profile p = null;
        Map<Path, Object> from = null;
        try {
            Map<Path, Object> first = files();
            Profile q = ProfileWriter.mergeDumps(dir);
            if (!q.partial() && first.equals(files())) {
                p = q;
                from = first;
            }
        } catch (IOException | RuntimeException e) {
            // said by the launcher's own merge after the job, which meets the same files
        } finally {
            synchronized (lock) {
                merged = p;
                mergedFrom = from;
                merging = false;
                lock.notifyAll();
            }
        }
    }

    /** Every file of ranks/ and sites/ (what a merge reads of the directory), with its {@link FileIdentity}. */
    private Map<Path, Object> files() {
        Map<Path, Object> out = new TreeMap<>();
        for (String sub : List.of("ranks", "sites")) {
            Path d = dir.resolve(sub);
            if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(d)) {
                List<Path> all = new ArrayList<>();
                ds.forEach(all::add);
                out.putAll(stamp(all));
            } catch (IOException | RuntimeException e) {
                out.put(d, "unreadable: " + e.getMessage());
            }
        }
        return out;
    }

    /** Each of {@code files} that is there, with its {@link FileIdentity}. */
    private static Map<Path, Object> stamp(List<Path> files) {
        Map<Path, Object> out = new TreeMap<>();
        for (Path f : files) {
            FileIdentity.of(f).ifPresent(id -> out.put(f, id));
        }
        return out;
    }

    /** Empties {@code k}'s events and every other key's that came meanwhile. */
    private static void drain(WatchService ws, WatchKey k) {
        for (WatchKey key = k; key != null; key = ws.poll()) {
            key.pollEvents();
            key.reset();
        }
    }
}
