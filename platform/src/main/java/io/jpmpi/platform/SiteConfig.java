package io.jpmpi.platform;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A site's configuration (the installation's {@link InstallLayout#SITE_CONFIG}, or the file
 * {@code JPMPI_SITE_CONFIG} names): the tools every job gets below its own, settings for them, and
 * whether a job may opt out. The dispatcher reads it in every rank (native-stubs'
 * {@code core/site.c}, with the same rules and words); the launcher reads it to show it.
 *
 * <pre>
 * tools = accounting                 built-in names, library paths, bare library names, jars
 * opt-out = allowed | forbidden      may a job say JPMPI_SITE_TOOLS=off (default allowed)
 * set JPMPI_ACCOUNTING_FILE = unix:/run/jpmpi/accounting.sock
 * </pre>
 *
 * @param file          the file read
 * @param tools         the tools, as written (comma-separated items, trimmed)
 * @param optOutAllowed whether {@code JPMPI_SITE_TOOLS=off} takes them away
 * @param sets          the settings it gives the ranks, in order
 */
public record SiteConfig(Path file, List<String> tools, boolean optOutAllowed, Map<String, String> sets) {
    /** The variable that names another file than the installation's. */
    public static final Settings.Setting CONFIG = Settings.get("SITE", "CONFIG");
    /** The job's opt-out. */
    public static final Settings.Setting OPT_OUT = Settings.get("SITE", "TOOLS");

    /** A line of the file that is not what it should be: the message names the file and line. */
    public static final class BadConfig extends Exception {
        private static final long serialVersionUID = 1L;

        BadConfig(String message) {
            super(message);
        }
    }

    /** The file that applies: {@code JPMPI_SITE_CONFIG} in {@code env}, else the installation's. */
    public static Path file(Path home, Map<String, String> env) {
        return CONFIG.value(env).map(Path::of).orElse(home.resolve(InstallLayout.SITE_CONFIG));
    }

    /** The site configuration that applies; empty where there is none. */
    public static Optional<SiteConfig> find(Path home, Map<String, String> env) throws BadConfig {
        Path file = file(home, env);
        if (!Files.exists(file) && CONFIG.value(env).isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(parse(file, Files.readAllLines(file)));
        } catch (IOException e) {
            throw new BadConfig("site configuration " + file + ": " + e.getMessage());
        }
    }

    /** Reads {@code lines} of {@code file}. */
    public static SiteConfig parse(Path file, List<String> lines) throws BadConfig {
        List<String> tools = List.of();
        boolean optOut = true;
        Map<String, String> sets = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = "site configuration " + file + ":" + (i + 1) + ": ";
            int eq = line.indexOf('=');
            if (eq < 0) {
                throw new BadConfig(where + "not 'key = value' (keys: tools, opt-out, set NAME)");
            }
            String key = line.substring(0, eq).strip();
            String value = line.substring(eq + 1).strip();
            if (key.equals("tools")) {
                List<String> items = new ArrayList<>();
                for (String item : value.split(",", -1)) {
                    items.add(item.strip());
                }
                tools = value.isEmpty() ? List.of() : List.copyOf(items);
            } else if (key.equals("opt-out")) {
                if (!value.equals("allowed") && !value.equals("forbidden")) {
                    throw new BadConfig(where + "opt-out is 'allowed' or 'forbidden'");
                }
                optOut = value.equals("allowed");
            } else if (key.startsWith("set") && key.length() > 3 && Character.isWhitespace(key.charAt(3))) {
                String name = key.substring(3).strip();
                if (!name.matches("JPMPI_[A-Z0-9_]*")) {
                    throw new BadConfig(where + "set names a JPMPI_ variable (upper case, digits, _)");
                }
                sets.put(name, value);
            } else {
                throw new BadConfig(where + "unknown key (keys: tools, opt-out, set NAME)");
            }
        }
        return new SiteConfig(file, tools, optOut, Collections.unmodifiableMap(sets));
    }

    /** Whether a job with {@code env} gets the site's tools. */
    public boolean appliesTo(Map<String, String> env) {
        return !optOutAllowed || !optedOut(env);
    }

    /** Whether {@code env} asks to opt out ({@code JPMPI_SITE_TOOLS} off, OFF, no or 0). */
    public static boolean optedOut(Map<String, String> env) {
        return OPT_OUT.value(env).filter(v -> List.of("off", "OFF", "no", "0").contains(v)).isPresent();
    }
}
