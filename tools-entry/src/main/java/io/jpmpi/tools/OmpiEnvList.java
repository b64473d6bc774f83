package io.jpmpi.tools;

import io.jpmpi.platform.LauncherGrammar;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * jpmpi run's variables for the ranks of an Open MPI 4.1 job whose contexts come from an appfile
 * ({@code mpirun --app FILE}). mpirun then ignores the other options of its command line, {@code -x}
 * among them: the ranks would run without the dispatcher, every tool silently absent. It still takes
 * MCA parameters, and {@code mca_base_env_list} ({@code NAME=VALUE;NAME=VALUE}) sets variables in the
 * ranks of every context. mpirun refuses a parameter given twice on its command line, and its command
 * line's value replaces the environment's ({@code OMPI_MCA_mca_base_env_list}): so a user's own list,
 * from either, is kept, and ours is joined to it, in its place on the command line (else right after
 * mpirun's name). The list's delimiter is the user's {@code mca_base_env_list_delimiter}, if set; a value
 * of ours that holds it cannot be passed, and the run is refused, naming it.
 */
final class OmpiEnvList {
    static final String PARAM = "mca_base_env_list";
    static final String DELIMITER = "mca_base_env_list_delimiter";
    /** Open MPI's own default delimiter of the list. */
    static final String DEFAULT_DELIMITER = ";";

    private OmpiEnvList() {
    }

    /** {@code command} (mpirun first) with {@code vars} in the ranks' list; {@code env}: mpirun's environment. */
    static List<String> pass(LauncherGrammar grammar, List<String> command, Map<String, String> vars,
                             Map<String, String> env) throws JpmpiException {
        List<String> args = command.subList(1, command.size());
        Optional<LauncherGrammar.Use> theirs = Optional.empty();
        String delimiter = env.getOrDefault("OMPI_MCA_" + DELIMITER, DEFAULT_DELIMITER);
        for (LauncherGrammar.Use u : grammar.uses(args)) {
            if (isMca(u) && u.values().get(0).equals(PARAM)) {
                theirs = Optional.of(u);
            } else if (isMca(u) && u.values().get(0).equals(DELIMITER)) {
                delimiter = u.values().get(1);
            }
        }
        if (delimiter.isEmpty()) {
            throw new JpmpiException(ExitCode.USAGE, "mpirun --app: " + DELIMITER + " is empty, so jpmpi cannot give"
                    + " the ranks its variables through " + PARAM + " (mpirun ignores -x with an appfile)");
        }
        StringBuilder list = new StringBuilder(theirs.isPresent() ? theirs.get().values().get(1)
                : env.getOrDefault("OMPI_MCA_" + PARAM, ""));
        for (Map.Entry<String, String> v : vars.entrySet()) {
            if (v.getValue().contains(delimiter) || v.getKey().contains(delimiter)) {
                throw new JpmpiException(ExitCode.USAGE, "mpirun --app: cannot give the ranks " + v.getKey() + "="
                        + v.getValue() + ": it holds '" + delimiter + "', the delimiter of Open MPI's " + PARAM
                        + " (mpirun ignores -x with an appfile; set " + DELIMITER + " to another character)");
            }
            if (list.length() > 0) {
                list.append(delimiter);
            }
            list.append(v.getKey()).append('=').append(v.getValue());
        }
        List<String> out = new ArrayList<>(command);
        if (theirs.isPresent()) {
            LauncherGrammar.Use u = theirs.get();
            int at = 1 + u.at();
            // --mca NAME VALUE (three words), or a joined form whose last word is the value
            out.set(at + u.words() - 1, list.toString());
        } else {
            out.addAll(1, List.of("--mca", PARAM, list.toString()));
        }
        return out;
    }

    private static boolean isMca(LauncherGrammar.Use u) {
        return u.values().size() == 2 && (u.option().names().contains("--mca") || u.option().names().contains("--gmca"));
    }
}
