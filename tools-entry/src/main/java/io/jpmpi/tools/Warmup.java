package io.jpmpi.tools;

import io.jpmpi.platform.Settings;
import io.jpmpi.profilers.profile.RankDumps;
import io.jpmpi.profilers.report.HtmlReport;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.profilers.report.ProfileWriter;
import io.jpmpi.profilers.report.TextReport;
import java.io.File;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * While a {@code jpmpi run} job runs, the launcher's work for after it, done once on a sample: the
 * ranks' dumps of a small job (made at install time with the launcher's AOT cache,
 * {@link Layout#launcherSample}) merged, its call sites named, and report.txt, report.html and
 * profile.json rendered into memory and dropped. The first time a process runs that code is twice as slow as the second
 * (classes initialised, constants and call sites resolved: an AOT cache of JDK 25 holds classes,
 * not that), and the launcher's after-job work is time the user waits (benchmarks/README.md,
 * "launcher/"). Only idle CPU: the thread first puts itself in Linux's SCHED_IDLE class
 * ({@link #lowestPriority}), and does nothing if it cannot. It writes nothing anywhere,
 * starts after the job has, and is a daemon that stops at its next step once the job has ended
 * ({@link #stop}); what it made is dropped, so the job's own profile and reports are the same with
 * it or without it ({@code JPMPI_LAUNCHER_WARMUP=off}). It begins {@value #START_AFTER_MS} ms after the
 * job has started, once the job's own start is over. Then, given the job's output directory, the
 * same thread merges the job's own dumps as soon as rank 0 has written them, while the job's launcher
 * takes the job down ({@link EarlyMerge}; off with the warm-up).
 */
final class Warmup {
    private volatile boolean over;
    private volatile boolean done;
    private final EarlyMerge early;

    private Warmup(EarlyMerge early) {
        this.early = early;
    }

    /**
     * Starts the warm-up on a thread of its own, unless it is switched off or this installation has no
     * sample.
     */
    static Optional<Warmup> start(Context ctx) {
        return start(ctx, null);
    }

    /**
     * The same, then the early merge of the dumps of the job whose output directory is {@code dir}
     * (absolute; none if null).
     */
    static Optional<Warmup> start(Context ctx, Path dir) {
        if (Settings.LAUNCHER_WARMUP.value(ctx.env()).filter("off"::equals).isPresent()) {
            return Optional.empty();
        }
        Path sample = ctx.layout().launcherSample();
        if (!RankDumps.present(sample)) {
            return Optional.empty();
        }
        Warmup w = new Warmup(dir == null ? null : new EarlyMerge(dir));
        Thread t = new Thread(() -> w.run(sample), "jpmpi-warmup");
        t.setDaemon(true);
        t.start();
        return Optional.of(w);
    }

    /** The job has ended: the warm-up stops before its next step. */
    void stop() {
        over = true;
    }

    /**
     * After the job (after {@link #stop}): the profile of its dumps, merged while the launcher took the
     * job down, if there is one and it still holds (EarlyMerge#take).
     */
    Optional<Profile> merged() {
        return early == null ? Optional.empty() : early.take();
    }

    /** The early merge's profile so far, without ending anything (tests). */
    Optional<Profile> earlyForTests() {
        return early == null ? Optional.empty() : early.peek();
    }

    /** Whether the warm-up went through every step (tests). */
    boolean done() {
        return done;
    }

    /**
     * How long after the job's start the warm-up begins. The job's start (its launcher starting the
     * ranks, MPI_Init) is when the job wants both cores most: a warm-up begun with it made a 2-rank empty
     * job ~10 ms longer with Open MPI and ~25 ms with MPICH, whose whole job is ~60 ms, too short for
     * the warm-up (~100 ms of idle CPU) to finish and be of use. Begun this much later, neither job was
     * longer, and Open MPI's still had its after-job work warmed and merged early (benchmarks/README.md,
     * "The eighth session").
     */
    static final long START_AFTER_MS = 100;

    private void run(Path sample) {
        try {
            Thread.sleep(START_AFTER_MS);
            if (over || !lowestPriority()) {
                return;
            }
            Profile p = ProfileWriter.mergeDumps(sample); // with its call sites named (addr2line, SCHED_IDLE too)
            if (over) {
                return;
            }
            TextReport.render(p);
            if (over) {
                return;
            }
            HtmlReport.render(p, Map.of());
            if (over) {
                return;
            }
            ProfileJson.write(p, Writer.nullWriter());
            done = true;
        } catch (IOException | RuntimeException e) {
            // a sample this launcher cannot read: no warm-up, nothing else changes
        } catch (InterruptedException e) {
            return; // no warm-up
        }
        if (early != null && !over) {
            early.watch();
        }
    }

    /**
     * Puts the calling thread in Linux's SCHED_IDLE class (a thread has a scheduling policy of its own,
     * its id in /proc/thread-self): {@code chrt --idle}, then the thread's own stat says whether it took.
     * SCHED_IDLE runs only where nothing else wants the CPU, and the processes it starts (addr2line)
     * inherit it. Measured on 2 cores with a 2-rank job (benchmarks/README.md, "launcher/"): the job
     * ~3 ms longer with it, ~7 with nice 19 alone (renice); FFM's {@code setpriority} instead of a
     * program cost ~15 ms of CPU for its first downcall, at the priority not yet lowered.
     */
    static boolean lowestPriority() {
        try {
            String tid = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
            Process p = new ProcessBuilder("chrt", "--idle", "-p", "0", tid).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return policy(Path.of("/proc/thread-self")) == SCHED_IDLE;
        } catch (IOException | RuntimeException e) {
            return false; // no /proc, no chrt: no warm-up
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Linux's number of the SCHED_IDLE policy. */
    static final int SCHED_IDLE = 5;

    /**
     * The scheduling policy of the thread (or process) whose /proc directory is {@code proc}: its stat's
     * field 41 (the name in parentheses, field 2, may hold spaces).
     */
    static int policy(Path proc) throws IOException {
        String stat = Files.readString(proc.resolve("stat"));
        String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(after[41 - 3]);
    }
}
