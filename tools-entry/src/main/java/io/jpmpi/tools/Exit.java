package io.jpmpi.tools;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How the launcher's process ends. {@code System.exit} asks for the {@code java.lang.Runtime} system
 * logger first (it logs exits at level DEBUG since JDK 21), and finding the logger's provider reads
 * every jar of the class path for a service file, on every command: jars the AOT cache had made
 * unnecessary (with picocli's Groovy lookup, off in jvm.options, {@code jpmpi --version} 95 -> 77 ms:
 * benchmarks/README.md, "The sixth session"). The launcher's own shutdown hooks are registered here;
 * while none is, the process ends with {@code Runtime.halt} after its output is flushed, which is
 * what {@code System.exit} would have done after the hooks.
 */
public final class Exit {
    private static final AtomicInteger HOOKS = new AtomicInteger();

    private Exit() {
    }

    /** Registers a shutdown hook (runs when the JVM is stopped by a signal, or ends with hooks). */
    public static void addHook(Thread hook) {
        HOOKS.incrementAndGet();
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Removes a hook {@link #addHook} registered; kept when the JVM is shutting down already. */
    public static void removeHook(Thread hook) {
        try {
            if (Runtime.getRuntime().removeShutdownHook(hook)) {
                HOOKS.decrementAndGet();
            }
        } catch (IllegalStateException shuttingDown) {
            // the hook runs (or has run): the JVM ends through it
        }
    }

    /** Ends the process with {@code status}: halted at once when no hook of the launcher's is registered. */
    static void exit(Context ctx, int status) {
        ctx.out().flush();
        ctx.err().flush();
        System.out.flush();
        System.err.flush();
        if (HOOKS.get() == 0) {
            Runtime.getRuntime().halt(status);
        }
        System.exit(status);
    }
}
