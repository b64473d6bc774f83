package io.jpmpi.tools;

import io.jpmpi.profilers.report.EarlierResults;
import io.jpmpi.profilers.report.InputFile;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileFormatException;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.profilers.report.ProfileWriter;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * {@code jpmpi report DIR}: the reports of a profile directory, from its profile.json or its ranks'
 * dumps. Its model is made with picocli's programmatic API, as run's ({@link RunCommand}).
 */
public final class ReportCommand implements Callable<Integer>, JpmpiCommand.Modelled {
    private final Context ctx;
    private final CommandSpec spec;

    public ReportCommand(Context ctx) {
        this.ctx = ctx;
        this.spec = JpmpiCommand.model(this, "report", "Write report.txt and report.html of the profile in DIR (the"
                        + " output directory of a job run with the profile tool) and print report.txt.",
                "Without DIR/profile.json, the ranks' dumps DIR/ranks/rank-R.bin (left by a job that ended before"
                        + " MPI_Finalize) are merged into a partial profile.json first.");
        spec.addPositional(PositionalParamSpec.builder().index("0").arity("1").required(true).paramLabel("DIR")
                .type(Path.class).description("The profile's directory.").build());
        spec.addOption(OptionSpec.builder("--no-html").type(boolean.class).description("Write report.txt only.").build());
        spec.addOption(OptionSpec.builder("-q", "--quiet").type(boolean.class).description("Do not print report.txt.")
                .build());
    }

    @Override
    public CommandSpec spec() {
        return spec;
    }

    @Override
    public Integer call() throws JpmpiException {
        Path dir = spec.positionalParameters().get(0).getValue();
        boolean noHtml = JpmpiCommand.isSet(spec, "--no-html");
        boolean quiet = JpmpiCommand.isSet(spec, "--quiet");
        if (!Files.isDirectory(dir)) {
            throw new JpmpiException(ExitCode.BAD_PROFILE, "report: " + dir + ": "
                    + (Files.exists(dir) ? "not a directory" : "no such directory"));
        }
        Path json = ProfileWriter.profileFile(dir);
        Profile profile;
        if (ProfileWriter.needsMerge(dir)) {
            try {
                // an earlier job's profile.json beside this one's dumps (a by-hand job into the same directory)
                EarlierResults.setAsideProfile(dir).ifPresent(m -> ctx.note("report: " + m.list() + " in " + dir
                        + " were of an earlier job than the ranks' dumps: moved them to " + m.to()));
                profile = ProfileWriter.mergeDumps(dir);
            } catch (IOException e) {
                throw new JpmpiException(ExitCode.BAD_PROFILE, "report: " + oneLine(e));
            }
            try {
                ProfileWriter.writeProfile(profile, dir);
            } catch (IOException e) {
                throw new JpmpiException(ExitCode.BAD_PROFILE, "report: cannot write " + oneLine(e));
            }
            if (!quiet) {
                ctx.note("report: merged the ranks' dumps (" + dir.resolve("ranks") + ") into " + json
                        + (profile.partial() ? " (partial)" : ""));
            }
        } else if (InputFile.present(json)) { // a broken or looping link too: read() says what it is
            profile = read(json);
            try { // the call sites of a profile.json the ranks wrote (the profile's Java level)
                profile = ProfileWriter.addSites(profile, dir);
            } catch (IOException e) {
                throw new JpmpiException(ExitCode.BAD_PROFILE, "report: call sites: " + oneLine(e));
            }
        } else {
            throw new JpmpiException(ExitCode.BAD_PROFILE, "report: " + dir + " has no profile.json and no"
                    + " ranks/rank-R.bin (is it the output directory of a job run with --tools profile?)");
        }
        String text;
        try {
            text = ProfileWriter.writeReports(profile, dir, !noHtml);
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.BAD_PROFILE, "report: cannot write the reports in " + dir + ": "
                    + oneLine(e));
        }
        if (!quiet) {
            ctx.out().print(text);
            ctx.out().flush();
        }
        return ExitCode.OK.code;
    }

    private static Profile read(Path json) throws JpmpiException {
        try {
            return ProfileJson.read(json);
        } catch (ProfileFormatException e) {
            throw new JpmpiException(ExitCode.BAD_PROFILE, "report: " + e.getMessage());
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.BAD_PROFILE, "report: cannot read " + oneLine(e));
        }
    }

    /**
     * An I/O error as one line: the file and what went wrong ("/x/report.txt: directory not empty"),
     * not the exception's class.
     */
    public static String oneLine(IOException e) {
        String m = e.getMessage() == null ? "" : e.getMessage().lines().findFirst().orElse("");
        if (e instanceof FileSystemException f && f.getReason() == null) {
            // The NIO exceptions without a reason say it with their class: NoSuchFileException, ...
            String what = f.getClass().getSimpleName().replaceFirst("Exception$", "")
                    .replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(Locale.ROOT);
            return (f.getFile() == null ? "" : f.getFile() + ": ") + (what.equals("file system") ? "failed" : what);
        }
        return m.isEmpty() ? "input/output error" : m;
    }
}
