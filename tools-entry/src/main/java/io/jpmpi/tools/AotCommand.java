package io.jpmpi.tools;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jpmpi aot}: (re)makes this installation's AOT caches (the ranks' runtime, the launcher's
 * own JVM) for the ranks' JDK, after the tree was moved or the JDK changed ({@code jpmpi doctor}
 * says when).
 */
@Command(name = "aot", mixinStandardHelpOptions = true,
        description = "Make the AOT caches of this installation's Java runtime and of the launcher's own JVM for the"
                + " ranks' JDK (25 or later), so that Java levels and bin/jpmpi start fast.")
public final class AotCommand implements Callable<Integer> {
    @Option(names = "--java-home", paramLabel = "JDK", description = "The ranks' JDK (default: JPMPI_JAVA_HOME, else"
            + " the JDK running jpmpi).")
    Path javaHome;

    @Option(names = {"-q", "--quiet"}, description = "Say nothing when the cache is made (the build's own step).")
    boolean quiet;

    private final Context ctx;

    public AotCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws JpmpiException {
        Path home = javaHome != null ? javaHome : Jdk.forRanks(ctx.env());
        Jdk jdk = Jdk.at(home).orElseThrow(() -> new JpmpiException(ExitCode.NO_JDK, "aot: " + home + " is not a JDK"));
        Path cache = AotCache.make(ctx.layout(), jdk);
        List<Path> launcher = AotCache.makeLauncher(ctx.layout(), jdk);
        if (!quiet) {
            ctx.note("AOT cache for JDK " + jdk.major() + ": " + cache);
            ctx.note("launcher's AOT caches for JDK " + jdk.major() + ": " + launcher.get(0) + ", " + launcher.get(1));
        }
        return ExitCode.OK.code;
    }
}
