package io.jpmpi.tools;

import io.jpmpi.platform.LauncherGrammar;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * jpmpi run's variables for the ranks, joined with a user's own {@code srun --export}. srun takes
 * one --export (the last), splits its value at every comma, and accepts a bare NAME there to mean
 * "this variable as it is in srun's own environment". So the user's option is replaced, in its place,
 * by one {@code --export=<theirs>,<ours>}: a value of ours without a comma as {@code NAME=VALUE}, one
 * with a comma as a bare {@code NAME} with the value put into srun's environment. That keeps what the
 * user said ({@code ALL}, names, values). srun 22.05 ignores every item after {@code NONE}, and takes
 * a list without {@code ALL} or {@code NONE} as "these variables only": so {@code NONE,<list>} becomes
 * {@code <list>,<ours>}, which is what it means.
 *
 * <p>With {@code ALL}, srun 22.05 gives the tasks its own value of a variable over a {@code NAME=VALUE}
 * of the list (checked: {@code FOO=0 srun --export=ALL,FOO=1 printenv FOO} prints 0). So a variable of
 * ours that srun's environment holds with another value (a module's {@code JPMPI_TOOLS_ENTRY}, say)
 * goes through srun's environment too (named bare in a list of the user's). A user's {@code LD_PRELOAD}
 * (a site's XALT or Darshan), which srun's environment cannot hold for the tasks without preloading
 * srun itself, is unset for srun instead: ours for the ranks, in the list, holds it after the
 * dispatcher, and then wins.
 */
final class SrunExport {
    /**
     * Inserted into every srun command: one SIGINT to srun then goes to the tasks at once (without
     * it srun prints the tasks' state, and SIGTERM makes it SIGKILL them), which is how jpmpi run
     * stops a job under srun: every rank's profile tool writes its dump on SIGINT and ends.
     */
    static final String DISABLE_STATUS = "--disable-status";
    private SrunExport() {
    }

    /** Where srun's own --export is in {@code command} (srun first): its index and value, if it has one. */
    record Found(int index, int words, String value) {
    }

    static Optional<Found> find(LauncherGrammar grammar, List<String> command) {
        Optional<Found> last = Optional.empty();
        for (int i = 1; i < command.size(); i++) {
            String a = command.get(i);
            if (a.equals("--") || !a.startsWith("-") || a.equals("-")) {
                break; // the program: what follows is its own
            }
            int eq = a.indexOf('=');
            String name = a.startsWith("--") && eq > 0 ? a.substring(0, eq) : a.startsWith("--") ? a : a.substring(0, 2);
            Optional<LauncherGrammar.Option> o = grammar.option(name);
            boolean joined = a.startsWith("--") ? eq > 0 : a.length() > 2;
            boolean takesNext = o.isPresent() && o.get().arity() == 1 && !joined;
            if (o.isPresent() && o.get().names().contains("--export")) {
                if (takesNext && i + 1 < command.size()) {
                    last = Optional.of(new Found(i, 2, command.get(i + 1)));
                } else {
                    last = Optional.of(new Found(i, 1, joined ? a.substring(eq + 1) : ""));
                }
            }
            if (takesNext) {
                i++;
            }
        }
        return last;
    }

    /**
     * {@code command} with {@code vars} joined into the user's --export at {@code found}; the values
     * that go through srun's own environment are put into {@code own}.
     */
    static List<String> merge(List<String> command, Found found, Map<String, String> vars, Map<String, String> own,
                              Map<String, String> env) throws JpmpiException {
        // srun 22.05 ignores what follows NONE; a list without ALL or NONE is "these only", which is
        // what NONE,<list> means: so NONE goes, and the list (theirs and ours) stays
        String theirs = found.value().isEmpty() ? "ALL" : found.value();
        theirs = theirs.equals("NONE") ? "" : theirs.startsWith("NONE,") ? theirs.substring(5) : theirs;
        List<String> items = new ArrayList<>();
        if (!theirs.isEmpty()) {
            items.add(theirs);
        }
        items.addAll(items(vars, own, env, true));
        String export = "--export=" + String.join(",", items);
        List<String> out = new ArrayList<>(command.subList(0, found.index()));
        out.add(export);
        out.addAll(command.subList(found.index() + found.words(), command.size()));
        return out;
    }

    /**
     * The items of ours for an --export list: {@code NAME=VALUE}, or the value put into {@code own} (srun's
     * environment; null: unset there) where the list cannot carry it (a comma) or srun's own value would
     * win over it ({@code env}: srun's environment before jpmpi's), then named bare when {@code named}
     * (a list of the user's; jpmpi's own {@code ALL} takes srun's environment whole).
     */
    static List<String> items(Map<String, String> vars, Map<String, String> own, Map<String, String> env,
                              boolean named) throws JpmpiException {
        List<String> items = new ArrayList<>();
        for (Map.Entry<String, String> e : vars.entrySet()) {
            String k = e.getKey();
            String v = e.getValue();
            String srunHas = env.get(k);
            boolean comma = v.indexOf(',') >= 0;
            if (k.equals("LD_PRELOAD")) {
                if (comma) {
                    throw new JpmpiException(ExitCode.USAGE, "srun cannot give the ranks LD_PRELOAD=" + v
                            + ": --export splits values at commas, and srun's own environment would preload srun");
                }
                if (srunHas != null && !srunHas.equals(v)) {
                    own.put(k, null); // (not preloaded into srun; the ranks' value holds the user's preload)
                }
                items.add(k + "=" + v);
            } else if (comma || (srunHas != null && !srunHas.equals(v))) {
                own.put(k, v);
                if (named) {
                    items.add(k);
                }
            } else {
                items.add(k + "=" + v);
            }
        }
        return items;
    }
}
