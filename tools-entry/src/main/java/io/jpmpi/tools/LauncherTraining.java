package io.jpmpi.tools;

import io.jpmpi.profilers.profile.RankDumps;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The training run of the launcher's own AOT cache ({@link AotCache#makeLauncher}): what a user's
 * {@code jpmpi run --tools profile -- mpirun -np 2 ./app} does, done for real in this one JVM so that
 * the classes it loads and links are in the cache: the version line, then per MPI this installation
 * was built for whose launcher is installed, a 2-rank job of the smallest MPI program
 * (libexec/jpmpi/&lt;mpi&gt;/jpmpi-mpit-probe; with {@code exchange} it sends messages of several sizes
 * and makes a few collective calls, as a job's profile usually has) with the profile tool (its checks,
 * the launch, the ranks' dumps merged into profile.json, both reports rendered), {@code jpmpi report} of that
 * directory, and a dry run with the accounting tool; then what a job with that tool does before it takes
 * the launcher's process ({@link InPlace}), all but the exec. Before that, the first such job is run once as
 * the launcher would start it, and its ranks' dumps are kept as the sample {@link Warmup} merges
 * while a user's job runs ({@link Layout#launcherSample}), so that the warm-up is trained too.
 * Nothing is printed; a step that fails (no MPI on the build machine) only leaves its classes (or the
 * sample) out. With the argument {@link #RUN}, the training of the launcher's cache for a run without
 * the profile tool: the dry runs with the accounting tool and the step before the exec alone.
 */
final class LauncherTraining {
    /** The argument of the training of the launcher's cache for a run without the profile tool. */
    static final String RUN = "run";

    private LauncherTraining() {
    }

    public static void main(String[] args) throws IOException {
        boolean runOnly = args.length > 0 && args[0].equals(RUN);
        PrintWriter nowhere = new PrintWriter(Writer.nullWriter());
        // (the environment as Context.ofProcess reads it, for a run's plan)
        Context ctx = new Context(Layout.current(), Plans.recording(System.getenv()), nowhere, nowhere);
        Path dir = Files.createTempDirectory("jpmpi-launcher-training-");
        List<List<String>> steps = new ArrayList<>();
        if (!runOnly) {
            steps.add(List.of("--version"));
        }
        boolean sample = false;
        List<String> rehearse = null;
        for (MpiImpl impl : MpiImpl.values()) {
            Path probe = ctx.layout().mpitProbe(impl);
            if (!Files.isExecutable(probe) || !Files.isRegularFile(ctx.layout().dispatcher(impl.id()))) {
                continue;
            }
            Path out = dir.resolve(impl.id());
            List<String> job = new ArrayList<>(List.of(impl.mpirun()));
            job.addAll(impl.ranksArgs(2));
            job.addAll(List.of(probe.toString(), "exchange")); // messages, collectives: a job's usual profile
            if (!runOnly) {
                if (!sample) {
                    sample = keepSample(ctx, job, dir.resolve("sample"));
                }
                List<String> run = new ArrayList<>(List.of("run", "--tools", "profile", "--output", out.toString(), "--"));
                run.addAll(job);
                steps.add(run);
                steps.add(List.of("report", "--quiet", out.toString()));
            }
            List<String> dry = new ArrayList<>(List.of("run", "--dry-run", "--tools", "accounting", "--"));
            dry.addAll(job);
            steps.add(dry);
            rehearse = rehearse != null ? rehearse : job;
        }
        for (List<String> step : steps) {
            try {
                Main.execute(ctx, step.toArray(String[]::new));
            } catch (RuntimeException e) {
                // a step that cannot run here: its classes are left out, the others are not
            }
        }
        if (rehearse != null) {
            // what jpmpi run does before it becomes a job's launcher (InPlace), all but the exec
            InPlace.rehearse(ctx, rehearse, AsRoot.allowance(ctx, Launcher.Kind.OPEN_MPI));
            keepPlan(ctx, rehearse, dir.resolve("cache"));
        }
        // and Main.main's end (Exit: a dry run's), which Main.execute does not reach
        Exit.removeHook(new Thread(() -> { }));
        removeTree(dir);
    }

    /** The plan of a job with the accounting tool kept as a run keeps it ({@link Plans}), into {@code cache}. */
    private static void keepPlan(Context ctx, List<String> job, Path cache) {
        Map<String, String> env = new LinkedHashMap<>(ctx.env());
        env.put("XDG_CACHE_HOME", cache.toString());
        Context in = new Context(ctx.layout(), env, ctx.out(), ctx.err());
        List<String> words = new ArrayList<>(List.of("run", "--tools", "accounting", "--"));
        words.addAll(job);
        try {
            Job planned = Job.plan(in.layout(), new Job.Request(job, "accounting", null, Optional.empty(), true), env);
            Plans.store(in, words, planned, AsRoot.allowance(in, planned.launcher().kind()), new Plans.Inputs());
        } catch (JpmpiException | RuntimeException e) {
            // no plan: its classes are left out
        }
    }

    /**
     * Runs {@code job} with the profile tool as {@code jpmpi run} starts it, into {@code out}, and puts its
     * ranks' dumps (ranks/) and call-site tables (sites/) in place as the launcher's sample, replacing the
     * one there; whether it did.
     */
    private static boolean keepSample(Context ctx, List<String> job, Path out) {
        try {
            Job planned = Job.plan(ctx.layout(), new Job.Request(job, "profile", out, Optional.empty(), true), ctx.env());
            Map<String, String> env = new LinkedHashMap<>(planned.launcherEnv());
            env.putAll(AsRoot.allowance(ctx, planned.launcher().kind()));
            Files.createDirectories(out);
            Path logs = out.resolveSibling(out.getFileName() + "-output");
            Files.createDirectories(logs);
            int rc = Processes.runToFiles(planned.command(), env, logs.resolve("stdout"), logs.resolve("stderr"), logs,
                    120);
            if (rc != 0 || !RankDumps.present(out)) {
                return false;
            }
            Path sample = ctx.layout().launcherSample();
            if (Files.exists(sample)) {
                removeTree(sample);
            }
            for (String sub : List.of("ranks", "sites")) { // the dumps, the call sites' tables
                if (!Files.isDirectory(out.resolve(sub))) {
                    continue;
                }
                Files.createDirectories(sample.resolve(sub));
                try (var files = Files.list(out.resolve(sub))) {
                    for (Path f : files.filter(Files::isRegularFile).toList()) {
                        Files.copy(f, sample.resolve(sub).resolve(f.getFileName()));
                    }
                }
            }
            return true;
        } catch (JpmpiException | IOException | RuntimeException e) {
            return false; // no sample: no warm-up
        }
    }

    private static void removeTree(Path dir) throws IOException {
        try (var all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
