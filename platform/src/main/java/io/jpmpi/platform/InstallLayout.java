package io.jpmpi.platform;

import java.util.List;

/**
 * The layout of a jpmpi installation: every path below its prefix, relative, so the tree works
 * wherever it is unpacked, installed or moved. The build assembles this tree (the dist module),
 * the launcher reads only it, and the dispatcher finds the Java runtime from its own location
 * with the relative paths emitted for it into {@code jpmpi_settings.h}.
 *
 * <pre>
 * bin/jpmpi                                  the launcher
 * lib/&lt;mpi&gt;/libmpiprofilesupport.so         the dispatcher per MPI, the built-in C levels beside it
 * lib/stub/libmpiprofilesupport.so           the do-nothing stub
 * lib/libjpmpi-rank-entry.so                 the modulefiles' way into a rank (LD_PRELOAD, any MPI)
 * lib/libjpmpi-preload.so                    the one preload: brings in the dispatcher of a process's MPI
 * lib/libjpmpi-inplace.so                    the launcher's JVM only: jpmpi run becoming the MPI launcher
 * libexec/jpmpi/&lt;mpi&gt;/                      helper programs per MPI (mpit list's probe)
 * libexec/jpmpi/jpmpi-plan                   bin/jpmpi's: a job of jpmpi run started from the plan kept for it
 * include/jpmpi.h                            the dispatcher's public header
 * share/jpmpi/java/runtime/                  what the ranks' JVM loads, its options, its AOT cache
 * share/jpmpi/java/tools/&lt;tool&gt;/             the built-in Java levels (and the example's)
 * share/jpmpi/java/launcher/                 the launcher's jars, its JVM options, its AOT caches
 * share/jpmpi/java/api/                      the interceptor API jar, its sources and javadoc
 * share/jpmpi/examples/                      example programs and tools (sources)
 * share/jpmpi/site/                          a site's switch-on for every job: Slurm's TaskProlog, modulefiles
 * share/jpmpi/new-tool/                      the Maven wrapper jpmpi new-tool puts into a tool project
 * share/jpmpi/builtin-tools                  the built-in tool names' files, for lib/libjpmpi-rank-entry.so
 * share/modulefiles/jpmpi/                   module load jpmpi: Lmod (.lua) and Environment Modules (Tcl)
 * share/jpmpi/jpmpi.properties               version, and the JDK the installation was made for
 * share/doc/jpmpi/                           the documentation
 * etc/jpmpi/site.conf                        a site's own (not shipped): tools every job gets
 * </pre>
 */
public final class InstallLayout {
    public static final String BIN = "bin";
    public static final String LAUNCHER_SCRIPT = BIN + "/jpmpi";
    public static final String LIB = "lib";
    public static final String STUB = "stub";
    public static final String LIBEXEC = "libexec/jpmpi";
    public static final String INCLUDE = "include";
    public static final String SHARE = "share/jpmpi";
    public static final String JAVA = SHARE + "/java";
    public static final String JAVA_RUNTIME = JAVA + "/runtime";
    public static final String JAVA_TOOLS = JAVA + "/tools";
    public static final String JAVA_LAUNCHER = JAVA + "/launcher";
    public static final String JAVA_API = JAVA + "/api";
    public static final String EXAMPLES = SHARE + "/examples";
    public static final String SITE = SHARE + "/site";
    public static final String SITE_TASK_PROLOG = SITE + "/jpmpi-task-prolog";
    public static final String NEW_TOOL = SHARE + "/new-tool";
    /** The built-in tool names and their files, for the modulefiles' rank-entry library. */
    public static final String BUILTIN_TOOLS = SHARE + "/builtin-tools";
    /** What the modulefiles put into LD_PRELOAD: inert but in an MPI rank with a tool list. */
    public static final String RANK_ENTRY = LIB + "/libjpmpi-rank-entry.so";
    /** MODULEPATH's entry for {@code module load jpmpi}: jpmpi/&lt;version&gt;(.lua) below it. */
    public static final String MODULEFILES = "share/modulefiles";
    public static final String PROPERTIES = SHARE + "/jpmpi.properties";
    /** The site's configuration: tools every job gets (profilers/accounting/ACCOUNTING.md, "Site tools"). */
    public static final String SITE_CONFIG = "etc/jpmpi/site.conf";
    /** The one preload a site puts into every process (native-stubs/README.md, "One preload"). */
    public static final String PRELOAD = LIB + "/libjpmpi-preload.so";
    /**
     * What the launcher's JVM loads to become the job's launcher ({@code exec}) when its tools need
     * nothing of it after the job (tools-entry/README.md, "The job in place of the launcher").
     */
    public static final String IN_PLACE = LIB + "/libjpmpi-inplace.so";
    /**
     * What bin/jpmpi runs for {@code jpmpi run} without the profile tool: the job started from the plan an
     * earlier run kept, without the JVM (tools-entry/README.md, "What `run` does", 9).
     */
    public static final String PLAN_HELPER = LIBEXEC + "/jpmpi-plan";
    public static final String DOC = "share/doc/jpmpi";

