package io.jpmpi.platform;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The one table of jpmpi's configuration: every environment variable any part of jpmpi reads.
 *
 * <p>A name is never written by hand: it is derived as {@code JPMPI_<AREA>_<KEY>} from the
 * setting's area and key. The dispatcher's C core reads the names from a header generated from
 * this table ({@code jpmpi_settings.h}), the launcher's {@code --help} and {@code jpmpi config}
 * print it, and the configuration section of tools-entry/README.md is checked against it.
 */
public final class Settings {
    /** Who reads a setting. */
    public enum Reader {
        /** The C dispatcher in every rank (libmpiprofilesupport.so). */
        DISPATCHER("dispatcher"),
        /** The Java runtime of Java levels, in every rank. */
        JAVA_LEVELS("Java levels"),
        /** The built-in tools, in every rank. */
        TOOLS("tools"),
        /** The jpmpi launcher and the scripts (demo, doctor), on the node that starts the job. */
        LAUNCHER("launcher"),
        /** A site's switch-on for every job: share/jpmpi/site (Slurm's TaskProlog, the modulefile). */
        SITE("site scripts");

        public final String label;

        Reader(String label) {
            this.label = label;
        }
    }

    /**
     * One setting.
     *
     * @param area         the first part of the name (TOOLS, JAVA, OUTPUT, ...)
     * @param key          the second part
     * @param reader       who reads it
     * @param defaultValue what applies when it is unset, in words
     * @param description  one sentence
     * @param alias        another variable read when this one is unset (or null)
     */
    public record Setting(String area, String key, Reader reader, String defaultValue, String description,
                          String alias) {
        public Setting {
            Objects.requireNonNull(area);
            Objects.requireNonNull(key);
            Objects.requireNonNull(reader);
            Objects.requireNonNull(defaultValue);
            Objects.requireNonNull(description);
            if (!upperWord(area, false) || !upperWord(key, true)) {
                throw new IllegalArgumentException("area and key are upper-case words: " + area + " " + key);
            }
        }

        /**
         * [A-Z][A-Z0-9]* (with {@code underscore}, [A-Z][A-Z0-9_]*), checked by hand: the table is made on
         * every start of the launcher, and a regular expression per setting was ~3 ms of its CPU.
         */
        private static boolean upperWord(String w, boolean underscore) {
            if (w.isEmpty() || w.charAt(0) < 'A' || w.charAt(0) > 'Z') {
                return false;
            }
            for (int i = 1; i < w.length(); i++) {
                char c = w.charAt(i);
                if (!(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || underscore && c == '_')) {
                    return false;
                }
            }
            return true;
        }

        /** The environment variable: {@code JPMPI_<AREA>_<KEY>}. */
        public String env() {
            return "JPMPI_" + area + "_" + key;
        }

        /** Its value in {@code environment}, else the alias's, else empty. */
        public Optional<String> value(Map<String, String> environment) {
            String v = environment.get(env());
            if ((v == null || v.isEmpty()) && alias != null) {
                v = environment.get(alias);
            }
            return v == null || v.isEmpty() ? Optional.empty() : Optional.of(v);
        }

        /** Its value in this process's environment. */
        public Optional<String> value() {
            return value(System.getenv());
        }
    }

    private static final List<Setting> ALL;

