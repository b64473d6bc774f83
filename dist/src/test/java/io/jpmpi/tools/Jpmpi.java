package io.jpmpi.tools;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs bin/jpmpi (the script, a real process) for the end-to-end tests. */
final class Jpmpi {
    static final Path HOME = Path.of(System.getProperty("jpmpi.home")).toAbsolutePath().normalize();
    static final Path RUNS = Path.of(System.getProperty("jpmpi.test.runs.dir", "target/it-runs")).toAbsolutePath();

    private Jpmpi() {
    }

    record Result(int exit, String out, String err, Path dir) {
        String describe() {
            return "exit " + exit + " (files in " + dir + ")\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** A process builder for {@code script} (bin/jpmpi of some home) with a clean environment. */
    static ProcessBuilder builder(Path script, Map<String, String> env, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(script.toString());
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Map<String, String> e = pb.environment();
        e.keySet().removeIf(k -> k.startsWith("JPMPI_") || k.equals("LD_PRELOAD") || k.startsWith("OMPI_MCA_"));
        e.put("JAVA_HOME", System.getProperty("java.home"));
        e.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        e.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        e.putAll(env);
        return pb;
    }

    static Result run(List<String> args) {
        return run(HOME.resolve("bin/jpmpi"), Map.of(), args);
    }

    static Result run(Map<String, String> env, List<String> args) {
        return run(HOME.resolve("bin/jpmpi"), env, args);
    }

    /** Runs to the end (at most 10 minutes: demo may build). */
    static Result run(Path script, Map<String, String> env, List<String> args) {
        try {
            Files.createDirectories(RUNS);
            Path dir = Files.createTempDirectory(RUNS, "jpmpi-");
            Path out = dir.resolve("stdout.txt");
            Path err = dir.resolve("stderr.txt");
            Process p = builder(script, env, args).directory(dir.toFile()).redirectOutput(out.toFile())
                    .redirectError(err.toFile()).start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor();
            }
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err), dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
