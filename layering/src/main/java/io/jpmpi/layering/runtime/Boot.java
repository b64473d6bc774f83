package io.jpmpi.layering.runtime;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;

/**
 * Entry point of the JVM the dispatcher creates (core/java.c calls {@link #start} through JNI,
 * once, at the first MPI call of the process). Loads each jar as a level, installs the upcall
 * stubs, relinks the chain. Never throws: a failure comes back as "level index TAB reason" and
 * the dispatcher stops the rank with that one line.
 */
public final class Boot {
    private Boot() {
    }

    /**
     * Starts the Java levels: {@code jars[i]} is the level at index {@code levels[i]};
     * {@code slotNames} are the names of the bridge's slots (the core makes them through JNI, faster
     * than reading them from native memory in the cold JVM; null: read them from the bridge);
     * {@code registered}: the core registered the bridge's call function as a JNI native method
     * (otherwise it is called through a downcall handle); {@code jars[i]} is the path's bytes, and
     * {@code fds[i]} a descriptor open on it, or -1 (see {@link LevelJar}).
     */
    public static String start(long bridgeAddress, String[] slotNames, boolean registered, byte[][] jars, int[] levels,
            int[] fds) {
        int current = -1;
        try {
            Bridge bridge = Bridge.init(bridgeAddress, slotNames, registered);
            // The application owns stdout: whatever Java levels print goes to stderr.
            System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
            // An exception a level's own thread does not catch: one line naming the level, not a trace.
            Thread.setDefaultUncaughtExceptionHandler(Boot::uncaught);
            Class.forName("io.jpmpi.layering.Interceptor", true, Boot.class.getClassLoader());
            LevelTable runtime = new LevelTable(bridge);
            for (int i = 0; i < jars.length; i++) {
                current = levels[i];
                runtime.levels.add(JavaLevel.load(runtime, levels[i], LevelJar.of(jars[i], fds[i])));
            }
            for (JavaLevel l : runtime.levels) {
                current = l.index;
                l.install();
            }
            current = -1;
            runtime.relink();
            return null;
        } catch (JavaLevel.LevelException e) {
            return current + "\t" + e.getMessage();
        } catch (Throwable t) {
            return current + "\tthe jpmpi Java runtime failed: " + JavaLevel.oneLine(t.toString());
        }
    }

    /** The JVM's handler of last resort: which level's thread, what it threw, on one line. */
    static void uncaught(Thread thread, Throwable e) {
        String level = null;
        for (StackTraceElement f : e.getStackTrace()) {
            String loader = f.getClassLoaderName();
            if (loader != null && loader.startsWith("level ")) {
                level = loader;
                break;
            }
        }
        if (level == null && thread.getContextClassLoader() instanceof LevelClassLoader l && l.getName() != null) {
            level = l.getName();
        }
        String line = (level != null ? level : "a Java level") + ": uncaught " + JavaLevel.oneLine(e.toString())
                + " in its thread '" + thread.getName() + "'; that thread ended, the level goes on";
        try {
            Bridge.get().message(line);
        } catch (Throwable failed) {
            System.err.println("jpmpi: " + line);
        }
    }
}
