package io.jpmpi.tools;

import io.jpmpi.platform.Settings;
import io.jpmpi.profilers.profile.RankDumps;
import io.jpmpi.profilers.report.HtmlReport;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.profilers.report.ProfileWriter;
import io.jpmpi.profilers.report.TextReport;
import java.io.IOException;
import java.io.Writer;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * While a {@code jpmpi run} job runs, the launcher's work for after it, done once on a sample: the
 * ranks' dumps of a small job (made at install time with the launcher's AOT cache,
 * {@link Layout#launcherSample}) merged, its call sites named, and report.txt, report.html and
 * profile.json rendered into memory and dropped. The first time a process runs that code is twice as slow as the second
 * (classes initialised, constants and call sites resolved: an AOT cache of JDK 25 holds classes,
 * not that), and the launcher's after-job work is time the user waits (benchmarks/README.md,
 * "launcher/"). Only idle CPU: the thread first lowers its own priority to nice 19 (Linux:
 * {@code setpriority} of its thread id), and does nothing if it cannot. It writes nothing anywhere,
 * starts after the job has, and is a daemon that stops at its next step once the job has ended
 * ({@link #stop}); what it made is dropped, so the job's own profile and reports are the same with
 * it or without it ({@code JPMPI_LAUNCHER_WARMUP=off}).
 */
final class Warmup {
    /** The lowest priority (the highest nice value) of Linux. */
    static final int NICE = 19;

    private volatile boolean over;
    private volatile boolean done;

    private Warmup() {
    }

    /**
     * Starts the warm-up on a thread of its own, unless it is switched off or this installation has no
     * sample.
     */
    static Optional<Warmup> start(Context ctx) {
        if (Settings.LAUNCHER_WARMUP.value(ctx.env()).filter("off"::equals).isPresent()) {
            return Optional.empty();
        }
        Path sample = ctx.layout().launcherSample();
        if (!RankDumps.present(sample)) {
            return Optional.empty();
        }
        Warmup w = new Warmup();
        Thread t = new Thread(() -> w.run(sample), "jpmpi-warmup");
        t.setDaemon(true);
        t.start();
        return Optional.of(w);
    }

    /** The job has ended: the warm-up stops before its next step. */
    void stop() {
        over = true;
    }

    /** Whether the warm-up went through every step (tests). */
    boolean done() {
        return done;
    }

    private void run(Path sample) {
        try {
            if (!lowestPriority()) {
                return;
            }
            Profile p = ProfileWriter.mergeDumps(sample); // with its call sites named (addr2line, at nice 19 too)
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
        }
    }

    /** Lowers the calling thread's priority to nice {@value #NICE}; whether it could. */
    @SuppressWarnings("restricted")
    static boolean lowestPriority() {
        try {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            Optional<java.lang.foreign.MemorySegment> gettid = libc.find("gettid");
            Optional<java.lang.foreign.MemorySegment> setpriority = libc.find("setpriority");
            if (gettid.isEmpty() || setpriority.isEmpty()) {
                return false;
            }
            MethodHandle tid = linker.downcallHandle(gettid.get(), FunctionDescriptor.of(ValueLayout.JAVA_INT));
            MethodHandle set = linker.downcallHandle(setpriority.get(), FunctionDescriptor.of(ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
            int id = (int) tid.invokeExact();
            return (int) set.invokeExact(PRIO_PROCESS, id, NICE) == 0;
        } catch (Throwable t) {
            return false;
        }
    }

    /** setpriority's "which" for one process or, on Linux, one thread (its id). */
    private static final int PRIO_PROCESS = 0;
}
