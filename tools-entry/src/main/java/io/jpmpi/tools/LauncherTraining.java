package io.jpmpi.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The training run of the launcher's own AOT cache ({@link AotCache#makeLauncher}): what a user's
 * {@code jpmpi run --tools profile -- mpirun -np 2 ./app} does, done for real in this one JVM so that
 * the classes it loads and links are in the cache: the version line, then per MPI this installation
 * was built for whose launcher is installed, a 2-rank job of the smallest MPI program
 * (libexec/jpmpi/&lt;mpi&gt;/jpmpi-mpit-probe; with {@code exchange} it sends messages of several sizes
 * and makes a few collective calls, as a job's profile usually has) with the profile tool (its checks,
 * the launch, the ranks' dumps merged into profile.json, both reports rendered), {@code jpmpi report} of that
 * directory, and a dry run with the accounting tool. Nothing is printed; a step that fails (no MPI
 * on the build machine) only leaves its classes out of the cache.
 */
final class LauncherTraining {
    private LauncherTraining() {
    }

    public static void main(String[] args) throws IOException {
        PrintWriter nowhere = new PrintWriter(Writer.nullWriter());
        Context ctx = new Context(Layout.current(), System.getenv(), nowhere, nowhere);
        Path dir = Files.createTempDirectory("jpmpi-launcher-training-");
        List<List<String>> steps = new ArrayList<>();
        steps.add(List.of("--version"));
        for (MpiImpl impl : MpiImpl.values()) {
            Path probe = ctx.layout().mpitProbe(impl);
            if (!Files.isExecutable(probe) || !Files.isRegularFile(ctx.layout().dispatcher(impl.id()))) {
                continue;
            }
            Path out = dir.resolve(impl.id());
            List<String> job = new ArrayList<>(List.of(impl.mpirun()));
            job.addAll(impl.ranksArgs(2));
            job.addAll(List.of(probe.toString(), "exchange")); // messages, collectives: a job's usual profile
            List<String> run = new ArrayList<>(List.of("run", "--tools", "profile", "--output", out.toString(), "--"));
            run.addAll(job);
            steps.add(run);
            steps.add(List.of("report", "--quiet", out.toString()));
            List<String> dry = new ArrayList<>(List.of("run", "--dry-run", "--tools", "accounting", "--"));
            dry.addAll(job);
            steps.add(dry);
        }
        for (List<String> step : steps) {
            try {
                Main.execute(ctx, step.toArray(String[]::new));
            } catch (RuntimeException e) {
                // a step that cannot run here: its classes are left out, the others are not
            }
        }
        removeTree(dir);
    }

    private static void removeTree(Path dir) throws IOException {
        try (var all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