    /** The jars of the ranks' Java runtime, in class-path order, in {@link #JAVA_RUNTIME}. */
    public static final String[] RUNTIME_JARS = {"jpmpi-layering.jar", "asm.jar"};
    /** The ranks' JVM options, one per line, in {@link #JAVA_RUNTIME} (read by the AOT training too). */
    public static final String JVM_OPTIONS = "jvm.options";
    /** The AOT training's interceptor jar, in {@link #JAVA_RUNTIME}. */
    public static final String TRAINING_JAR = "jpmpi-aot-training.jar";
    /** In {@link #PROPERTIES}: the JDK the ranks start when neither JPMPI_JAVA_HOME nor JAVA_HOME is set. */
    public static final String JAVA_HOME_KEY = "java.home";
    public static final String VERSION_KEY = "version";
    /** In {@link #PROPERTIES}: the commit the installation was built from, and when (jpmpi -V). */
    public static final String COMMIT_KEY = "commit";
    public static final String BUILD_DATE_KEY = "build.date";

    private InstallLayout() {
    }

    /**
     * The launcher's class path, in {@link #JAVA_LAUNCHER}: its classes and its dependencies' in one jar,
     * and this module's jar (the launchers' grammars, read from it before a job starts).
     */
    public static final List<String> LAUNCHER_JARS = List.of("jpmpi-launcher.jar", "jpmpi-platform.jar");

    /** The launcher's JVM options, one per line, in {@link #JAVA_LAUNCHER} (bin/jpmpi and its AOT training). */
    public static final String LAUNCHER_JVM_OPTIONS = "jvm.options";

    /** The launcher's own AOT cache made for JDK {@code major}, in {@link #JAVA_LAUNCHER}: every command. */
    public static String launcherAotCache(int major) {
        return "jpmpi-launcher-jdk" + major + ".aot";
    }

    /**
     * The launcher's second AOT cache for JDK {@code major}, in {@link #JAVA_LAUNCHER}: trained on a
     * {@code run} without the profile tool alone, which bin/jpmpi gives the JVM for such a command (fewer
     * classes, mapped and linked sooner; tools-entry/README.md, "The launcher's own start").
     */
    public static String launcherRunAotCache(int major) {
        return "jpmpi-launcher-run-jdk" + major + ".aot";
    }

    /** The AOT cache made for JDK {@code major}, in {@link #JAVA_RUNTIME}. */
    public static String aotCache(int major) {
        return "jpmpi-jdk" + major + ".aot";
    }

    /**
     * What an AOT cache was made for ({@link #aotCache} + this suffix): the JDK and the class path,
     * which must both match for the JVM to use it.
     */
    public static final String AOT_INFO_SUFFIX = ".info";
    /** In an AOT cache's info file: the JDK it was made with, and the class path it was made for. */
    public static final String AOT_JAVA_HOME_KEY = "java.home";
    public static final String AOT_CLASSPATH_KEY = "classpath";
    /**
     * In an AOT cache's info file: the JVM options that map the cache where it was made to be mapped,
     * when the JDK that made it takes them (empty otherwise), which bin/jpmpi and the ranks' JVM add
     * to the cache's own option: without them the JVM maps it at a random address and moves every
     * pointer in it on each start (tools-entry/README.md, "The launcher's own start").
     */
    public static final String AOT_MAP_OPTIONS_KEY = "map.options";

    /** How many directories a library in {@code lib/<mpi>/} is below the prefix. */
    public static final int LIB_DEPTH = 2;
}
