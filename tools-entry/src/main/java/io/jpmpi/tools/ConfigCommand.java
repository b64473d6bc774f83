package io.jpmpi.tools;

import io.jpmpi.platform.Settings;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code jpmpi config}: every setting, its value here, and what it does (from the one table). */
@Command(name = "config", mixinStandardHelpOptions = true,
        description = "Show jpmpi's configuration variables (JPMPI_<AREA>_<KEY>) with their values in this environment.")
public final class ConfigCommand implements Callable<Integer> {
    @Option(names = "--markdown", description = "Print the table as Markdown (as in tools-entry/README.md).")
    boolean markdown;

    private final Context ctx;

    public ConfigCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        if (markdown) {
            ctx.out().print(Settings.markdown());
        } else {
            for (Settings.Setting s : Settings.all()) {
                String value = s.value(ctx.env()).map(v -> "= " + v).orElse("unset (default: " + s.defaultValue() + ")");
                ctx.out().printf("%-26s %s%n    %s [%s]%n", s.env(), value, s.description(), s.reader().label);
            }
        }
        ctx.out().flush();
        return ExitCode.OK.code;
    }
}
