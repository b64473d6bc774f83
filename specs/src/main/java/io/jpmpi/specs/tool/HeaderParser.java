package io.jpmpi.specs.tool;

import io.jpmpi.specs.CTypes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the MPI function prototypes in a preprocessed mpi.h ({@code mpicc -E -P}). It reads
 * declarations only: every top-level statement that is not a typedef/struct/enum and declares a
 * function named {@code MPI_*}, {@code PMPI_*}, {@code MPIX_*} or {@code PMPIX_*}.
 */
final class HeaderParser {
    /** One C prototype. */
    record Prototype(String name, String returnType, List<CParam> params) {
    }

    /** One C parameter: its abstract type and the header's name for it (null if unnamed). */
    record CParam(String type, String name) {
    }

    private static final Pattern DECL = Pattern.compile(
            "^(?<ret>[A-Za-z_][\\w\\s*]*?)\\s*\\b(?<name>P?MPIX?_\\w+)\\s*\\((?<params>.*)\\)$", Pattern.DOTALL);
    private static final Pattern ARRAY_SUFFIX = Pattern.compile("(\\s*\\[[^\\]]*\\])+$");
    private static final Pattern LAST_WORD = Pattern.compile("^(?<type>.*?[\\s*])(?<name>[A-Za-z_]\\w*)$",
            Pattern.DOTALL);

    private HeaderParser() {
    }

    /** Prototypes by function name (MPI_ and PMPI_ alike), sorted. */
    static Map<String, Prototype> parse(String preprocessed) {
        Map<String, Prototype> out = new TreeMap<>();
        for (String stmt : statements(stripAttributes(preprocessed))) {
            String s = stmt.replaceAll("\\s+", " ").trim();
            if (s.startsWith("extern ")) {
                s = s.substring("extern ".length()).trim();
            }
            if (s.isEmpty() || s.startsWith("typedef ") || s.startsWith("struct ") || s.startsWith("enum ")
                    || s.startsWith("union ") || s.contains("{")) {
                continue;
            }
            Matcher m = DECL.matcher(s);
            if (!m.matches() || m.group("ret").contains("(")) {
                continue;
            }
            String name = m.group("name");
            Prototype p = new Prototype(name, CTypes.normalize(m.group("ret")), params(name, m.group("params")));
            Prototype prev = out.putIfAbsent(name, p);
            if (prev != null && !prev.equals(p)) {
                throw new IllegalStateException(name + " is declared twice, differently: " + prev + " / " + p);
            }
        }
        return out;
    }

    private static List<CParam> params(String fn, String text) {
        List<CParam> out = new ArrayList<>();
        String t = text.trim();
        if (t.isEmpty() || t.equals("void")) {
            return out;
        }
        for (String raw : splitTopLevel(t)) {
            String p = raw.trim();
            if (p.contains("(")) {
                throw new IllegalStateException(fn + ": function-pointer parameter '" + p
                        + "' is not supported; the headers are expected to use typedefs");
            }
            if (p.equals("...")) {
                out.add(new CParam("...", null));
                continue;
            }
            Matcher arr = ARRAY_SUFFIX.matcher(p);
            String arrays = "";
            if (arr.find()) {
                arrays = arr.group();
                p = p.substring(0, arr.start());
            }
            String name = null;
            String type = p;
            Matcher lw = LAST_WORD.matcher(p.trim());
            if (lw.matches() && !CTypes.isTypeWord(lw.group("name")) && hasTypeBefore(lw.group("type"))) {
                name = lw.group("name");
                type = lw.group("type");
            }
            out.add(new CParam(CTypes.normalize(type + arrays), name));
        }
        return out;
    }

    /** True if {@code prefix} holds a type name (not only qualifiers or stars). */
    private static boolean hasTypeBefore(String prefix) {
        for (String w : prefix.replace("*", " ").trim().split("\\s+")) {
            if (!w.isEmpty() && !w.equals("const") && !w.equals("volatile") && !w.equals("restrict")) {
                return true;
            }
        }
        return false;
    }

    /** Removes GCC {@code __attribute__((...))} and {@code __asm__(...)} with their balanced parentheses. */
    static String stripAttributes(String s) {
        StringBuilder out = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            int next = nextKeyword(s, i);
            if (next < 0) {
                out.append(s, i, s.length());
                break;
            }
            out.append(s, i, next);
            int open = s.indexOf('(', next);
            int depth = 0;
            int j = open;
            for (; j < s.length(); j++) {
                char c = s.charAt(j);
                if (c == '(') {
                    depth++;
                } else if (c == ')' && --depth == 0) {
                    break;
                }
            }
            out.append(' ');
            i = j + 1;
        }
        return out.toString();
    }

    private static int nextKeyword(String s, int from) {
        int best = -1;
        for (String k : new String[] {"__attribute__", "__asm__", "__asm"}) {
            int at = s.indexOf(k, from);
            while (at >= 0 && at > 0 && (Character.isLetterOrDigit(s.charAt(at - 1)) || s.charAt(at - 1) == '_')) {
                at = s.indexOf(k, at + 1);
            }
            if (at >= 0 && (best < 0 || at < best)) {
                best = at;
            }
        }
        return best;
    }

    /** Splits on ';' outside braces; a brace block ends a statement too (function bodies, struct bodies). */
    private static List<String> statements(String s) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        boolean functionBody = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '{') {
                if (depth++ == 0) {
                    functionBody = s.substring(start, i).stripTrailing().endsWith(")");
                }
            } else if (c == '}') {
                if (--depth == 0 && functionBody) {
                    // A function definition (static inline) has no ';' after its body.
                    out.add(s.substring(start, i + 1));
                    start = i + 1;
                }
            } else if (c == ';' && depth == 0) {
                out.add(s.substring(start, i));
                start = i + 1;
            }
        }
        out.add(s.substring(start));
        return out;
    }

    private static List<String> splitTopLevel(String s) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '(' || c == '[') {
                depth++;
            } else if (c == ')' || c == ']') {
                depth--;
            } else if (c == ',' && depth == 0) {
                out.add(s.substring(start, i));
                start = i + 1;
            }
        }
        out.add(s.substring(start));
        return out;
    }
}
