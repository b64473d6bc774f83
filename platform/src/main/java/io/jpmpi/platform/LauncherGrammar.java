package io.jpmpi.platform;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * How one MPI launcher reads its command line: which options it has, which take a value (how many,
 * separate, {@code =}-joined or attached), which are flags, where the program starts, how MPMD
 * contexts are separated, and which options name a file of further programs. The tables are the
 * resource files {@code launchers/ID.grammar} beside this class (format: platform/README.md,
 * "Launcher grammars"), each checked against the installed launcher's own option list by
 * dist's {@code LauncherGrammarIT}.
 */
public final class LauncherGrammar {
    /** The grammars there are. */
    public static final List<String> IDS = List.of("openmpi-4.1", "openmpi-5", "hydra", "srun");

    /** How an option's name is written. */
    public enum Dashes {
        /** {@code -name} and {@code --name} are the same option (Open MPI, hydra). */
        ANY,
        /** getopt_long: {@code -x} (bundled: {@code -lK}), {@code --long} or an unambiguous prefix of it. */
        GETOPT
    }

    /** Where a value may stand besides the next word. */
    public enum Joined {
        /** only the next word(s) */
        NO,
        /** also {@code -name=value} */
        EQUALS,
        /** getopt_long: {@code --long=value}, {@code -xVALUE} */
        GETOPT
    }

    /** What an option says about the job's programs. */
    public enum Role {
        NONE,
        /** its value is a file of contexts, one a line, and the command line's programs are ignored (Open MPI --app) */
        APPFILE,
        /** its value is a file of contexts, one a line (hydra -configfile) */
        CONFIGFILE,
        /** a flag: the context's program word is a file of "ranks program args" lines (srun --multi-prog) */
        MULTIPROG
    }

    /** Values an option takes when its arity is this: one, only when joined ({@code --nice=5}). */
    public static final int OPTIONAL = -1;

    /**
     * One option.
     *
     * @param names its names as the table writes them ({@code -np}, {@code --ntasks})
     * @param arity 0 (a flag), 1 or 2 values, or {@link #OPTIONAL}
     */
    public record Option(List<String> names, int arity, Role role) {
    }

    /** A program of the job: its word, and where it was read. */
    public record Program(String word, String where) {
    }

    /** A command line this grammar cannot read; the message names the culprit. */
    public static final class Refusal extends Exception {
        private static final long serialVersionUID = 1L;
        private final String option;

        Refusal(String message, String option) {
            super(message);
            this.option = option;
        }

        /** The option this grammar does not know, if that is the reason. */
        public Optional<String> unknownOption() {
            return Optional.ofNullable(option);
        }
    }

    private static final Map<String, LauncherGrammar> LOADED = new ConcurrentHashMap<>();

    private final String id;
    private final String title;
    private final String checked;
    private final Dashes dashes;
    private final Joined joined;
    private final String end;
    private final String separator;
    private final List<Option> options;
    private final Map<String, Option> byKey;

    private LauncherGrammar(String id, String title, String checked, Dashes dashes, Joined joined, String end,
                            String separator, List<Option> options, Map<String, Option> byKey) {
        this.id = id;
        this.title = title;
        this.checked = checked;
        this.dashes = dashes;
        this.joined = joined;
        this.end = end;
        this.separator = separator;
        this.options = options;
        this.byKey = byKey;
    }

    /** The grammar {@code id} (one of {@link #IDS}). */
    public static LauncherGrammar of(String id) {
        if (!IDS.contains(id)) {
            throw new IllegalArgumentException("no launcher grammar '" + id + "' (there are " + IDS + ")");
        }
        return LOADED.computeIfAbsent(id, LauncherGrammar::load);
    }

