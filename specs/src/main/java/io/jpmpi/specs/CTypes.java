package io.jpmpi.specs;

import java.util.ArrayList;
import java.util.List;

/**
 * C type text as the spec stores it: an abstract declarator (the parameter name removed) with
 * one canonical spelling, e.g. {@code const void *}, {@code char **[]}, {@code int [][3]}.
 */
public final class CTypes {
    private CTypes() {
    }

    /**
     * The canonical spelling of a type: single spaces between words, a space before the first
     * {@code *} of a run and none inside it, array suffixes attached to the stars or after a space.
     */
    public static String normalize(String type) {
        String t = type.trim();
        int bracket = t.indexOf('[');
        String arrays = "";
        if (bracket >= 0) {
            arrays = t.substring(bracket).replaceAll("\\s+", "");
            t = t.substring(0, bracket).trim();
        }
        List<String> tokens = new ArrayList<>();
        for (String word : t.replace("*", " * ").trim().split("\\s+")) {
            if (!word.isEmpty()) {
                tokens.add(word);
            }
        }
        StringBuilder sb = new StringBuilder();
        String prev = null;
        for (String tok : tokens) {
            if (prev != null && !(tok.equals("*") && prev.equals("*"))) {
                sb.append(' ');
            }
            sb.append(tok);
            prev = tok;
        }
        if (!arrays.isEmpty()) {
            if (!sb.isEmpty() && sb.charAt(sb.length() - 1) != '*') {
                sb.append(' ');
            }
            sb.append(arrays);
        }
        return sb.toString();
    }

    /**
     * A declaration of {@code name} with the abstract type {@code type}: {@code const void *buf},
     * {@code int ranges[][3]}, {@code MPI_Comm comm}; {@code ...} stays itself.
     */
    public static String declare(String type, String name) {
        if (type.equals("...")) {
            return type;
        }
        int bracket = type.indexOf('[');
        String head = bracket >= 0 ? type.substring(0, bracket).stripTrailing() : type;
        String tail = bracket >= 0 ? type.substring(bracket) : "";
        String sep = head.endsWith("*") ? "" : " ";
        return head + sep + name + tail;
    }

    /**
     * The type a parameter of abstract type {@code type} really has inside the function: arrays
     * adjust to pointers ({@code int [][3]} becomes {@code int (*)[3]}, {@code char *[]} becomes
     * {@code char **}). Useful where a value of the parameter's type is stored or passed on.
     */
    public static String adjusted(String type) {
        int bracket = type.indexOf('[');
        if (bracket < 0) {
            return type;
        }
        String head = type.substring(0, bracket).stripTrailing();
        String rest = type.substring(type.indexOf(']', bracket) + 1);
        if (rest.isEmpty()) {
            return head + (head.endsWith("*") ? "*" : " *");
        }
        return head + " (*)" + rest;
    }

    /**
     * A variable named {@code name} of the type a parameter of type {@code type} has inside its
     * function ({@link #adjusted}): {@code int [][3]} gives {@code int (*name)[3]}.
     */
    public static String declareAdjusted(String type, String name) {
        String a = adjusted(type);
        int at = a.indexOf("(*)");
        return at >= 0 ? a.substring(0, at) + "(*" + name + ")" + a.substring(at + 3) : declare(a, name);
    }
}
