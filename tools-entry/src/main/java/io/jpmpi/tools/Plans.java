package io.jpmpi.tools;

import io.jpmpi.platform.InstallLayout;
import io.jpmpi.platform.Settings;
import io.jpmpi.profilers.report.OwnDirectory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The plans jpmpi run keeps for the next job (tools-entry/README.md, "What `run` does", 9). A
 * job that needs nothing of jpmpi after it (it takes the launcher's place: {@link InPlace}) is planned
 * from a few things only: the command line up to its program, some variables, the working directory
 * where a relative path was resolved,
 * a few files (the launcher, the program, the dispatcher and the tools' libraries, names on PATH before
 * the launcher's, places a library was not, the linker cache), the installation, what the planning asked
 * other programs (the dynamic loader's {@code --list}, a launcher's {@code --version}, python) and what
 * they said. While a run plans, every one of them is written down here as it is read
 * ({@link #RECORDED}); anything read and not written down (a Java level's jar, the whole environment)
 * makes the job's plan one that is not kept.
 *
 * <p>The plan kept is what the job was started with: the launcher's words before the program's own
 * arguments, the variables set for the launcher, the lines said. The next {@code jpmpi run} with the same
 * words up to the program (whatever the program's arguments) checks, in native code
 * ({@code libexec/jpmpi/jpmpi-plan}, before any JVM), that each thing written down is as it was (each
 * command is run again and says the same), and then starts the launcher as this run would have. One thing different, and the JVM plans anew.
 *
 * <p>Kept in {@code $XDG_CACHE_HOME/jpmpi/plans} (else {@code ~/.cache/jpmpi/plans}), a directory of the
 * user's alone ({@link OwnDirectory}), at most {@value #KEPT} plans, the oldest removed first; a file of
 * NUL-terminated words, named by a hash of the words it is for. {@code JPMPI_LAUNCHER_PLANS=off}: none
 * kept or used.
 */
final class Plans {
    /** The first words of a plan file; the native side reads no other version. */
    static final String MAGIC = "jpmpi-plan";
    static final String VERSION = "1";
    /** How many plans a user keeps at most. */
    static final int KEPT = 64;
    /** The most a command run while planning may say for its answer to be written down (plan.c: the same). */
    static final int SAID_MAX = 64 * 1024;

    /** What the planning of this process's run has read: its inputs. */
    static final Inputs RECORDED = new Inputs();

    /** The words bin/jpmpi gave {@link Main#main}: a plan is for them. */
    private static volatile List<String> args;

    private Plans() {
    }

    /** Called by {@link Main#main} only: the command line a plan of this process would be for. */
    static void processArgs(String[] a) {
        args = List.of(a);
    }

    /** What a plan is made from, as the planning read it. Thread-safe: the run's {@link Ahead} reads too. */
    static final class Inputs {
        private final Map<String, String> env = new LinkedHashMap<>();
        private final Map<String, List<Long>> files = new LinkedHashMap<>();
        private final Map<String, String> real = new LinkedHashMap<>();
        private final List<String> notExecutable = new ArrayList<>();
        private final List<String> noFile = new ArrayList<>();
        private final Map<List<String>, byte[]> ran = new LinkedHashMap<>();
        private final List<String> notes = new ArrayList<>();
        private boolean workingDirectory;
        private String opaque;

        /** A variable read: its value, or null when unset. */
        synchronized void env(String name, String value) {
            env.putIfAbsent(name, value);
        }

        /** A file read or checked: the one there now (its identity, size and times); opaque if it cannot be. */
        void file(Path p) {
            Optional<List<Long>> id = FileIdentity.of(p);
            synchronized (this) {
                if (id.isEmpty()) {
                    opaque("cannot tell " + p + " again");
                } else {
                    files.putIfAbsent(p.toAbsolutePath().toString(), id.get());
                }
            }
        }

        /** {@code p} taken for its real path {@code to} (symbolic links followed). */
        synchronized void realPath(Path p, Path to) {
            real.putIfAbsent(p.toAbsolutePath().toString(), to.toString());
        }

        /** A name on PATH found to be no executable file (a launcher or a program sought further on). */
        synchronized void notExecutable(Path p) {
            String s = p.toAbsolutePath().toString();
            if (!notExecutable.contains(s)) {
                notExecutable.add(s);
            }
        }

        /** A path found to be no regular file (a library sought further on, as the dynamic loader seeks it). */
        synchronized void noFile(Path p) {
            String s = p.toAbsolutePath().toString();
            if (!noFile.contains(s)) {
                noFile.add(s);
            }
        }

        /**
         * A command run, which said {@code output} (stdout and stderr together): the native side runs it
         * again as {@link Processes#capture} did and compares what it says, load addresses left out
         * ({@link #steady}). One that said more than {@value #SAID_MAX} bytes, or a NUL, is not written down.
         */
        synchronized void ran(List<String> command, byte[] output) {
            byte[] said = steady(output);
            boolean nul = indexOf(said, (byte) 0) >= 0;
            for (String word : command) { // (no lambda on a job's way: see keep)
                nul |= word.indexOf('\0') >= 0;
            }
            if (said.length > SAID_MAX || nul) {
                opaque("what " + command.get(0) + " said");
            } else if (!ran.containsKey(command)) {
                ran.put(List.copyOf(command), said);
            }
        }

        /** A relative path resolved (a program or a launcher named ./x, a relative directory on PATH). */
        synchronized void workingDirectory() {
            workingDirectory = true;
        }

        /** A line said to the user while planning: said again when the plan is used. */
        synchronized void note(String line) {
            notes.add(line);
        }

        /** The planning depends on something not written down ({@code why}): no plan is kept. */
        synchronized void opaque(String why) {
            if (opaque == null) {
                opaque = why;
            }
        }

        synchronized Optional<String> opaqueWhy() {
            return Optional.ofNullable(opaque);
        }
    }

    /** {@code env} reading through {@link #RECORDED}. Whoever lists the whole of it makes the plan opaque. */
    static Map<String, String> recording(Map<String, String> env) {
        return new RecordingEnv(env);
    }

    private static final class RecordingEnv extends AbstractMap<String, String> {
        private final Map<String, String> env;

        RecordingEnv(Map<String, String> env) {
            this.env = env;
        }

        @Override
        public String get(Object key) {
            String v = env.get(key);
            if (key instanceof String k) {
                RECORDED.env(k, v);
            }
            return v;
        }

        @Override
        public boolean containsKey(Object key) {
            return get(key) != null;
        }

        @Override
        public Set<Map.Entry<String, String>> entrySet() {
            RECORDED.opaque("the whole environment read");
            return env.entrySet();
        }
    }

    /**
     * Keeps the plan of {@code job}, about to take this process's place with {@code launcherEnv} set, when
     * it can be: this is bin/jpmpi's process, plans are on, nothing opaque was read, the launcher's words
     * are the job's. Quietly nothing otherwise (a plan kept is only time saved on the next job).
     */
    static void keep(Context ctx, Job job, Map<String, String> launcherEnv) {
        List<String> words = args;
        // (no lambda on the way: one the launcher's AOT cache has not seen is made on every job)
        if (words == null || "off".equals(Settings.LAUNCHER_PLANS.value(ctx.env()).orElse(""))
                || RECORDED.opaqueWhy().isPresent() || job.entries().hasJava()) {
            return;
        }
        store(ctx, words, job, launcherEnv, RECORDED);
    }

    /**
     * Keeps the plan of {@code job} for {@code words}, made from {@code inputs}, in this user's directory
     * (the launcher's AOT training: into a directory of its own); nothing if it cannot.
     */
    static void store(Context ctx, List<String> words, Job job, Map<String, String> launcherEnv, Inputs inputs) {
        try {
            Optional<Path> dir = directory(ctx.env());
            Optional<byte[]> plan = plan(ctx, words, job, launcherEnv, inputs);
            if (dir.isEmpty() || plan.isEmpty()) {
                return;
            }
            OwnDirectory.make(dir.get().getParent());
            OwnDirectory.make(dir.get());
            int k = keyLength(words, job).orElseThrow();
            Path file = dir.get().resolve(name(words.subList(0, k), InPlace.jnuCharset()));
            // (not Files.createTempFile: its SecureRandom cost the job ~5 ms; a name taken is a plan not kept)
            Path tmp = dir.get().resolve("." + Long.toHexString(System.nanoTime()) + "-"
                    + Integer.toHexString(System.identityHashCode(plan.get())) + ".tmp");
            try (var out = Files.newByteChannel(tmp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
                out.write(java.nio.ByteBuffer.wrap(plan.get()));
            }
            try {
                try {
                    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
            prune(dir.get());
        } catch (IOException | RuntimeException e) {
            // not kept: the next job plans again
        }
    }

    /** Where this user's plans are: $XDG_CACHE_HOME/jpmpi/plans, else $HOME/.cache/jpmpi/plans. */
    static Optional<Path> directory(Map<String, String> env) {
        String xdg = env.get("XDG_CACHE_HOME");
        if (xdg != null && xdg.startsWith("/")) {
            return Optional.of(Path.of(xdg, "jpmpi", "plans"));
        }
        String home = env.get("HOME");
        return home != null && home.startsWith("/") ? Optional.of(Path.of(home, ".cache", "jpmpi", "plans"))
                : Optional.empty();
    }

    /**
     * How many of bin/jpmpi's words a plan of {@code job} is for, when the launcher's words after
     * {@code --} are the job's: up to its one program where the launcher's grammar names one program
     * on the command line alone (the next command line's program arguments are its own); else all of
     * them (MPMD contexts, an appfile, a configfile, a --multi-prog file: the same command line only).
     */
    static OptionalInt keyLength(List<String> words, Job job) {
        int sep = words.indexOf("--");
        if (sep < 0 || sep + 1 >= words.size() || !job.command().get(0).equals(words.get(sep + 1))) {
            return OptionalInt.empty();
        }
        List<String> rest = words.subList(sep + 2, words.size());
        OptionalInt at;
        try {
            at = job.launcher().grammar().soleProgram(rest);
        } catch (JpmpiException e) {
            return OptionalInt.empty();
        }
        if (at.isEmpty()) {
            // (the whole command: nothing of the next command line's is added to it, whatever jpmpi
            // inserted between its words, as Open MPI's -x after each context's separator)
            return OptionalInt.of(words.size());
        }
        if (!words.subList(sep + 1, words.size()).equals(launcherWords(job, words, sep))) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(sep + 2 + at.getAsInt() + 1);
    }

    /** The words the job was planned from (its command's tail is theirs). */
    private static List<String> launcherWords(Job job, List<String> words, int sep) {
        List<String> cmd = job.command();
        int tail = words.size() - sep - 2;
        if (tail < 0 || cmd.size() < tail + 1 || !cmd.get(0).equals(words.get(sep + 1))) {
            return List.of();
        }
        List<String> w = new ArrayList<>();
        w.add(cmd.get(0));
        w.addAll(cmd.subList(cmd.size() - tail, cmd.size()));
        return w;
    }

    /** The plan file's bytes, or empty when the job's command line is not one a plan can be for. */
    static Optional<byte[]> plan(Context ctx, List<String> words, Job job, Map<String, String> launcherEnv,
                                 Inputs inputs) {
        OptionalInt k = keyLength(words, job);
        if (k.isEmpty()) {
            return Optional.empty();
        }
        int tail = words.size() - k.getAsInt();
        List<String> cmd = job.command();
        List<String> before = cmd.subList(0, cmd.size() - tail);
        Layout layout = ctx.layout();
        // the installation: its launcher's classes and properties are what planned
        for (String jar : InstallLayout.LAUNCHER_JARS) {
            inputs.file(layout.appDir().resolve(jar));
        }
        inputs.file(layout.propertiesFile());
        Charset cs = InPlace.jnuCharset();
        Writer w = new Writer(cs);
        w.add(MAGIC).add(VERSION);
        w.add("home").add(layout.home().toString());
        w.add("key").add(Integer.toString(k.getAsInt()));
        for (String word : words.subList(0, k.getAsInt())) {
            w.add(word);
        }
        w.add("separator").add(job.launcher().contextSeparator());
        synchronized (inputs) {
            if (inputs.opaque != null) {
                return Optional.empty();
            }
            if (inputs.workingDirectory) {
                w.add("cwd").add(Path.of("").toAbsolutePath().toString());
            }
            for (Map.Entry<String, String> e : inputs.env.entrySet()) {
                w.add("env").add(e.getKey()).add(e.getValue() == null ? "-" : "=" + e.getValue());
            }
            for (Map.Entry<String, List<Long>> e : inputs.files.entrySet()) {
                w.add("file").add(e.getKey());
                for (long n : e.getValue()) {
                    w.add(Long.toString(n));
                }
            }
            for (Map.Entry<String, String> e : inputs.real.entrySet()) {
                w.add("real").add(e.getKey()).add(e.getValue());
            }
            for (String p : inputs.notExecutable) {
                w.add("notexec").add(p);
            }
            for (String p : inputs.noFile) {
                w.add("nofile").add(p);
            }
            // (last of the checks: the dearest, each a process, made only when everything else holds)
            for (Map.Entry<List<String>, byte[]> e : inputs.ran.entrySet()) {
                w.add("ran").add(Integer.toString(e.getKey().size()));
                for (String word : e.getKey()) {
                    w.add(word);
                }
                w.add(e.getValue());
            }
            for (String n : inputs.notes) {
                w.add("note").add(n);
            }
        }
        for (Map.Entry<String, String> e : launcherEnv.entrySet()) {
            if (e.getValue() == null) {
                w.add("unset").add(e.getKey());
            } else {
                w.add("set").add(e.getKey() + "=" + e.getValue());
            }
        }
        w.add("exec").add(Integer.toString(before.size()));
        for (String word : before) {
            w.add(word);
        }
        w.add("end");
        return Optional.of(w.bytes());
    }

    /** The file name of the plan for {@code key}: FNV-1a (64 bits) of its words, each ended by a NUL. */
    static String name(List<String> key, Charset cs) {
        long h = 0xcbf29ce484222325L;
        for (String word : key) {
            for (byte b : word.getBytes(cs)) {
                h = (h ^ (b & 0xff)) * 0x100000001b3L;
            }
            h *= 0x100000001b3L; // the NUL (h ^ 0 == h)
        }
        return String.format("%016x.plan", h);
    }

    /**
     * What a command said, as a plan compares it: without the load addresses the dynamic loader prints
     * ({@code --list}, {@code ldd}: " (0x7f...)", another at every run), which nothing planned reads.
     * plan.c's {@code steady} is the same rule.
     */
    static byte[] steady(byte[] said) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(said.length);
        int i = 0;
        while (i < said.length) {
            int end = addressEnd(said, i);
            if (end > i) {
                i = end;
            } else {
                out.write(said[i++]);
            }
        }
        return out.toByteArray();
    }

    /** Where " (0x" hex digits ")" starting at {@code i} ends; {@code i} if none starts there. */
    private static int addressEnd(byte[] b, int i) {
        byte[] open = {' ', '(', '0', 'x'};
        if (i + open.length >= b.length) {
            return i;
        }
        for (int k = 0; k < open.length; k++) {
            if (b[i + k] != open[k]) {
                return i;
            }
        }
        int j = i + open.length;
        int digits = j;
        while (j < b.length && Character.digit(b[j], 16) >= 0) {
            j++;
        }
        return j > digits && j < b.length && b[j] == ')' ? j + 1 : i;
    }

    private static int indexOf(byte[] b, byte v) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] == v) {
                return i;
            }
        }
        return -1;
    }

    /** Keeps the {@value #KEPT} newest plans. */
    private static void prune(Path dir) throws IOException {
        List<Path> plans = new ArrayList<>();
        try (var s = Files.newDirectoryStream(dir, "*.plan")) {
            for (Path p : s) {
                plans.add(p);
            }
        }
        if (plans.size() <= KEPT) {
            return;
        }
        Map<Path, FileTime> when = new LinkedHashMap<>();
        for (Path p : plans) {
            try {
                when.put(p, Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS));
            } catch (IOException e) {
                // gone already
            }
        }
        List<Path> oldest = new ArrayList<>(when.keySet());
        oldest.sort(Comparator.comparing(when::get));
        for (Path p : oldest.subList(0, Math.max(0, oldest.size() - KEPT))) {
            Files.deleteIfExists(p);
        }
    }

    /** NUL-terminated words. A word with a NUL in it cannot be written: the plan is then not kept. */
    private static final class Writer {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        private final Charset cs;
        private boolean bad;

        Writer(Charset cs) {
            this.cs = cs;
        }

        Writer add(String word) {
            return add(word.getBytes(cs));
        }

        /** A word as bytes (what a command said, as it said it). */
        Writer add(byte[] word) {
            if (indexOf(word, (byte) 0) >= 0) {
                bad = true;
            }
            out.writeBytes(word);
            out.write(0);
            return this;
        }

        byte[] bytes() {
            if (bad) {
                throw new IllegalArgumentException("a word with a NUL");
            }
            return out.toByteArray();
        }
    }
}
