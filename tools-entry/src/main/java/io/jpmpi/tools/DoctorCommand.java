package io.jpmpi.tools;

import io.jpmpi.platform.InstallLayout;
import io.jpmpi.platform.Settings;
import io.jpmpi.platform.Toolchain;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code jpmpi doctor}: is this machine ready, and if not, what to do. */
@Command(name = "doctor", mixinStandardHelpOptions = true,
        description = {"Check the JDK, the MPI implementations, that each jpmpi dispatcher build matches its MPI"
                + " (ABI and version), that a tool list resolves, and that a 2-rank job through a Java level works.",
                "One line per check; each FAIL says how to fix it."})
public final class DoctorCommand implements Callable<Integer> {
    @Option(names = {"-t", "--tools"}, paramLabel = "LIST", description = "A tool list to check (default: $JPMPI_TOOLS_ENTRY).")
    String tools;

    @Option(names = "--mpi", paramLabel = "IMPL", description = "Check only this MPI (openmpi or mpich); it must be there.")
    String mpi;

    @Option(names = "--no-smoke", description = "Skip the 2-rank smoke runs.")
    boolean noSmoke;

    private final Context ctx;
    private int failures;
    private int warnings;

    public DoctorCommand(Context ctx) {
        this.ctx = ctx;
    }

    private enum Status {
        OK("ok"), WARN("warn"), FAIL("FAIL"), SKIP("skip");

        final String word;

        Status(String word) {
            this.word = word;
        }
    }

    private void line(Status s, String what, String fix) {
        if (s == Status.FAIL) {
            failures++;
        } else if (s == Status.WARN) {
            warnings++;
        }
        ctx.out().println(String.format("%-4s  %s%s", s.word, what, fix == null ? "" : " -- fix: " + fix));
        ctx.out().flush();
    }

    @Override
    public Integer call() throws JpmpiException {
        List<MpiImpl> impls = List.of(MpiImpl.values());
        if (mpi != null) {
            impls = List.of(MpiImpl.byId(mpi).orElseThrow(() -> new JpmpiException(ExitCode.USAGE,
                    "doctor: --mpi " + mpi + ": expected openmpi or mpich")));
        }
        line(Status.OK, "jpmpi runs on JDK " + System.getProperty("java.version") + " at "
                + System.getProperty("java.home") + " (home " + ctx.layout().home() + ")", null);
        Optional<Jdk> jdk = checkRanksJdk();
        jdk.ifPresent(this::checkJavaOptions);
        boolean runtime = checkJavaRuntime(jdk);
        checkPlans();
        String list = tools != null ? tools : Settings.TOOLS_ENTRY.value(ctx.env()).orElse(null);
        for (MpiImpl impl : impls) {
            boolean ready = checkImplementation(impl);
            if (ready && list != null) {
                checkToolList(impl, list);
            }
            if (ready && !noSmoke) {
                if (jdk.isPresent() && runtime) {
                    smoke(impl);
                } else {
                    line(Status.SKIP, impl.displayName() + ": smoke run (needs the JDK and the Java runtime above)", null);
                }
            }
        }
        ctx.out().println("jpmpi doctor: " + (failures == 0 ? "ready" : failures + " check(s) failed")
                + (warnings == 0 ? "" : ", " + warnings + " warning(s)"));
        ctx.out().flush();
        return failures == 0 ? ExitCode.OK.code : ExitCode.CHECKS_FAILED.code;
    }

    private Optional<Jdk> checkRanksJdk() {
        Path home = Jdk.forRanks(ctx.env());
        String via = ctx.env().get(Settings.JAVA_HOME.env()) != null ? Settings.JAVA_HOME.env() : "the launcher's JDK";
        Optional<Jdk> jdk = Jdk.at(home);
        String fix = "set " + Settings.JAVA_HOME.env() + " to a JDK >= " + Jdk.MIN_MAJOR
                + goodJdk().map(p -> " (this machine has " + p + ")").orElse(" (none found under /usr/lib/jvm)");
        if (jdk.isEmpty()) {
            line(Status.FAIL, "JDK for Java levels (" + via + "): " + home + " is not a JDK", fix);
            return Optional.empty();
        }
        List<String> problems = jdk.get().problems();
        if (!problems.isEmpty()) {
            line(Status.FAIL, "JDK for Java levels (" + via + "): " + home + ": " + String.join("; ", problems), fix);
            return Optional.empty();
        }
        line(Status.OK, "JDK for Java levels (" + via + "): " + jdk.get().version() + " at " + home
                + " (libjvm.so)", null);
        return jdk;
    }

