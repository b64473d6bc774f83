package io.jpmpi.tools;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * {@code jpmpi run} becoming the job's launcher: when its tools need nothing of it after the job (no
 * profile to merge and report), the launcher's process executes the MPI launcher in its place, as
 * {@code exec mpirun ...} does in a shell script, instead of starting it as a child and waiting
 * (tools-entry/README.md, "What `run` does", 7). The job then has no JVM beside it (its
 * start and end, its memory), the launcher receives the user's signals itself, and jpmpi's exit
 * status is the launcher's own, as without jpmpi. The exec is native code ({@code lib/libjpmpi-inplace.so},
 * JNI: FFM's first downcall costs more than the whole step saves), which also gives the new image the
 * signal mask the process started with and the descriptors it started with (0, 1, 2 and those bin/jpmpi was
 * given), none of the JVM's own.
 */
final class InPlace {
    /** The system property bin/jpmpi gives the signals ignored when it started in: its SigIgn, in hex. */
    static final String IGNORED_PROPERTY = "jpmpi.ignored.signals";
    /** The system property bin/jpmpi's helper gives the descriptors above 2 the process started with: N,N,... */
    static final String INHERITED_PROPERTY = "jpmpi.inherited.fds";
    /** SIGQUIT's bit in SigIgn (bit N-1 for signal N). */
    private static final long SIGQUIT_BIT = 1L << (3 - 1);
    /** Set by {@link Main#main} only: this JVM is bin/jpmpi's process, not a test's or the AOT training's. */
    private static volatile boolean ours;

    private InPlace() {
    }

    /** This JVM is the launcher's own process (bin/jpmpi): a job may take its place. */
    static void processIsOurs() {
        ours = true;
    }

    /** Whether {@link #replace} would take this process's place: bin/jpmpi's process, with the library. */
    static boolean possible(Context ctx) {
        return ours && java.nio.file.Files.isRegularFile(ctx.layout().inPlaceLibrary());
    }

    private static native int exec(byte[][] argv, byte[][] vars, long ignored, int[] keep);

    /** The C library's words for {@code errno}. */
    private static native String strerror(int errno);

    /**
     * Replaces this process with {@code command}, with {@code vars} set over its environment (a null value:
     * unset). Returns,
     * having done nothing, when it cannot be done here (not bin/jpmpi's process, or the installation has
     * no {@code lib/libjpmpi-inplace.so}): then the job is started as a child. Never returns otherwise:
     * when the exec fails, says why, as a child that cannot start would.
     */
    static void replace(Context ctx, List<String> command, Map<String, String> vars) throws JpmpiException {
        if (!ours) {
            return;
        }
        byte[][][] words = prepare(ctx, command, vars);
        if (words == null) {
            return;
        }
        ctx.out().flush();
        ctx.err().flush();
        System.out.flush();
        System.err.flush();
        int errno = exec(words[0], words[1], ignoredAtStart(), inheritedAtStart());
        throw new JpmpiException(ExitCode.CANNOT_START, "cannot start " + command.get(0) + ": " + strerror(errno));
    }

    /**
     * All that {@link #replace} does before the exec, for the launcher's AOT training (so that its
     * classes are in the cache, as the dry run's are); whether the library is there.
     */
    static boolean rehearse(Context ctx, List<String> command, Map<String, String> vars) {
        return prepare(ctx, command, vars) != null;
    }

    /**
     * The library loaded, and the command's words and the variables (NAME=VALUE) as ProcessBuilder would
     * have passed them, in the JVM's encoding of file names; null without the library.
     */
    private static byte[][][] prepare(Context ctx, List<String> command, Map<String, String> vars) {
        try {
            System.load(ctx.layout().inPlaceLibrary().toString());
        } catch (UnsatisfiedLinkError e) {
            return null;
        }
        Charset cs = jnuCharset();
        byte[][] argv = new byte[command.size()][];
        for (int i = 0; i < argv.length; i++) {
            argv[i] = command.get(i).getBytes(cs);
        }
        byte[][] set = new byte[vars.size()][];
        int i = 0;
        for (Map.Entry<String, String> e : vars.entrySet()) {
            // (NAME alone: unset; inplace.c)
            set[i++] = (e.getValue() == null ? e.getKey() : e.getKey() + "=" + e.getValue()).getBytes(cs);
        }
        return new byte[][][] {argv, set};
    }

    /**
     * The signals ignored when bin/jpmpi started (bit N-1 for signal N, the SigIgn of /proc/PID/status),
     * less SIGQUIT, which bash ignores itself; 0 when it did not say.
     */
    static long ignoredAtStart() {
        String hex = System.getProperty(IGNORED_PROPERTY, "").trim();
        if (hex.isEmpty()) {
            return 0;
        }
        try {
            return Long.parseUnsignedLong(hex, 16) & ~SIGQUIT_BIT;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * The descriptors above 2 the process started with (libexec/jpmpi/jpmpi-plan says which), which the
     * launcher gets as it would from the shell; none when it did not say.
     */
    static int[] inheritedAtStart() {
        String[] words = System.getProperty(INHERITED_PROPERTY, "").split(",");
        int[] fds = new int[words.length];
        int n = 0;
        for (String w : words) {
            try {
                int fd = Integer.parseInt(w.trim());
                if (fd > 2) {
                    fds[n++] = fd;
                }
            } catch (NumberFormatException e) {
                // not a descriptor: left out
            }
        }
        return java.util.Arrays.copyOf(fds, n);
    }

    static Charset jnuCharset() {
        try {
            return Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
        } catch (IllegalArgumentException e) {
            return StandardCharsets.UTF_8;
        }
    }
}
