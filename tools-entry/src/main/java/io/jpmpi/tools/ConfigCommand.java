package io.jpmpi.tools;

import io.jpmpi.platform.InstallLayout;
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
                String value = shown(s);
                ctx.out().printf("%-26s %s%n    %s [%s]%n", s.env(), value, s.description(), s.reader().label);
            }
        }
        ctx.out().flush();
        return ExitCode.OK.code;
    }

    /**
     * What {@code s} is here: its own value; else the variable it falls back on, named as such (a
     * JAVA_HOME is not a JPMPI_JAVA_HOME); else its default.
     */
    private String shown(Settings.Setting s) {
        String own = ctx.env().get(s.env());
        if (own != null && !own.isEmpty()) {
            return "= " + own;
        }
        String alias = s.alias() == null ? null : ctx.env().get(s.alias());
        if (alias != null && !alias.isEmpty()) {
            return "unset; " + s.alias() + " = " + alias + " is used";
        }
        String here = s.equals(Settings.JAVA_CLASSPATH) ? ctx.layout().javaClasspath()
                : s.equals(Settings.JAVA_HOME) ? ctx.layout().properties().getProperty(InstallLayout.JAVA_HOME_KEY) : null;
        return "unset (default: " + s.defaultValue() + (here == null ? "" : ": " + here) + ")";
    }
}
