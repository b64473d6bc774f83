package io.jpmpi.tools;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;

/** Runs jpmpi in this JVM, as the tests' picocli runs: exit status, stdout and stderr captured. */
record Cli(int exit, String out, String err) {
    static Cli run(String... args) {
        return run(Map.of(), args);
    }

    /** With {@code extraEnv} added to (or, for empty values, removed from) this process's environment. */
    static Cli run(Map<String, String> extraEnv, String... args) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.remove("JPMPI_TOOLS_ENTRY");
        extraEnv.forEach((k, v) -> {
            if (v.isEmpty()) {
                env.remove(k);
            } else {
                env.put(k, v);
            }
        });
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Context ctx = new Context(Layout.current(), env, new PrintWriter(out, true), new PrintWriter(err, true));
        int exit = JpmpiCommand.execute(ctx, args);
        return new Cli(exit, out.toString(), err.toString());
    }

    String describe() {
        return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