    static {
        List<Setting> s = new ArrayList<>();
        s.add(new Setting("TOOLS", "ENTRY", Reader.DISPATCHER, "no levels",
                "The entry list, top level first: C tool libraries (path/libx.so or a bare name), interceptor"
                        + " jars, keywords v, vv, fort, preload; the launcher also takes built-in tool names.",
                "OMPI_MCA_ompi_tools_entry"));
        s.add(new Setting("PRELOAD", "SAVED", Reader.DISPATCHER, "unset",
                "Internal: set by the one preload (lib/libjpmpi-preload.so) across the one time it executes an MPI"
                        + " program again with its dispatcher; the new image restores LD_PRELOAD from it and unsets it.",
                null));
        s.add(new Setting("SITE", "CONFIG", Reader.DISPATCHER, "the installation's etc/jpmpi/site.conf, if there",
                "The site's configuration file: tools every job gets below the job's own, settings for them, whether"
                        + " a job may opt out (profilers/accounting/ACCOUNTING.md, \"Site tools\").", null));
        s.add(new Setting("JAVA", "HOME", Reader.DISPATCHER, "JAVA_HOME, then the installation's recorded JDK",
                "The JDK (>= 22) whose libjvm.so the ranks start for Java levels.", "JAVA_HOME"));
        s.add(new Setting("JAVA", "CLASSPATH", Reader.DISPATCHER, "the installation's share/jpmpi/java/runtime",
                "The jpmpi Java runtime jars (layering), colon-separated; the dispatcher finds them from its own place.",
                null));
        s.add(new Setting("JAVA", "AOT", Reader.DISPATCHER, "jpmpi-jdk<N>.aot beside the runtime jar, if made for it",
                "The AOT cache (JDK >= 25) that makes the JVM start fast; used only with the JDK and class path it"
                        + " was made for (jpmpi aot remakes it).", null));
        s.add(new Setting("JAVA", "OPTIONS", Reader.DISPATCHER, "none",
                "Extra JVM options for the ranks' JVM, blank-separated (e.g. -Xmx256m).", null));
        s.add(new Setting("OUTPUT", "DIR", Reader.TOOLS, "a new jpmpi-<job> directory",
                "Where the built-in tools write their results (the launcher's --output).", null));
        s.add(new Setting("PROFILE", "OUTPUT", Reader.TOOLS, "on, unless a level below the recorder needs none",
                "on: the profile recorder writes the profile's figures (at MPI_Finalize rank 0 writes every rank's"
                        + " ranks/rank-R.bin; jpmpi run sets it when the profile tool is listed); off: it only counts"
                        + " (for the accounting level below it, which says it needs no output when this is unset).",
                null));
        s.add(new Setting("PROFILE", "QUIET", Reader.TOOLS, "unset",
                "Set to anything: the profile tool's rank 0 prints no summary line at MPI_Finalize even with v in"
                        + " the tool list (without v it prints none anyway; jpmpi run says where the report is).",
                null));
        s.add(new Setting("PROFILE", "DUMP_EVERY", Reader.TOOLS, "unset (no periodic dump)",
                "N, a whole number of seconds from 1 to 604800: every N seconds each rank writes its figures so far"
                        + " (ranks/rank-R.bin, as SIGUSR1 does), so that a job killed without warning leaves its last"
                        + " snapshot for jpmpi report DIR (profilers/profile/PROFILE.md).", null));
        s.add(new Setting("PROFILE", "TIMING", Reader.TOOLS, "auto",
                "auto: the profile recorder times only a random sample of a function's calls where they are too"
                        + " short to time honestly (counts and bytes stay exact; profilers/profile/PROFILE.md, Sampled"
                        + " timing); all: it times every call.",
                null));
        s.add(new Setting("PROFILE", "SITES", Reader.TOOLS, "on",
                "on: the profile recorder keeps every call site (the application's return address, per function and"
                        + " thread), each rank writes sites/rank-R.tsv at MPI_Finalize, and jpmpi run / jpmpi report name"
                        + " them with addr2line into profile.json and the reports (profilers/profile/PROFILE.md, Call"
                        + " sites); off: none kept.",
                null));
        s.add(new Setting("MPIT", "READ", Reader.TOOLS, "regions",
                "When the mpit tool reads every MPI_T performance variable: regions (MPI_Init, each MPI_Pcontrol,"
                        + " MPI_Finalize; no cost on other calls), calls (before and after every MPI call), calls:N"
                        + " (every N-th call).", null));
        s.add(new Setting("MPIT", "PVARS", Reader.TOOLS, "all",
                "The performance variables mpit reads: names or globs, comma-separated (e.g. coll_monitoring_*).",
                null));
        s.add(new Setting("MPIT", "CVARS", Reader.TOOLS, "none",
                "Control variables mpit sets before MPI_Init: name=value items separated by ';'.", null));
        s.add(new Setting("MPIT", "LIST", Reader.TOOLS, "none",
                "Set by jpmpi mpit list: mpit writes the MPI's variables to this file instead of reading them.", null));
        s.add(new Setting("HWC", "EVENTS", Reader.TOOLS, "instructions,cycles (+ fp_ops where the PMU has it)",
                "The hwc tool's counters, comma-separated perf names (instructions, cycles, fp_ops, branches,"
                        + " r<hex>, task-clock, ...); software = task-clock,context-switches,page-faults.", null));
        s.add(new Setting("HWC", "READ", Reader.TOOLS, "auto (the faster, measured at MPI_Init)",
                "How the hwc tool reads its counters: rdpmc (user space, perf mmap page), read (one read(2)"
                        + " of the event group) or auto.", null));
        s.add(new Setting("HWC", "MODE", Reader.TOOLS, "auto (sampled where a call's two reads cost over 200 ns)",
                "How the hwc tool splits its counters: calls (read on entry and exit of every MPI call), sampled"
                        + " (counters run free; an overflow every N events of the first event splits them by the"
                        + " stack: nothing per call) or auto.", null));
        s.add(new Setting("HWC", "SAMPLING", Reader.TOOLS, "30",
                "Sampled mode: overflows per second of the first event (task-clock: per second of the thread's"
                        + " CPU time; a hardware event: its rate measured at MPI_Init), 1 to 10000.", null));
        s.add(new Setting("ACCOUNTING", "FILE", Reader.TOOLS, "no record (a one-line notice)",
                "Where the accounting tool appends one line per job at MPI_Finalize: a file (created if need be),"
                        + " syslog for the system log, or unix:SOCKET for a site's collector (jpmpi accounting"
                        + " collect), which stores records no user can forge.", null));
        s.add(new Setting("ACCOUNTING", "SAMPLING", Reader.TOOLS, "20",
                "Samples per second of wall time of the thread that called MPI_Init, from which the accounting tool"
                        + " alone takes MPI % and the top functions (no cost on MPI calls; each sample takes the rank"
                        + " tens of microseconds), 0 to 10000; 0: none. Not read when the profile tool's recorder is"
                        + " listed too (every call counted and timed).", null));
        s.add(new Setting("LAUNCHER", "WARMUP", Reader.LAUNCHER, "on",
                "off: jpmpi run does not run its after-job code on a sample while the job runs, nor merge the"
                        + " ranks' dumps before its launcher has ended (on: on idle CPU only; the sample into memory,"
                        + " and the job's dumps as soon as rank 0 has written them, used only if they are unchanged"
                        + " when the job has ended; so that merging the ranks' dumps and the reports take less"
                        + " time after the job; for comparisons).", null));
        s.add(new Setting("LAUNCHER", "PLANS", Reader.LAUNCHER, "on",
                "off: jpmpi run neither keeps nor uses its plans of earlier jobs (on: a job that needs nothing of"
                        + " jpmpi after it, started again as before with nothing it was made from changed, starts"
                        + " from the plan kept for it, without the launcher's JVM; tools-entry/README.md, \"What `run`"
                        + " does\", 9).", null));
        // The site's switch-on (share/jpmpi/site: TaskProlog, modulefile, jpmpi-rank): key, default, what.
        String[][] site = {
            {"TOOLS", "on", "off: the job opts out of the site's tools where the site allows it (site.conf's"
                    + " opt-out; the TaskProlog, the modulefile's rank agent and the dispatcher honour it). In the"
                    + " job's environment (sbatch and srun pass it on; mpirun -x)."},
            {"ACCOUNTING_FILE", "syslog",
                "The ranks' JPMPI_ACCOUNTING_FILE under the modulefile, read when it is loaded (the TaskProlog's"
                        + " tools take theirs from the site configuration's set lines)."}};
        for (String[] k : site) {
            s.add(new Setting("SITE", k[0], Reader.SITE, k[1], k[2], null));
        }
        for (Toolchain t : Toolchain.KNOWN) {
            s.add(new Setting(area(t), "MPICC", Reader.LAUNCHER, t.cc(),
                    t.name() + "'s C compiler wrapper (demo and doctor compile with it).", null));
            s.add(new Setting(area(t), "MPIRUN", Reader.LAUNCHER, t.mpirun(),
                    t.name() + "'s launcher (doctor's smoke run and the demo use it).", null));
        }
        Map<String, Setting> byName = new LinkedHashMap<>();
        for (Setting setting : s) {
            if (byName.put(setting.env(), setting) != null) {
                throw new IllegalStateException("two settings named " + setting.env());
            }
        }
        ALL = Collections.unmodifiableList(s);
    }

