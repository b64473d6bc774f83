package io.jpmpi.tools;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Starting the commands jpmpi wraps. */
public final class Processes {
    /** How long srun gets to end after a Ctrl-C of its own before jpmpi sends it SIGINT (srun: > 1 s). */
    static final long SECOND_INTERRUPT_MS = 1500;
    /** How long a launcher gets to take its job down after SIGTERM before it is killed. */
    static final long TERM_GRACE_SECONDS = 20;
    /** How long jpmpi, told to stop, waits for the work after the job (merging the ranks' dumps). */
    static final long AFTER_SECONDS = 60;

    private Processes() {
    }

    /**
     * Runs {@code command} with the terminal (stdin, stdout, stderr) and returns its exit status
     * (128+N when signal N ended it). If jpmpi itself is told to stop (SIGTERM, SIGINT, SIGHUP) the
     * launcher gets SIGTERM, so it takes its ranks down, and after a grace period what is left of
     * its process tree is killed.
     */
    public static int runForeground(List<String> command, Map<String, String> extraEnv) throws JpmpiException {
        return runForeground(command, extraEnv, () -> { });
    }

    /**
     * As {@link #runForeground(List, Map)}, then {@code after} (the profile's merge and report) once
     * the job has ended, whether it ended by itself or because jpmpi was told to stop: then jpmpi's
     * own end waits for {@code after}, at most {@link #AFTER_SECONDS}.
     */
    public static int runForeground(List<String> command, Map<String, String> extraEnv, Runnable after)
            throws JpmpiException {
        return runForeground(command, extraEnv, after, false);
    }

    /**
     * As {@link #runForeground(List, Map, Runnable)}; with {@code interruptFirst} (srun started with
     * --disable-status) jpmpi's stop is first one SIGINT to the launcher, which passes it to the ranks
     * (each writes its figures and ends), and SIGTERM only if it is still there after the grace period.
     */
    public static int runForeground(List<String> command, Map<String, String> extraEnv, Runnable after,
                                    boolean interruptFirst) throws JpmpiException {
        return runForeground(command, extraEnv, after, interruptFirst, () -> { });
    }

    /**
     * As {@link #runForeground(List, Map, Runnable, boolean)}, with {@code started} run once the command
     * has started (not if it could not), before jpmpi waits for it.
     */
    public static int runForeground(List<String> command, Map<String, String> extraEnv, Runnable after,
                                    boolean interruptFirst, Runnable started) throws JpmpiException {
        ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
        setOver(pb.environment(), extraEnv);
        Process p = start(pb, command);
        started.run();
        return waitForwarding(p, after, interruptFirst);
    }

    /** Runs {@code command} with its output in files; at most {@code seconds}; returns its exit status or -1. */
    public static int runToFiles(List<String> command, Map<String, String> extraEnv, Path stdout, Path stderr,
                                 Path dir, long seconds) throws JpmpiException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.directory(dir.toFile());
        setOver(pb.environment(), extraEnv);
        Process p = start(pb, command);
        try {
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                stop(p);
                return -1;
            }
            return p.exitValue();
        } catch (InterruptedException e) {
            stop(p);
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /**
     * Runs a short query command ({@code ldd}, {@code mpirun --version}) without LD_PRELOAD and
     * returns its stdout and stderr together; at most 30 s. What it said is written down for a plan
     * ({@link Plans.Inputs#ran}): the next job's start from the plan runs it again (plan.c) and
     * compares.
     */
    public static String capture(List<String> command) throws JpmpiException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().remove("LD_PRELOAD");
        Process p;
        try {
            p = start(pb, command);
        } catch (JpmpiException e) {
            Plans.RECORDED.opaque("could not run " + command.get(0));
            throw e;
        }
        try {
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                Plans.RECORDED.opaque("ran " + command.get(0) + " too long");
            } else {
                Plans.RECORDED.ran(command, out);
            }
            return new String(out, java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            Plans.RECORDED.opaque("ran " + command.get(0));
            throw new JpmpiException(ExitCode.CANNOT_START, "cannot read the output of " + String.join(" ", command)
                    + ": " + e.getMessage());
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            Plans.RECORDED.opaque("ran " + command.get(0));
            throw new JpmpiException(ExitCode.INTERNAL, "interrupted: " + String.join(" ", command));
        }
    }

    /** {@code vars} set over {@code env}; a null value unsets its variable (Launcher.Rewritten). */
    static void setOver(Map<String, String> env, Map<String, String> vars) {
        for (Map.Entry<String, String> e : vars.entrySet()) {
            if (e.getValue() == null) {
                env.remove(e.getKey());
            } else {
                env.put(e.getKey(), e.getValue());
            }
        }
    }

    private static Process start(ProcessBuilder pb, List<String> command) throws JpmpiException {
        try {
            return pb.start();
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.CANNOT_START, "cannot start " + command.get(0) + ": " + e.getMessage());
        }
    }

    private static int waitForwarding(Process p, Runnable after, boolean interruptFirst) {
        CountDownLatch finished = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            if (interruptFirst) {
                interrupt(p);
            }
            stop(p);
            try {
                finished.await(AFTER_SECONDS, TimeUnit.SECONDS); // the JVM ends when this hook returns
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "jpmpi-forward-signal");
        Exit.addHook(hook);
        int rc;
        try {
            rc = p.waitFor();
        } catch (InterruptedException e) {
            stop(p);
            Thread.currentThread().interrupt();
            rc = 128 + 2;
        }
        try {
            after.run();
        } finally {
            finished.countDown();
        }
        // (kept when jpmpi is being stopped: the hook has waited for what came after the job)
        Exit.removeHook(hook);
        return rc;
    }

    /**
     * SIGINT to the launcher, then at most the grace period for it to end. Not at once: a Ctrl-C at a
     * terminal reaches the launcher too, and srun takes a second SIGINT within a second as "kill the
     * tasks"; what has ended by then needs nothing more.
     */
    static void interrupt(Process p) {
        try {
            if (p.waitFor(SECOND_INTERRUPT_MS, TimeUnit.MILLISECONDS)) {
                return;
            }
            new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
            p.waitFor(TERM_GRACE_SECONDS, TimeUnit.SECONDS);
        } catch (IOException e) {
            // no kill(1): the launcher gets SIGTERM below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGTERM to the launcher, then SIGKILL to whatever of its tree is left after the grace period. */
    static void stop(Process p) {
        if (!p.isAlive()) {
            return;
        }
        List<ProcessHandle> tree = p.descendants().toList();
        p.destroy();
        try {
            if (!p.waitFor(TERM_GRACE_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        for (ProcessHandle h : tree) {
            h.destroyForcibly();
        }
    }
}
