package io.jpmpi.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The checks of a {@code jpmpi run} program started ahead of the command line's parsing: while
 * picocli makes its model of the command line (the larger part of the launcher's start), a thread of
 * its own reads the words after {@code --} as {@link Job#plan} will, and inspects each program
 * ({@code ldd}; a Python interpreter is asked for mpi4py), which is mostly waiting for those commands.
 * {@link Application#inspect} then takes the answer instead of asking again, if the file is the one
 * that was inspected (same file, size and time). Nothing else changes: a command line that turns out
 * to mean something else leaves the answers unused, and whatever failed ahead is done again in order,
 * so that the run refuses with its own words.
 */
final class Ahead {
    private record Inspection(Object file, CompletableFuture<Application> result) {
    }

    private static final Map<Path, Inspection> STARTED = new ConcurrentHashMap<>();

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
        Thread t = new Thread(() -> inspect(command, env), "jpmpi-ahead");
        t.setDaemon(true);
        t.start();
        return Optional.of(t);
    }

    private static void inspect(List<String> command, Map<String, String> env) {
        try {
            Launcher launcher = Launcher.identify(command.get(0), env);
            for (Path p : Application.find(launcher, command.subList(1, command.size()), env, false)) {
                Optional<Object> file = file(p);
                if (file.isEmpty()) {
                    continue;
                }
                CompletableFuture<Application> result = new CompletableFuture<>();
                STARTED.put(p, new Inspection(file.get(), result));
                try {
                    result.complete(Application.inspectNow(p));
                } catch (JpmpiException | RuntimeException e) {
                    result.completeExceptionally(e);
                }
            }
        } catch (JpmpiException | RuntimeException e) {
            // the run does it again, and says what is wrong
        }
    }

    /** The inspection of {@code path} made ahead, if there is one of this very file that succeeded. */
    static Optional<Application> take(Path path) {
        Inspection i = STARTED.remove(path);
        if (i == null) {
            return Optional.empty();
        }
        try {
            Application a = i.result().join();
            return file(path).filter(i.file()::equals).map(f -> a);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Forgets what was not taken (a command line that meant something else). */
    static void clear() {
        STARTED.clear();
    }

    /** What tells this file from another one at the same path: its identity, size and time. */
    private static Optional<Object> file(Path p) {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            return Optional.of(List.of(String.valueOf(a.fileKey()), a.size(), a.lastModifiedTime()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
