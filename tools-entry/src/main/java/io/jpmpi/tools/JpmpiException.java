package io.jpmpi.tools;

/** A refusal with one line for the user and the exit status that says which kind it is. */
public final class JpmpiException extends Exception {
    private static final long serialVersionUID = 1L;

    private final ExitCode exit;

    public JpmpiException(ExitCode exit, String message) {
        super(message);
        this.exit = exit;
    }

    public ExitCode exit() {
        return exit;
    }
}
