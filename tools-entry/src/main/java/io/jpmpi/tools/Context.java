package io.jpmpi.tools;

import java.io.PrintWriter;
import java.util.Map;

/**
 * What a command works with: the installation, the environment and where to print. Tests make
 * their own; {@link Main} uses the process's.
 */
public record Context(Layout layout, Map<String, String> env, PrintWriter out, PrintWriter err) {
    public static Context ofProcess() {
        return new Context(Layout.current(), Plans.recording(System.getenv()), new PrintWriter(System.out, true),
                new PrintWriter(System.err, true));
    }

    /** A line of jpmpi's own on stderr (stdout stays the wrapped program's): a refusal or a note. */
    public void note(String line) {
        Plans.RECORDED.note(line);
        err.println("jpmpi: " + line);
        err.flush();
    }
}
