package io.jpmpi.tools;

/**
 * Every exit status of {@code jpmpi}, in one place. {@code jpmpi run} otherwise returns the
 * launcher's own status; the codes from 64 up mean that jpmpi refused to start anything.
 */
public enum ExitCode {
    OK(0, "success"),
    CHECKS_FAILED(1, "doctor: at least one check failed (each FAIL line says how to fix it)"),
    USAGE(64, "bad command line: unknown subcommand or option, bad option value"),
    NO_SEPARATOR(65, "run: the launcher command must follow `--`"),
    UNKNOWN_LAUNCHER(66, "run: the word after `--` is not an MPI launcher jpmpi knows, or is not installed"),
    BAD_ENTRY(67, "an entry of the tool list does not resolve (missing file, not a tool, unknown name)"),
    NOT_MPI(68, "the application is not an MPI program (or cannot be found among the launcher's arguments)"),
    MPI_MISMATCH(69, "the launcher and the application belong to different MPI implementations"),
    NOT_BUILT(70, "a part of jpmpi is not built or not installed (dispatcher, Java runtime, demo)"),
    NO_JDK(71, "no usable JDK >= 22 for the ranks' Java levels"),
    CANNOT_START(72, "a command jpmpi runs could not be started or failed (compiler, launcher, build)"),
    INTERNAL(73, "a bug in jpmpi (please report it with the command line)"),
    BAD_PROFILE(74, "report: no profile in the directory, or one that cannot be read (truncated, malformed), or"
            + " its reports cannot be written"),
    BAD_RECORDS(75, "accounting summary: a records file cannot be read (missing, a directory, a FIFO or device,"
            + " not readable)");

    public final int code;
    public final String meaning;

    ExitCode(int code, String meaning) {
        this.code = code;
        this.meaning = meaning;
    }
}
