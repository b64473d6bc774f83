package io.jpmpi.tools;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.generated.InterceptorMethods;
import io.jpmpi.specs.Category;
import io.jpmpi.specs.MpiFunction;
import io.jpmpi.specs.MpiSpec;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code jpmpi functions}: the MPI functions of the spec, and which ones a jar's interceptors override. */
@Command(name = "functions", mixinStandardHelpOptions = true,
        description = {"List the MPI functions jpmpi dispatches (from specs/mpi-functions.json), with their category"
                + " and the implementations that declare them.",
                "With --jar, list the functions the jar's interceptors override: only those get an upcall."})
public final class FunctionsCommand implements Callable<Integer> {
    @Option(names = {"-c", "--category"}, paramLabel = "CATEGORY", split = ",",
            description = "Only these categories (see --categories).")
    List<String> categories = List.of();

    @Option(names = "--mpi", paramLabel = "IMPL", description = "Only functions this MPI declares (openmpi, mpich).")
    String mpi;

    @Option(names = "--jar", paramLabel = "JAR", description = "An interceptor jar: which functions it overrides.")
    Path jar;

    @Option(names = "--categories", description = "List the categories with their function counts.")
    boolean listCategories;

    private final Context ctx;

    public FunctionsCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws JpmpiException {
        MpiSpec spec = MpiSpec.load();
        Set<Category> wanted = new TreeSet<>();
        for (String c : categories) {
            try {
                wanted.add(Category.fromId(c.trim()));
            } catch (IllegalArgumentException e) {
                throw new JpmpiException(ExitCode.USAGE, "functions: unknown category '" + c + "' (jpmpi functions"
                        + " --categories lists them)");
            }
        }
        if (mpi != null && MpiImpl.byId(mpi).isEmpty()) {
            throw new JpmpiException(ExitCode.USAGE, "functions: --mpi " + mpi + ": expected openmpi or mpich");
        }
        List<MpiFunction> fns = spec.functions().stream()
                .filter(f -> wanted.isEmpty() || wanted.contains(f.category()))
                .filter(f -> mpi == null || f.declaredBy(MpiImpl.byId(mpi).get().id())).toList();
        if (listCategories) {
            Map<Category, Integer> counts = new EnumMap<>(Category.class);
            fns.forEach(f -> counts.merge(f.category(), 1, Integer::sum));
            counts.forEach((c, n) -> ctx.out().printf("%-20s %4d  %s%n", c.id(), n, c.description()));
            ctx.out().flush();
            return ExitCode.OK.code;
        }
        if (jar == null) {
            for (MpiFunction f : fns) {
                ctx.out().printf("%-36s %-20s %s%n", f.name(), f.category().id(), String.join(",", f.implementations()));
            }
            ctx.out().printf("%d functions%n", fns.size());
            ctx.out().flush();
            return ExitCode.OK.code;
        }
        Map<String, List<String>> overrides = overridesOf(jar);
        int n = 0;
        for (MpiFunction f : fns) {
            List<String> by = overrides.get(f.name());
            if (by != null) {
                ctx.out().printf("%-36s %-20s %s%n", f.name(), f.category().id(), String.join(",", by));
                n++;
            }
        }
        List<String> lifecycle = overrides.getOrDefault("", List.of());
        ctx.out().printf("%d of %d functions overridden by %s%s%n", n, fns.size(), jar.getFileName(),
                lifecycle.isEmpty() ? "" : "; lifecycle: " + String.join(", ", lifecycle));
        ctx.out().flush();
        return ExitCode.OK.code;
    }

    /**
     * Function name → the interceptor classes of {@code jar} that override it (key "" holds the
     * lifecycle callbacks they override, as Class.method). The classes are loaded, not initialised.
     */
    static Map<String, List<String>> overridesOf(Path jar) throws JpmpiException {
        if (!Files.isRegularFile(jar)) {
            throw new JpmpiException(ExitCode.BAD_ENTRY, "functions: --jar " + jar + ": no such file");
        }
        List<String> classes;
        try {
            classes = EntryList.interceptorsOf(jar);
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.BAD_ENTRY, "functions: " + jar + " is not a readable jar (" + e.getMessage() + ")");
        }
        if (classes.isEmpty()) {
            throw new JpmpiException(ExitCode.BAD_ENTRY, "functions: " + jar + " has no interceptor (no "
                    + EntryList.SERVICES + ")");
        }
        Map<String, List<String>> out = new LinkedHashMap<>();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()},
                FunctionsCommand.class.getClassLoader())) {
            for (String name : classes) {
                Class<?> c;
                try {
                    c = Class.forName(name, false, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    throw new JpmpiException(ExitCode.BAD_ENTRY, "functions: " + jar.getFileName() + " lists " + name
                            + ", which does not load (" + e + ")");
                }
                if (!Interceptor.class.isAssignableFrom(c)) {
                    throw new JpmpiException(ExitCode.BAD_ENTRY, "functions: " + name + " in " + jar.getFileName()
                            + " is not an io.jpmpi.layering.Interceptor");
                }
                String simple = c.getSimpleName();
                for (Method m : InterceptorMethods.class.getDeclaredMethods()) {
                    if (Modifier.isPublic(m.getModifiers()) && m.getName().startsWith("MPI")
                            && overrides(c, m.getName(), m.getParameterTypes())) {
                        out.computeIfAbsent(m.getName(), k -> new ArrayList<>()).add(simple);
                    }
                }
                for (String cb : List.of("afterInit", "beforeFinalize")) {
                    if (overrides(c, cb)) {
                        out.computeIfAbsent("", k -> new ArrayList<>()).add(simple + "." + cb);
                    }
                }
                if (overrides(c, "pcontrol", int.class)) {
                    out.computeIfAbsent("MPI_Pcontrol", k -> new ArrayList<>()).add(simple);
                }
            }
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.BAD_ENTRY, "functions: " + jar + ": " + e.getMessage());
        }
        return out;
    }

    private static boolean overrides(Class<?> c, String method, Class<?>... params) {
        try {
            Class<?> owner = c.getMethod(method, params).getDeclaringClass();
            return owner != InterceptorMethods.class && owner != Interceptor.class && owner != Object.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
