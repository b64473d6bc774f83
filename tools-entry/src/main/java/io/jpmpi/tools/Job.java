package io.jpmpi.tools;

import io.jpmpi.platform.InstallLayout;
import io.jpmpi.platform.Settings;
import io.jpmpi.profilers.report.OwnDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A launcher command made ready to run through jpmpi: which MPI it is, the entry list checked,
 * and the variables the ranks (only they) get, inserted in the launcher's own syntax.
 *
 * @param command     the command to start
 * @param launcherEnv variables added to the launcher's own environment (srun only: values with commas)
 * @param rankEnv     what the ranks get
 */
public record Job(List<String> command, Map<String, String> launcherEnv, Map<String, String> rankEnv, MpiImpl impl,
                  Launcher launcher, Optional<Application> application, EntryList entries) {
    /** The profile tool's recorder, by its file name. */
    static final String PROFILE_RECORDER = "libjpmpi-profile.so";

    /** What a job is asked to be. */
    public record Request(List<String> launcherCommand, String tools, Path output, Optional<MpiImpl> mpi,
                          boolean checkApplication, boolean dryRun) {
        /** A job that is to run (its output directory made now). */
        public Request(List<String> launcherCommand, String tools, Path output, Optional<MpiImpl> mpi,
                       boolean checkApplication) {
            this(launcherCommand, tools, output, mpi, checkApplication, false);
        }
    }

    /** Plans {@code request}; nothing is started. */
    public static Job plan(Layout layout, Request request, Map<String, String> env) throws JpmpiException {
        List<String> cmd = request.launcherCommand();
        Launcher launcher = Launcher.identify(cmd.get(0), env);
        List<String> rest = cmd.subList(1, cmd.size());
        List<Path> programs = Application.find(launcher, rest, env, request.checkApplication());
        Optional<Application> app = Optional.empty();
        for (Path p : programs) {
            Application a = Application.inspect(p);
            if (request.checkApplication()) {
                checkIsMpi(a);
            }
            if (app.isEmpty()) {
                app = Optional.of(a);
            } else if (a.impl().isPresent() && app.get().impl().isPresent() && a.impl().get() != app.get().impl().get()) {
                throw new JpmpiException(ExitCode.MPI_MISMATCH, "the job's programs belong to different MPIs: "
                        + app.get().path() + " is linked against " + app.get().impl().get().displayName() + ", "
                        + a.path() + " against " + a.impl().get().displayName());
            } else if (app.get().impl().isEmpty()) {
                app = Optional.of(a); // the MPI a script's sibling links says the job's
            }
        }
        MpiImpl impl = chooseImpl(launcher, app, request.mpi());

        Path dispatcher = layout.dispatcher(impl.id());
        Plans.RECORDED.file(dispatcher);
        if (!Files.isRegularFile(dispatcher)) {
            throw new JpmpiException(ExitCode.NOT_BUILT, "no jpmpi dispatcher for " + impl.displayName() + " ("
                    + dispatcher + " is missing): build jpmpi where " + impl.mpicc() + " is installed (./mvnw install)");
        }
        EntryList entries = EntryList.resolve(request.tools(), layout, impl, env);

        Map<String, String> rank = new LinkedHashMap<>();
        List<String> preload = new ArrayList<>();
        if (entries.hasJava()) {
            Path home = Jdk.forRanks(env);
            Jdk jdk = Jdk.at(home).orElseThrow(() -> new JpmpiException(ExitCode.NO_JDK,
                    "Java levels need a JDK >= " + Jdk.MIN_MAJOR + ", and " + home + " is not a JDK (set "
                            + Settings.JAVA_HOME.env() + ")"));
            List<String> problems = jdk.problems();
            if (!problems.isEmpty()) {
                throw new JpmpiException(ExitCode.NO_JDK, "the JDK for Java levels, " + home + ", cannot serve: "
                        + String.join("; ", problems) + " (set " + Settings.JAVA_HOME.env() + " to a JDK >= "
                        + Jdk.MIN_MAJOR + ")");
            }
            if (!Files.isRegularFile(layout.javaRuntimeDir().resolve(InstallLayout.RUNTIME_JARS[0]))) {
                throw new JpmpiException(ExitCode.NOT_BUILT, "this jpmpi installation has no Java runtime ("
                        + layout.javaRuntimeDir() + " lacks " + InstallLayout.RUNTIME_JARS[0] + ")");
            }
            rank.put(Settings.JAVA_HOME.alias(), jdk.home().toString());
        }
        preload.add(dispatcher.toString());
        if (entries.preload()) {
            preload.addAll(entries.cTools());
        }
        String userPreload = env.get("LD_PRELOAD");
        if (userPreload != null && !userPreload.isBlank()) {
            preload.add(userPreload);
        }
        rank.put("LD_PRELOAD", String.join(":", preload));
        rank.put(Settings.TOOLS_ENTRY.env(), entries.render());
        if (entries.cTools().stream().anyMatch(t -> t.endsWith("/" + PROFILE_RECORDER))) {
            // the profile tool is listed: its output is wanted, whatever the levels below it need
            rank.put(Settings.PROFILE_OUTPUT.env(), env.getOrDefault(Settings.PROFILE_OUTPUT.env(), "on"));
        }
        if (request.output() != null) {
            Path out = request.output().toAbsolutePath().normalize();
            try {
                if (!request.dryRun()) {
                    OwnDirectory.make(out); // a dry run creates nothing
                }
            } catch (IOException e) {
                throw new JpmpiException(ExitCode.USAGE, "--output " + out + ": cannot create it (" + e.getMessage() + ")");
            }
            rank.put(Settings.OUTPUT_DIR.env(), out.toString());
        }
        // Whatever else of the table the user set for the ranks travels with them (Open MPI forwards
        // nothing by itself).
        for (Settings.Setting s : Settings.all()) {
            if (s.reader() != Settings.Reader.LAUNCHER && !rank.containsKey(s.env()) && env.get(s.env()) != null) {
                rank.put(s.env(), env.get(s.env()));
            }
        }
        Launcher.Rewritten rw = launcher.pass(cmd, rank, env);
        return new Job(rw.command(), rw.launcherEnv(), rank, impl, launcher, app, entries);
    }

    private static void checkIsMpi(Application a) throws JpmpiException {
        switch (a.kind()) {
            case STATIC -> throw new JpmpiException(ExitCode.NOT_MPI, a.path() + " is statically linked: jpmpi"
                    + " interposes through the dynamic loader (LD_PRELOAD); link it with the MPI shared library");
            case DYNAMIC -> {
                if (a.impl().isEmpty()) {
                    Optional<String> foreign = a.foreignMpi();
                    throw new JpmpiException(ExitCode.NOT_MPI, foreign.isPresent()
                            ? a.path() + " links " + foreign.get() + ", an MPI library jpmpi has no build for"
                            + " (it has Open MPI and MPICH)"
                            : a.path() + " is not an MPI program: it links no MPI library (if it loads MPI at run time,"
                            + " as a Julia or R binding does, add --no-app-check and --mpi; python with mpi4py is"
                            + " recognised)");
                }
            }
            case SCRIPT -> {
                // A wrapper script: what it runs is its business.
            }
        }
    }

    private static MpiImpl chooseImpl(Launcher launcher, Optional<Application> app, Optional<MpiImpl> asked)
            throws JpmpiException {
        Optional<MpiImpl> fromApp = app.flatMap(Application::impl);
        Optional<MpiImpl> fromLauncher = launcher.impl();
        if (fromApp.isPresent() && fromLauncher.isPresent() && fromApp.get() != fromLauncher.get()) {
            throw new JpmpiException(ExitCode.MPI_MISMATCH, "the launcher " + launcher.word() + " belongs to "
                    + fromLauncher.get().displayName() + " but " + app.get().path() + " is linked against "
                    + fromApp.get().displayName() + ": start it with " + fromApp.get().mpirun()
                    + ", or rebuild it with " + fromLauncher.get().mpicc());
        }
        Optional<MpiImpl> found = fromApp.or(() -> fromLauncher);
        if (asked.isPresent()) {
            if (found.isPresent() && found.get() != asked.get()) {
                throw new JpmpiException(ExitCode.MPI_MISMATCH, "--mpi " + asked.get().id() + " but the job is "
                        + found.get().displayName() + "'s (" + (fromApp.isPresent() ? app.get().path() : launcher.word())
                        + ")");
            }
            return asked.get();
        }
        return found.orElseThrow(() -> new JpmpiException(ExitCode.NOT_MPI, "cannot tell which MPI "
                + launcher.word() + " runs (the program is a script): name it with --mpi openmpi|mpich"));
    }
}
