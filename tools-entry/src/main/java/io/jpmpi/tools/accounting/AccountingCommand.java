package io.jpmpi.tools.accounting;

import io.jpmpi.tools.Context;
import io.jpmpi.tools.ExitCode;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code jpmpi accounting}: the site records the accounting tool appends; its subcommands read them. */
@Command(name = "accounting", mixinStandardHelpOptions = true,
        description = {"Read the records the accounting tool (--tools accounting, or JPMPI_TOOLS_ENTRY at a site)"
                + " appends to JPMPI_ACCOUNTING_FILE, one line per job; collect them where no user can forge one."},
        subcommands = {SummaryCommand.class, CollectCommand.class})
public final class AccountingCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    private final Context ctx;

    public AccountingCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(ctx.err());
        return ExitCode.USAGE.code;
    }
}
