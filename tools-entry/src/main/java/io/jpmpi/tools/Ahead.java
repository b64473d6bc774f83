package io.jpmpi.tools;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The checks of a {@code jpmpi run} program started ahead of the command line's parsing: while
 * picocli makes its model of the command line (the larger part of the launcher's start), a thread of
 * its own reads the words after {@code --} as {@link Job#plan} will, and inspects each program
 * (its ELF headers, or its dynamic loader; a Python interpreter is asked for mpi4py), which is mostly
 * waiting for those commands.
 * {@link Application#inspect} then takes the answer instead of asking again, if the file is the one
 * that was inspected (same file, size and time). Nothing else changes: a command line that turns out
 * to mean something else leaves the answers unused, and whatever failed ahead is done again in order,
 * so that the run refuses with its own words.
 */
final class Ahead {
    private record Inspection(Object file, CompletableFuture<Application> result) {
    }

    private static final Map<Path, Inspection> STARTED = new ConcurrentHashMap<>();
    /** How long a take waits for the list at most (a launcher asked for its version is on the way). */
    static final int LIST_SECONDS = 10;
    /** How long a take waits for an inspection at most (its commands have 30 s each). */
    static final int INSPECT_SECONDS = 90;
    /**
     * Done once the thread has listed the programs it inspects (in {@link #STARTED}): until then a
     * {@link #take} waits for the list, so that the run does not inspect a program a second time
     * because it came to it first (the list is made in a few milliseconds, an inspection's command
     * takes longer).
     */
    private static volatile CompletableFuture<Void> listed = CompletableFuture.completedFuture(null);

    private Ahead() {
    }

    /**
     * For {@code run ... -- LAUNCHER ARGS...}: starts inspecting its programs and returns the thread
     * that does; otherwise nothing.
     */
    static Optional<Thread> start(String[] args, Map<String, String> env) {
        List<String> words = List.of(args);
        int sep = words.indexOf("--");
        if (words.isEmpty() || !words.get(0).equals("run") || sep < 0 || sep + 1 == words.size()) {
            return Optional.empty();
        }
        List<String> command = words.subList(sep + 1, words.size());
        CompletableFuture<Void> list = new CompletableFuture<>();
        listed = list;
        Thread t = new Thread(() -> inspect(command, env, list), "jpmpi-ahead");
        t.setDaemon(true);
        t.start();
        // The JDK's first start of a process asks for the system logger "java.lang.ProcessBuilder" (it
        // logs starts at DEBUG since JDK 21), which finds the logging backend through every jar of the
        // class path: ~7 ms on the launcher's cold JVM, asked on a thread of its own beside picocli's
        // model and the inspections, rather than by the job's start (benchmarks/README.md, "launcher/").
        // Asking whether it logs at DEBUG, as the start does, also starts java.util.logging's LogManager
        // and makes the logger itself (~3 ms more); the redirects' class is the start's too.
        Thread logger = new Thread(() -> {
            try {
                System.getLogger("java.lang.ProcessBuilder").isLoggable(System.Logger.Level.DEBUG);
                Objects.requireNonNull(ProcessBuilder.Redirect.INHERIT);
            } catch (RuntimeException | Error e) {
                // the start of a process asks again, and says what is wrong
            }
        }, "jpmpi-ahead-logger");
        logger.setDaemon(true);
        logger.start();
        return Optional.of(t);
    }

    private static void inspect(List<String> command, Map<String, String> env, CompletableFuture<Void> list) {
        Map<Path, Inspection> programs = new LinkedHashMap<>();
        try {
            Launcher launcher = Launcher.identify(command.get(0), env);
            for (Path p : Application.find(launcher, command.subList(1, command.size()), env, false)) {
                Optional<List<Long>> file = FileIdentity.of(p);
                if (file.isPresent()) {
                    Inspection i = new Inspection(file.get(), new CompletableFuture<>());
                    STARTED.put(p, i);
                    programs.put(p, i);
                }
            }
        } catch (JpmpiException | RuntimeException e) {
            // the run does it again, and says what is wrong
        } finally {
            list.complete(null);
        }
        // (each listed program is inspected, taken already or not: a take waits for it)
        programs.forEach((p, i) -> {
            try {
                i.result().complete(Application.inspectNow(p));
            } catch (JpmpiException | RuntimeException | Error e) {
                i.result().completeExceptionally(e);
            }
        });
    }

    /** The inspection of {@code path} made ahead, if there is one of this very file that succeeded. */
    static Optional<Application> take(Path path) {
        try {
            listed.get(LIST_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return Optional.empty(); // (never failed; not listed by then: the run inspects it itself)
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        Inspection i = STARTED.remove(path);
        if (i == null) {
            return Optional.empty();
        }
        try {
            Application a = i.result().get(INSPECT_SECONDS, TimeUnit.SECONDS);
            return FileIdentity.of(path).filter(i.file()::equals).map(f -> a);
        } catch (ExecutionException | TimeoutException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** Forgets what was not taken (a command line that meant something else). */
    static void clear() {
        STARTED.clear();
        listed.complete(null);
    }

}
