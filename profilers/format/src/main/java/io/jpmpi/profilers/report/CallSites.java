package io.jpmpi.profilers.report;

import java.util.List;
import java.util.Objects;

/**
 * What schema {@code jpmpi-profile-3} added for call sites (PROFILE.md, "Call sites"): every place
 * in the program (or a library) that called an MPI function, with the calls, time and bytes from
 * there summed over ranks and their spread across ranks, most time first.
 *
 * @param note  what the resolution of addresses could not do, said once ("addr2line not found: ..."),
 *              or null when every module was asked
 * @param sites the sites, most time first (then most calls, then module, offset and function)
 */
public record CallSites(String note, List<Site> sites) {
    /** How a site is named: the best of what the module's own information gave. */
    public enum Resolved {
        /** File, line and function from the module's debug information. */
        LINE("line"),
        /** A function name from the module's symbol table, no line (no debug information). */
        FUNCTION("function"),
        /** The nearest dynamic symbol and the offset from it, as the rank saw it (stripped, or no addr2line). */
        SYMBOL("symbol"),
        /** Only the module and the offset in it. */
        MODULE("module");

        /** The name written in profile.json. */
        public final String json;

        Resolved(String json) {
            this.json = json;
        }

        /** The value written as {@code s}, or null. */
        public static Resolved of(String s) {
            for (Resolved r : values()) {
                if (r.json.equals(s)) {
                    return r;
                }
            }
            return null;
        }
    }

    /**
     * One call site of one function.
     *
     * @param function the MPI function called there
     * @param module   the executable's or shared library's real path; "?" if the rank could not tell
     * @param offset   the return address's offset in the module (what {@code addr2line -e MODULE}
     *                 takes, plus one: the return address is just after the call)
     * @param resolved how the site is named
     * @param file     the source file ({@link Resolved#LINE}), else null
     * @param line     its line ({@link Resolved#LINE}), else 0
     * @param name     the calling function ({@link Resolved#LINE} or {@link Resolved#FUNCTION}), else null
     * @param symbol   the nearest dynamic symbol and the offset from it ("sitelib_ranks+0x1c"), null if none
     * @param calls    calls from the site per rank (ranks that never called from it count 0)
     * @param timeSeconds time in those calls per rank
     * @param bytes    bytes sent and received by those calls per rank
     */
    public record Site(String function, String module, long offset, Resolved resolved, String file, int line,
                       String name, String symbol, Stat calls, Stat timeSeconds, Stat bytes) {
        public Site {
            Objects.requireNonNull(function);
            Objects.requireNonNull(module);
            Objects.requireNonNull(resolved);
        }

        /** Where it is as people read it: "sites.c:42 main", or the best fallback. */
        public String where() {
            String base = baseName(module);
            return switch (resolved) {
                case LINE -> baseName(file) + ":" + line + (name == null ? "" : " " + name);
                case FUNCTION -> name + " (" + base + "+0x" + Long.toHexString(offset) + ")";
                case SYMBOL -> symbol + " (" + base + ")";
                case MODULE -> base + "+0x" + Long.toHexString(offset);
            };
        }

        private static String baseName(String path) {
            int slash = path.lastIndexOf('/');
            return slash < 0 || slash == path.length() - 1 ? path : path.substring(slash + 1);
        }
    }

    public CallSites {
        sites = List.copyOf(sites);
    }

    /** The sites of {@code function}, most time first. */
    public List<Site> of(String function) {
        return sites.stream().filter(s -> s.function().equals(function)).toList();
    }

    /** The time from every site, summed over ranks. */
    public double totalSeconds() {
        double t = 0;
        for (Site s : sites) {
            t += s.timeSeconds().sum();
        }
        return t;
    }
}
