package io.jpmpi.layering.runtime;

/**
 * What calls to System.exit, Runtime.exit and Runtime.halt in interceptor classes become
 * (LevelClassLoader rewrites them as the classes load): an error thrown back to the upcall, where
 * fault containment reports it and switches the level off, instead of ending the MPI rank.
 */
public final class ExitTrap {
    private ExitTrap() {
    }

    /** Thrown instead of exiting. */
    public static final class ExitAttempt extends Error {
        private static final long serialVersionUID = 1L;

        ExitAttempt(String what, int status) {
            super(what + "(" + status + ") was called; a Java level cannot end the MPI process");
        }
    }

    public static void exit(int status) {
        throw new ExitAttempt("System.exit", status);
    }

    public static void runtimeExit(Runtime runtime, int status) {
        throw new ExitAttempt("Runtime.exit", status);
    }

    public static void runtimeHalt(Runtime runtime, int status) {
        throw new ExitAttempt("Runtime.halt", status);
    }
}
