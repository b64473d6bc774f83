package io.jpmpi.tools;

/** Entry point of bin/jpmpi. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        Context ctx = Context.ofProcess();
        InPlace.processIsOurs();
        Plans.processArgs(args);
        Exit.exit(ctx, execute(ctx, args));
    }

    /**
     * Runs {@code args}; returns the exit status. The launcher's AOT training comes in here too
     * ({@link LauncherTraining}), so that this class is in the cache with the rest.
     */
    static int execute(Context ctx, String... args) {
        return JpmpiCommand.execute(ctx, args);
    }
}