    /** JPMPI_JAVA_OPTIONS, if set: does the ranks' JDK start with them ({@code java OPTIONS -version})? */
    private void checkJavaOptions(Jdk jdk) {
        String options = Settings.JAVA_OPTIONS.value(ctx.env()).orElse("").trim();
        if (options.isEmpty()) {
            return;
        }
        List<String> command = new java.util.ArrayList<>(List.of(jdk.home().resolve("bin/java").toString()));
        command.addAll(List.of(options.split("[ \t]+")));
        command.add("-version");
        String what = Settings.JAVA_OPTIONS.env() + "='" + options + "'";
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String said = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
                line(Status.FAIL, what + ": the JVM did not answer within 60 s", "check the options");
            } else if (p.exitValue() != 0) {
                String reason = said.lines().map(String::trim).filter(l -> !l.isEmpty()
                        && !l.startsWith("Error: Could not create the Java Virtual Machine")
                        && !l.startsWith("Error: A fatal exception")).reduce((a, b) -> a + "; " + b).orElse("exit " + p.exitValue());
                line(Status.FAIL, what + ": the JVM does not start with them: " + reason,
                        "remove or correct them (the ranks would stop at their first MPI call)");
            } else {
                line(Status.OK, what + ": the ranks' JVM starts with them", null);
            }
        } catch (java.io.IOException e) {
            line(Status.FAIL, what + ": cannot run " + command.get(0) + ": " + e.getMessage(), null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Optional<Path> goodJdk() {
        try (Stream<Path> dirs = Files.list(Path.of("/usr/lib/jvm"))) {
            return dirs.filter(Files::isDirectory).map(Jdk::at).flatMap(Optional::stream)
                    .filter(j -> j.problems().isEmpty()).map(Jdk::home).sorted().findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private boolean checkJavaRuntime(Optional<Jdk> jdk) {
        Path dir = ctx.layout().javaRuntimeDir();
        for (String jar : InstallLayout.RUNTIME_JARS) {
            if (!Files.isRegularFile(dir.resolve(jar))) {
                line(Status.FAIL, "jpmpi Java runtime: " + dir + " lacks " + jar, "reinstall jpmpi (bin/jpmpi install"
                        + " --prefix DIR from a complete tree)");
                return false;
            }
        }
        line(Status.OK, "jpmpi Java runtime: " + dir, null);
        jdk.ifPresent(j -> aotLine(j, AotCache.unfit(ctx.layout(), j), "AOT cache for JDK " + j.major() + ": "
                + ctx.layout().aotCachePath(j.major()).getFileName() + " (fast JVM start)",
                "Java levels start without it, about 3x slower"));
        // the launcher's own cache, for the JDK running this launcher
        Jdk.at(Path.of(System.getProperty("java.home"))).ifPresent(j -> aotLine(j,
                AotCache.unfitLauncher(ctx.layout(), j), "launcher's AOT caches for JDK " + j.major() + ": "
                + ctx.layout().launcherAotCachePath(j.major()).getFileName() + ", "
                + ctx.layout().launcherRunAotCachePath(j.major()).getFileName() + " (bin/jpmpi starts fast)",
                "bin/jpmpi starts without it, about 0.2 s slower"));
        return true;
    }

    /**
     * The plans jpmpi run keeps of earlier jobs (tools-entry/README.md, "What `run` does", 9): on, the
     * helper there, and this user's directory of them one of the user's alone (else none is used).
     */
    private void checkPlans() {
        String what = "plans of earlier jobs (jpmpi run without profile starts a job again without its JVM)";
        if (Settings.LAUNCHER_PLANS.value(ctx.env()).filter("off"::equals).isPresent()) {
            line(Status.OK, what + ": off (" + Settings.LAUNCHER_PLANS.env() + ")", null);
            return;
        }
        Path helper = ctx.layout().home().resolve(InstallLayout.PLAN_HELPER);
        if (!Files.isExecutable(helper)) {
            line(Status.WARN, what + ": this installation has no " + helper + ", so every run plans in the JVM (~45 ms)",
                    "reinstall jpmpi (bin/jpmpi install --prefix DIR)");
            return;
        }
        Optional<Path> dir = Plans.directory(ctx.env());
        if (dir.isEmpty()) {
            line(Status.WARN, what + ": neither XDG_CACHE_HOME nor HOME is an absolute path, so none is kept", null);
            return;
        }
        try {
            int kept = 0;
            for (Path d : List.of(dir.get().getParent(), dir.get())) {
                if (Files.exists(d, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    io.jpmpi.profilers.report.OwnDirectory.make(d); // (there already: only checked)
                }
            }
            if (Files.isDirectory(dir.get())) {
                try (var files = Files.list(dir.get())) {
                    kept = (int) files.filter(f -> f.getFileName().toString().endsWith(".plan")).count();
                }
            }
            line(Status.OK, what + ": " + kept + " kept in " + dir.get(), null);
        } catch (IOException e) {
            line(Status.WARN, what + ": " + e.getMessage() + " (none there is used or kept)",
                    "remove it; jpmpi run makes its own");
        }
    }

    /** One AOT cache's line: {@code ok} where it fits, else why not, what that costs and the fix. */
    private void aotLine(Jdk jdk, Optional<String> unfit, String ok, String cost) {
        if (unfit.isEmpty()) {
            line(Status.OK, ok, null);
        } else {
            line(Status.WARN, unfit.get() + ": " + cost, jdk.major() >= AotCache.MIN_MAJOR
                    ? ctx.layout().home().resolve(InstallLayout.LAUNCHER_SCRIPT) + " aot" : "use a JDK >= " + AotCache.MIN_MAJOR);
        }
    }

    /** The launcher, the library, and the dispatcher build made for it. */
    private boolean checkImplementation(MpiImpl impl) throws JpmpiException {
        String name = impl.displayName();
        Optional<Path> cc = Launcher.which(impl.mpicc(), ctx.env());
        Optional<Path> run = Launcher.which(impl.mpirun(), ctx.env());
        if (cc.isEmpty() && run.isEmpty()) {
            if (mpi != null) {
                line(Status.FAIL, name + ": not installed (" + impl.mpicc() + " and " + impl.mpirun() + " are not on PATH)",
                        installHint(impl));
            } else {
                line(Status.SKIP, name + ": not installed (" + impl.mpicc() + ", " + impl.mpirun() + " not on PATH)", null);
            }
            return false;
        }
        if (cc.isEmpty() || run.isEmpty()) {
            line(Status.FAIL, name + ": " + (cc.isEmpty() ? impl.mpicc() : impl.mpirun()) + " is not on PATH",
                    installHint(impl));
            return false;
        }
        try {
            Launcher l = Launcher.identify(run.get().toString(), ctx.env());
            if (l.impl().isPresent() && l.impl().get() != impl) {
                line(Status.FAIL, name + ": " + impl.mpirun() + " is " + l.impl().get().displayName() + "'s launcher",
                        "point " + impl.mpirunSetting().env() + " at " + name + "'s mpirun");
                return false;
            }
        } catch (JpmpiException e) {
            line(Status.FAIL, name + ": " + e.getMessage(), "point " + impl.mpirunSetting().env()
                    + " at " + name + "'s mpirun");
            return false;
        }
        Optional<MpiLibrary.Answer> lib = MpiLibrary.ask(impl.libraries.get(0));
        if (lib.isEmpty()) {
            line(Status.FAIL, name + ": its library " + impl.libraries.get(0) + " does not load", installHint(impl));
            return false;
        }
        line(Status.OK, name + ": " + run.get() + ", " + cc.get() + ", " + lib.get().soname() + " says '"
                + lib.get().firstLine() + "'", null);
        return checkDispatcher(impl, lib.get());
    }

    private boolean checkDispatcher(MpiImpl impl, MpiLibrary.Answer lib) {
        String name = impl.displayName();
        Layout layout = ctx.layout();
        Path so = layout.dispatcher(impl.id());
        String rebuild = "rebuild jpmpi where " + impl.mpicc() + " is the installed one (./mvnw install -DskipTests), then"
                + " bin/jpmpi install --prefix DIR";
        if (!Files.isRegularFile(so)) {
            line(Status.FAIL, name + " dispatcher: " + so + " is missing", rebuild);
            return false;
        }
        Properties info = new Properties();
        try (InputStream in = Files.newInputStream(layout.buildInfo(impl.id()))) {
            info.load(in);
        } catch (IOException e) {
            line(Status.FAIL, name + " dispatcher: no build record " + layout.buildInfo(impl.id()), rebuild);
            return false;
        }
        // What the ABI tables really link, read from the library itself rather than the record.
        Path abi = so.resolveSibling("libmpiprofilesupport-abi.so");
        String needed;
        try {
            needed = Toolchain.run(List.of("objdump", "-p", abi.toString())).lines().map(String::trim)
                    .filter(l -> l.startsWith("NEEDED") && l.contains("libmpi")).map(l -> l.split("\\s+")[1])
                    .findFirst().orElse("none");
        } catch (IOException e) {
            line(Status.FAIL, name + " dispatcher: cannot read " + abi + " (" + e.getMessage() + ")", rebuild);
            return false;
        }
        String builtFor = MpiImpl.bySoname(needed).map(MpiImpl::displayName).orElse("an unknown MPI");
        if (!impl.libraries.contains(needed) || !impl.id().equals(info.getProperty("impl"))) {
            line(Status.FAIL, name + " dispatcher " + so.getParent() + " was built for " + builtFor + " (" + needed
                    + ", record says " + info.getProperty("impl") + "), not " + name, rebuild);
            return false;
        }
        String built = info.getProperty("mpi.version", "unknown");
        String running = lib.version();
        String what = name + " dispatcher: built against " + built + " (" + needed + "), library is " + running;
        if (!majorMinor(built).equals(majorMinor(running))) {
            line(Status.FAIL, what, rebuild);
            return false;
        }
        if (!built.equals(running)) {
            line(Status.WARN, what + " (same ABI series)", rebuild);
        } else {
            line(Status.OK, what, null);
        }
        return true;
    }

    private static String majorMinor(String v) {
        String[] p = v.split("\\.");
        return p.length >= 2 ? p[0] + "." + p[1] : v;
    }

    private static String installHint(MpiImpl impl) {
        return impl == MpiImpl.OPENMPI ? "apt-get install openmpi-bin libopenmpi-dev (or load its module)"
                : "apt-get install mpich libmpich-dev (or load its module)";
    }

    private void checkToolList(MpiImpl impl, String list) {
        try {
            EntryList e = EntryList.resolve(list, ctx.layout(), impl, ctx.env());
            line(Status.OK, impl.displayName() + ": tool list '" + list + "' resolves to " + e.render(), null);
        } catch (JpmpiException e) {
            line(Status.FAIL, impl.displayName() + ": " + e.getMessage(), "correct the list (syntax: jpmpi run --help)");
        }
    }

    /** Compiles smoke.c and runs it on 2 ranks through the probe Java level. */
    private void smoke(MpiImpl impl) {
        String name = impl.displayName() + ": 2-rank smoke run through a Java level";
        Path probe = ctx.layout().probeJar();
        if (!Files.isRegularFile(probe)) {
            line(Status.FAIL, name + ": " + probe + " is missing", "./mvnw install -DskipTests");
            return;
        }
        try {
            Path dir = Files.createTempDirectory("jpmpi-doctor-" + impl.id() + "-");
            Path src = dir.resolve("smoke.c");
            try (InputStream in = DoctorCommand.class.getResourceAsStream("smoke.c")) {
                Files.write(src, in.readAllBytes());
            }
            Path exe = dir.resolve("smoke");
            int cc = Processes.runToFiles(List.of(impl.mpicc(), "-o", exe.toString(), src.toString()), Map.of(),
                    dir.resolve("cc.out"), dir.resolve("cc.err"), dir, 120);
            if (cc != 0) {
                line(Status.FAIL, name + ": " + impl.mpicc() + " failed: " + firstLine(dir.resolve("cc.err")),
                        "see " + dir);
                return;
            }
            List<String> command = new ArrayList<>();
            command.add(impl.mpirun());
            command.addAll(impl.ranksArgs(2));
            command.add(exe.toString());
            Job job = Job.plan(ctx.layout(), new Job.Request(command, probe.toString(), null, Optional.of(impl), true),
                    ctx.env());
            Map<String, String> env = new LinkedHashMap<>(job.launcherEnv());
            env.putAll(AsRoot.allowance(ctx, job.launcher().kind()));
            long t0 = System.nanoTime();
            int rc = Processes.runToFiles(job.command(), env, dir.resolve("stdout"), dir.resolve("stderr"), dir, 120);
            double seconds = (System.nanoTime() - t0) / 1e9;
            String out = Files.readString(dir.resolve("stdout"));
            String err = Files.readString(dir.resolve("stderr"));
            List<String> missing = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                if (!out.contains("smoke rank " + r + " of 2: sum=1 ok")) {
                    missing.add("rank " + r + "'s result");
                }
                if (!err.contains("jpmpi-probe rank " + r + " of 2: ok allreduce=1 barrier=1 int=4")) {
                    missing.add("rank " + r + "'s Java level line");
                }
            }
            if (rc == 0 && missing.isEmpty()) {
                line(Status.OK, String.format("%s (%.1f s)", name, seconds), null);
                deleteTree(dir);
            } else {
                String why = rc == -1 ? "timed out after 120 s" : rc != 0 ? "exit status " + rc : "no " + String.join(", ", missing);
                String jpmpiLine = err.lines().filter(l -> l.startsWith("jpmpi")).findFirst().orElse(firstLine(dir.resolve("stderr")));
                line(Status.FAIL, name + ": " + why + (jpmpiLine.isEmpty() ? "" : ": " + jpmpiLine),
                        "read " + dir.resolve("stderr") + "; run jpmpi run -v --tools vv," + probe + " -- ...");
            }
        } catch (JpmpiException e) {
            line(Status.FAIL, name + ": " + e.getMessage(), "see the checks above");
        } catch (IOException e) {
            line(Status.FAIL, name + ": " + e.getMessage(), "check that the temporary directory is writable");
        }
    }

    private static String firstLine(Path file) {
        try {
            return Files.readAllLines(file).stream().filter(l -> !l.isBlank()).findFirst().orElse("");
        } catch (IOException e) {
            return "";
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
