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

    public static String start(long bridgeAddress, String[] jars, int[] levels) {
        int current = -1;
        try {
            Bridge bridge = Bridge.init(bridgeAddress);
            // The application owns stdout: whatever Java levels print goes to stderr.
            System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
            Class.forName("io.jpmpi.layering.Interceptor", true, Boot.class.getClassLoader());
            LevelTable runtime = new LevelTable(bridge);
            for (int i = 0; i < jars.length; i++) {
                current = levels[i];
                runtime.levels.add(JavaLevel.load(runtime, levels[i], jars[i]));
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
}
