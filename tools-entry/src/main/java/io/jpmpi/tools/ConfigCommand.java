package io.jpmpi.tools;

import io.jpmpi.platform.InstallLayout;
import io.jpmpi.platform.Settings;
import io.jpmpi.platform.SiteConfig;
import java.nio.file.Path;
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
            printTools();
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

    /** Which tools a rank started from here gets, and from where: the job's list, then the site's. */
    private void printTools() {
        ctx.out().println();
        ctx.out().println("Tools of a job started here (top first):");
        Settings.Setting entry = Settings.TOOLS_ENTRY;
        String source = ctx.env().containsKey(entry.env()) || entry.alias() == null ? entry.env() : entry.alias();
        ctx.out().printf("  the job's:  %s%n", entry.value(ctx.env()).map(v -> v + "  (from " + source + ")")
                .orElse("none (" + entry.env() + " unset; jpmpi run --tools sets it)"));
        Path file = SiteConfig.file(ctx.layout().home(), ctx.env());
        try {
            var site = SiteConfig.find(ctx.layout().home(), ctx.env());
            if (site.isEmpty()) {
                ctx.out().printf("  the site's: none (no %s)%n", file);
                return;
            }
            SiteConfig c = site.get();
            String tools = c.tools().isEmpty() ? "none" : String.join(",", c.tools());
            String optOut = !SiteConfig.optedOut(ctx.env()) ? "opt-out " + (c.optOutAllowed() ? "allowed" : "forbidden")
                    : c.optOutAllowed() ? "left out: this job opts out (" + SiteConfig.OPT_OUT.env() + ")"
                    : "kept: the site forbids opting out (" + SiteConfig.OPT_OUT.env() + " ignored)";
            ctx.out().printf("  the site's: %s  (below the job's, from %s; %s)%n", tools, c.file(), optOut);
            c.sets().forEach((k, v) -> ctx.out().printf("              set %s=%s%n", k, v));
        } catch (SiteConfig.BadConfig e) {
            ctx.out().printf("  the site's: none, %s (the ranks say so and leave them out)%n", e.getMessage());
        }
    }
}
