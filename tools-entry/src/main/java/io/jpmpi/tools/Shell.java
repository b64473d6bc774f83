package io.jpmpi.tools;

import java.util.List;
import java.util.stream.Collectors;

/** Printing commands so that a shell reads them back unchanged. */
final class Shell {
    private Shell() {
    }

    static String quote(List<String> words) {
        return words.stream().map(Shell::quote).collect(Collectors.joining(" "));
    }

    static String quote(String w) {
        if (!w.isEmpty() && w.matches("[A-Za-z0-9_./:=,+@%-]+")) {
            return w;
        }
        return "'" + w.replace("'", "'\\''") + "'";
    }
}