    private Settings() {
    }

    private static String area(Toolchain t) {
        return t.id().toUpperCase(Locale.ROOT);
    }

    /** {@code JPMPI_<IMPL>_MPICC}: the C compiler wrapper of {@code t}. */
    public static Setting mpicc(Toolchain t) {
        return get(area(t), "MPICC");
    }

    /** {@code JPMPI_<IMPL>_MPIRUN}: the launcher of {@code t}. */
    public static Setting mpirun(Toolchain t) {
        return get(area(t), "MPIRUN");
    }

    /** Every setting, in the order the docs list them. */
    public static List<Setting> all() {
        return ALL;
    }

    /** The setting {@code JPMPI_<area>_<key>}; fails if there is none. */
    public static Setting get(String area, String key) {
        for (Setting s : ALL) {
            if (s.area().equals(area) && s.key().equals(key)) {
                return s;
            }
        }
        throw new IllegalArgumentException("no setting JPMPI_" + area + "_" + key);
    }

    public static final Setting TOOLS_ENTRY = get("TOOLS", "ENTRY");
    public static final Setting JAVA_HOME = get("JAVA", "HOME");
    public static final Setting JAVA_CLASSPATH = get("JAVA", "CLASSPATH");
    public static final Setting JAVA_AOT = get("JAVA", "AOT");
    public static final Setting JAVA_OPTIONS = get("JAVA", "OPTIONS");
    public static final Setting OUTPUT_DIR = get("OUTPUT", "DIR");
    public static final Setting PROFILE_OUTPUT = get("PROFILE", "OUTPUT");
    public static final Setting ACCOUNTING_FILE = get("ACCOUNTING", "FILE");
    public static final Setting LAUNCHER_WARMUP = get("LAUNCHER", "WARMUP");
    public static final Setting LAUNCHER_PLANS = get("LAUNCHER", "PLANS");

    /** The table as Markdown, as tools-entry/README.md shows it. */
    public static String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("| variable | read by | default | what |\n|---|---|---|---|\n");
        for (Setting s : ALL) {
            b.append("| `").append(s.env()).append('`');
            if (s.alias() != null) {
                b.append(" (else `").append(s.alias()).append("`)");
            }
            b.append(" | ").append(s.reader().label).append(" | ").append(s.defaultValue()).append(" | ")
                    .append(s.description().replace("|", "\\|")).append(" |\n");
        }
        return b.toString();
    }
}