    private static LauncherGrammar load(String id) {
        String resource = "launchers/" + id + ".grammar";
        try {
            byte[] text = besideThisClass(resource);
            if (text == null) {
                try (InputStream in = LauncherGrammar.class.getResourceAsStream(resource)) {
                    if (in == null) {
                        throw new IllegalStateException("the launcher grammar " + resource + " is not on the class path");
                    }
                    text = in.readAllBytes();
                }
            }
            return parse(id, new String(text, StandardCharsets.UTF_8).lines().toList());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the launcher grammar " + resource, e);
        }
    }

    /**
     * The resource {@code name} (relative to this class's package) read straight from the jar or the
     * directory this class was loaded from; null if that is neither or does not hold it. A class-path
     * lookup would open every jar before this one in the class path, which the launcher's JVM, whose
     * classes come from its AOT cache, otherwise has no need to open: ~2-3 ms of CPU on the thread
     * that inspects the job's program before the job starts (benchmarks/README.md, "The seventh session").
     */
    private static byte[] besideThisClass(String name) throws IOException {
        CodeSource source = LauncherGrammar.class.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null || !"file".equals(source.getLocation().getProtocol())) {
            return null;
        }
        Path where;
        try {
            where = Path.of(source.getLocation().toURI());
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
        String entry = LauncherGrammar.class.getPackageName().replace('.', '/') + "/" + name;
        if (Files.isDirectory(where)) {
            Path file = where.resolve(entry);
            return Files.isRegularFile(file) ? Files.readAllBytes(file) : null;
        }
        if (!Files.isRegularFile(where)) {
            return null;
        }
        try (ZipFile jar = new ZipFile(where.toFile())) {
            ZipEntry e = jar.getEntry(entry);
            if (e == null) {
                return null;
            }
            try (InputStream in = jar.getInputStream(e)) {
                return in.readAllBytes();
            }
        }
    }

    /** Reads a table (the lines of a {@code .grammar} file); a bad line is named by its number. */
    static LauncherGrammar parse(String id, List<String> lines) {
        String title = id;
        String checked = "";
        Dashes dashes = null;
        Joined joined = Joined.NO;
        String end = null;
        String separator = null;
        List<Option> options = new ArrayList<>();
        Map<String, Option> byKey = new LinkedHashMap<>();
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                if (line.startsWith("# Checked against:")) {
                    checked = line.substring("# Checked against:".length()).strip();
                }
                continue;
            }
            String[] w = line.split("\\s+");
            String where = id + ".grammar line " + (n + 1) + ": ";
            switch (w[0]) {
                case "title" -> title = line.substring(w[0].length()).strip();
                case "dashes" -> dashes = Dashes.valueOf(w[1].toUpperCase(java.util.Locale.ROOT));
                case "joined" -> joined = Joined.valueOf(w[1].toUpperCase(java.util.Locale.ROOT));
                case "end" -> end = w[1];
                case "contexts" -> separator = w[1];
                case "0", "1", "2", "?" -> {
                    if (dashes == null) {
                        throw new IllegalArgumentException(where + "an option before the 'dashes' line");
                    }
                    int arity = w[0].equals("?") ? OPTIONAL : Integer.parseInt(w[0]);
                    Role role = Role.NONE;
                    List<String> names = new ArrayList<>();
                    for (int k = 1; k < w.length; k++) {
                        if (w[k].startsWith("@")) {
                            role = Role.valueOf(w[k].substring(1).toUpperCase(java.util.Locale.ROOT));
                        } else if (!w[k].startsWith("-") || w[k].length() < 2) {
                            throw new IllegalArgumentException(where + "'" + w[k] + "' is not an option name");
                        } else {
                            names.add(w[k]);
                        }
                    }
                    if (names.isEmpty()) {
                        throw new IllegalArgumentException(where + "no option name");
                    }
                    Option o = new Option(List.copyOf(names), arity, role);
                    for (String name : names) {
                        Option before = byKey.put(key(dashes, name), o);
                        if (before != null && before != o) {
                            throw new IllegalArgumentException(where + name + " is in the table twice");
                        }
                    }
                    options.add(o);
                }
                default -> throw new IllegalArgumentException(where + "'" + w[0] + "' is neither a setting (title,"
                        + " dashes, joined, end, contexts) nor an arity (0, 1, 2, ?)");
            }
        }
        if (dashes == null) {
            throw new IllegalArgumentException(id + ".grammar: no 'dashes' line");
        }
        return new LauncherGrammar(id, title, checked, dashes, joined, end, separator, List.copyOf(options),
                byKey);
    }

    private static String key(Dashes dashes, String name) {
        return dashes == Dashes.ANY ? name.substring(name.startsWith("--") ? 2 : 1) : name;
    }

    public String id() {
        return id;
    }

    /** What the table is of ("Open MPI 4.1 mpirun"). */
    public String title() {
        return title;
    }

    /** The launcher versions the table was checked against (its "Checked against:" line). */
    public String checkedAgainst() {
        return checked;
    }

    public List<Option> options() {
        return options;
    }

    public Dashes dashes() {
        return dashes;
    }

    /** The word that ends the options (the program follows it), where the launcher has one: {@code --}. */
    public Optional<String> endOfOptions() {
        return Optional.ofNullable(end);
    }

    /** The option a name (as typed, without a value) stands for: exactly, not as a getopt prefix. */
    public Optional<Option> option(String name) {
        return Optional.ofNullable(byKey.get(key(dashes, name)));
    }

    /** The options a context has seen, and its program word once found. */
    private static final class Context {
        /** Where the context separator that began this context is in the words scanned; -1 for the first. */
        int startsAt = -1;
        String program;
        /** Where {@link #program} is in the words scanned; -1 without one. */
        int programAt = -1;
        boolean multiProg;
        final List<Use> uses = new ArrayList<>();
        final List<String> appFiles = new ArrayList<>();
        final List<String> configFiles = new ArrayList<>();
    }

    /**
     * The programs of a launcher command ({@code args}: the launcher's arguments, its name excluded),
     * one per MPMD context, those of the files named by {@code --app}, {@code -configfile} and
     * {@code --multi-prog} included (read relative to {@code cwd}).
     *
     * @throws Refusal an option not in the table, an option missing its value, no program at all, a file
     *                 that cannot be read
     */
    public List<Program> programs(List<String> args, Path cwd) throws Refusal {
        List<Program> found = new ArrayList<>();
        List<Context> contexts = scan(args);
        List<String> appFiles = contexts.stream().flatMap(c -> c.appFiles.stream()).toList();
        for (String file : appFiles) {
            fromFile(file, cwd, "appfile", found);
        }
        for (Context c : contexts) {
            for (String file : c.configFiles) {
                fromFile(file, cwd, "configfile", found);
            }
            if (!appFiles.isEmpty() || c.program == null) {
                continue; // an appfile replaces the command line's programs
            }
            if (c.multiProg) {
                fromMultiProg(c.program, cwd, found);
            } else {
                found.add(new Program(c.program, "the command line"));
            }
        }
        if (found.isEmpty()) {
            throw new Refusal("no program among the launcher's arguments " + String.join(" ", args)
                    + " (every word is an option or its value)", null);
        }
        return found;
    }

    /**
     * Where the one program of {@code args} (the launcher's arguments, its name excluded) is, when the
     * command line alone names it: one context (no {@link #contextSeparator()} word), no appfile,
     * configfile or --multi-prog file. Every word after it is then the program's own, whatever it is,
     * except a context separator, which would start another context. Empty otherwise, or when
     * {@link #programs} refuses the words.
     */
    public OptionalInt soleProgram(List<String> args) {
        List<Context> contexts;
        try {
            contexts = scan(args);
        } catch (Refusal r) {
            return OptionalInt.empty();
        }
        Context c = contexts.get(0);
        if (contexts.size() != 1 || c.programAt < 0 || c.multiProg || !c.appFiles.isEmpty()
                || !c.configFiles.isEmpty()) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(c.programAt);
    }

    /**
     * Where the words between MPMD contexts are in {@code args} (the launcher's arguments, its name
     * excluded), in order: each separator that starts another context (an option's value that happens
     * to be {@code :} does not). Empty for one context; empty too when the words are refused.
     */
    public List<Integer> contextSeparators(List<String> args) {
        List<Integer> at = new ArrayList<>();
        try {
            for (Context c : scan(args)) {
                if (c.startsAt >= 0) {
                    at.add(c.startsAt);
                }
            }
        } catch (Refusal r) {
            return List.of();
        }
        return at;
    }

    /** One option of a command line: where it is, how many words it spans (its name's included), its values. */
    public record Use(int at, int words, Option option, List<String> values) {
    }

    /**
     * The options {@code args} (the launcher's arguments, its name excluded) give, in order, every
     * context's; {@code at} indexes {@code args}. Empty when the words are refused.
     */
    public List<Use> uses(List<String> args) {
        List<Use> out = new ArrayList<>();
        try {
            for (Context c : scan(args)) {
                out.addAll(c.uses);
            }
        } catch (Refusal r) {
            return List.of();
        }
        return out;
    }

    /**
     * The files {@code args} (the launcher's arguments, its name excluded) name for {@link #programs} to
     * read, as written (relative to the working directory unless absolute): appfiles, configfiles,
     * --multi-prog files. Empty when there are none or the words are refused.
     */
    public List<String> inputFiles(List<String> args) {
        List<String> out = new ArrayList<>();
        try {
            for (Context c : scan(args)) {
                out.addAll(c.appFiles);
                out.addAll(c.configFiles);
                if (c.multiProg && c.program != null) {
                    out.add(c.program);
                }
            }
        } catch (Refusal r) {
            return List.of();
        }
        return out;
    }

    /** The word between MPMD contexts ({@code :}), if this launcher has them. */
    public Optional<String> contextSeparator() {
        return Optional.ofNullable(separator);
    }

    private List<Context> scan(List<String> args) throws Refusal {
        List<Context> contexts = new ArrayList<>();
        Context cur = new Context();
        int i = 0;
        while (i < args.size()) {
            String a = args.get(i);
            if (a.equals(separator)) {
                contexts.add(cur);
                cur = new Context();
                cur.startsAt = i;
                i++;
            } else if (cur.program != null) {
                i++; // the program's own arguments
            } else if (a.equals(end)) {
                if (i + 1 < args.size()) {
                    cur.program = args.get(i + 1);
                    cur.programAt = i + 1;
                }
                i += 2;
            } else if (a.length() > 1 && a.startsWith("-")) {
                i = option(args, i, cur);
            } else {
                cur.program = a;
                cur.programAt = i;
                i++;
            }
        }
        contexts.add(cur);
        return contexts;
    }

    /** Reads the option at {@code args[i]} and its values; the index after them. */
    private int option(List<String> args, int i, Context cur) throws Refusal {
        String a = args.get(i);
        if (dashes == Dashes.ANY) {
            String name = a;
            String value = null;
            int eq = a.indexOf('=');
            if (joined == Joined.EQUALS && eq > 0) {
                name = a.substring(0, eq);
                value = a.substring(eq + 1);
            }
            Option o = byKey.get(key(dashes, name));
            if (o == null) {
                return unknown(args, i, a);
            }
            return take(o, name, value, args, i, cur);
        }
        if (a.startsWith("--")) {
            int eq = a.indexOf('=');
            String name = eq > 0 ? a.substring(0, eq) : a;
            Option o = byKey.get(name);
            if (o == null) {
                List<Option> prefixed = new ArrayList<>();
                for (Map.Entry<String, Option> e : byKey.entrySet()) {
                    if (e.getKey().startsWith(name) && e.getKey().startsWith("--") && !prefixed.contains(e.getValue())) {
                        prefixed.add(e.getValue());
                    }
                }
                if (prefixed.size() != 1) {
                    return unknown(args, i, name);
                }
                o = prefixed.get(0);
            }
            return take(o, name, eq > 0 ? a.substring(eq + 1) : null, args, i, cur);
        }
        for (int k = 1; k < a.length(); k++) {
            String name = "-" + a.charAt(k);
            Option o = byKey.get(name);
            if (o == null) {
                return unknown(args, i, name);
            }
            String rest = a.substring(k + 1);
            if (o.arity() != 0) {
                return take(o, name, rest.isEmpty() ? null : rest, args, i, cur);
            }
            note(o, List.of(), cur);
        }
        return i + 1;
    }

    private int take(Option o, String name, String joinedValue, List<String> args, int i, Context cur)
            throws Refusal {
        if (joinedValue != null && o.arity() == 0) {
            throw new Refusal(name + " takes no value, but it is given one ('" + args.get(i) + "')", null);
        }
        int separate = o.arity() == OPTIONAL ? 0 : o.arity() - (joinedValue != null ? 1 : 0);
        if (i + separate >= args.size()) {
            throw new Refusal(name + " wants " + (o.arity() == 2 ? "two values" : "a value")
                    + ", and the launcher's arguments end there", null);
        }
        List<String> values = new ArrayList<>();
        if (joinedValue != null) {
            values.add(joinedValue);
        }
        values.addAll(args.subList(i + 1, i + 1 + separate));
        note(o, values, cur);
        cur.uses.add(new Use(i, 1 + separate, o, List.copyOf(values)));
        return i + 1 + separate;
    }

    private static void note(Option o, List<String> values, Context cur) {
        switch (o.role()) {
            case APPFILE -> cur.appFiles.add(values.get(0));
            case CONFIGFILE -> cur.configFiles.add(values.get(0));
            case MULTIPROG -> cur.multiProg = true;
            case NONE -> {
                // nothing about the programs
            }
        }
    }

    /**
     * An option not in the table: when {@code end} ({@code --}) follows in the same context, the
     * program is the word after it whatever the options before take; otherwise a refusal naming it.
     */
    private int unknown(List<String> args, int i, String name) throws Refusal {
        for (int k = i + 1; end != null && k < args.size() && !args.get(k).equals(separator); k++) {
            if (args.get(k).equals(end)) {
                return k;
            }
        }
        throw new Refusal(name + " is not an option of jpmpi's table of " + title + " options", name);
    }

    private void fromFile(String file, Path cwd, String what, List<Program> found) throws Refusal {
        List<String> lines = read(file, cwd, what);
        for (int n = 0; n < lines.size(); n++) {
            List<String> words = words(lines.get(n));
            if (words.isEmpty()) {
                continue;
            }
            for (Context c : scan(words)) {
                if (c.program != null) {
                    found.add(new Program(c.program, "the " + what + " " + file + ", line " + (n + 1)));
                }
            }
        }
    }

    private static void fromMultiProg(String file, Path cwd, List<Program> found) throws Refusal {
        List<String> lines = read(file, cwd, "--multi-prog file");
        for (int n = 0; n < lines.size(); n++) {
            List<String> words = words(lines.get(n));
            if (words.isEmpty()) {
                continue;
            }
            if (words.size() < 2) {
                throw new Refusal("the --multi-prog file " + file + ", line " + (n + 1) + ": '" + lines.get(n).strip()
                        + "' names no program (a line is: ranks program arguments)", null);
            }
            found.add(new Program(words.get(1), "the --multi-prog file " + file + ", line " + (n + 1)));
        }
    }

    private static List<String> read(String file, Path cwd, String what) throws Refusal {
        try {
            return Files.readAllLines(cwd.resolve(file), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new Refusal("cannot read the " + what + " " + file + " (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")", null);
        }
    }

    /** A line's words: blank-separated, up to a '#'. */
    private static List<String> words(String line) {
        int hash = line.indexOf('#');
        String s = (hash >= 0 ? line.substring(0, hash) : line).strip();
        return s.isEmpty() ? List.of() : List.of(s.split("\\s+"));
    }
}
