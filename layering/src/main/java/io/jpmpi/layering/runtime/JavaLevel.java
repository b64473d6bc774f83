package io.jpmpi.layering.runtime;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.Level;
import io.jpmpi.layering.generated.InterceptorMethods;
import io.jpmpi.layering.generated.Mpi;
import io.jpmpi.layering.generated.MpiFunctions;
import io.jpmpi.layering.generated.Upcalls;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.io.IOException;
import java.net.MalformedURLException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.zip.ZipFile;

/**
 * One jar of the entry list: its class loader, its interceptors (found with ServiceLoader:
 * META-INF/services/io.jpmpi.layering.Interceptor), an upcall stub for each function an
 * interceptor overrides - and none for the others - and where each interceptor's calls go.
 * Several interceptors in one jar stack inside the level, in the order the services file lists
 * them: interceptor i's next level, for a function, is the next interceptor of the jar that
 * overrides it, else the level below the jar.
 */
@SuppressWarnings("restricted") // FFM is what this class is for; the JVM is started with --enable-native-access
final class JavaLevel {
    private static final MethodHandle PCONTROL;

    static {
        try {
            PCONTROL = MethodHandles.lookup().findVirtual(JavaLevel.class, "pcontrol",
                    MethodType.methodType(int.class, int.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A jar that cannot be a level; the message names the reason. */
    static final class LevelException extends Exception {
        private static final long serialVersionUID = 1L;

        LevelException(String message) {
            super(message);
        }
    }

    final int index;
    final String entry;
    private final LevelTable runtime;
    private final List<Interceptor> interceptors;
    private final CallTargets same = new CallTargets(false, true);
    private final CallTargets library = new CallTargets(false);
    private final CallTargets[] next;
    /** Per function id, where this level's PMPI_X goes (see Bridge.routeAll); for the fault path. */
    private final long[] forward = new long[MpiFunctions.COUNT];
    private final long[][] stubs;
    private long pcontrolStub;
    /** Which interceptors override pcontrol (known at install, so Pcontrol needs no reflection). */
    private final boolean[] pcontrols;
    private volatile boolean off;

    private JavaLevel(LevelTable runtime, int index, String entry, List<Interceptor> interceptors) {
        this.runtime = runtime;
        this.index = index;
        this.entry = entry;
        this.interceptors = interceptors;
        this.next = new CallTargets[interceptors.size()];
        this.stubs = new long[interceptors.size()][MpiFunctions.COUNT];
        this.pcontrols = new boolean[interceptors.size()];
        Level level = new Level(index, entry, runtime.bridge.implementation() + " " + runtime.bridge.version(),
                new Mpi(library), runtime.bridge::message, runtime.bridge.verbosity());
        for (int i = 0; i < interceptors.size(); i++) {
            next[i] = new CallTargets(true);
            Internal.attach(interceptors.get(i), level, new Mpi(next[i]), new Mpi(same));
        }
    }

    static JavaLevel load(LevelTable runtime, int index, LevelJar levelJar) throws LevelException {
        String entry = levelJar.entry();
        Path jar = levelJar.path(); // the core has checked that it is there, and not a directory
        // The launcher's words for a file that is not a jar (empty, text): ServiceLoader would find
        // nothing in it and say "has no interceptor".
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            zip.size();
        } catch (IOException e) {
            throw new LevelException("not a readable jar (" + e.getMessage() + ")");
        }
        LevelClassLoader loader;
        try {
            loader = new LevelClassLoader("level " + index + " '" + entry + "'", jar.toUri().toURL(),
                    JavaLevel.class.getClassLoader());
        } catch (MalformedURLException e) {
            throw new LevelException("not a usable path: " + e.getMessage());
        }
        List<Interceptor> found = new ArrayList<>();
        try {
            java.util.Set<String> own = ownServices(loader);
            for (Interceptor i : ServiceLoader.load(Interceptor.class, loader)) {
                if (own.contains(i.getClass().getName())) {
                    found.add(i); // listed by this jar (not by another jar of the class path)
                }
            }
        } catch (ServiceConfigurationError e) {
            Throwable cause = e;
            while (cause.getCause() != null && cause.getCause() != cause) {
                cause = cause.getCause();
            }
            throw new LevelException("an interceptor cannot be loaded: " + oneLine(e.getMessage())
                    + (cause != e ? " (" + oneLine(cause.toString()) + ")" : ""));
        } catch (LinkageError e) {
            throw new LevelException("an interceptor class cannot be loaded: " + oneLine(e.toString()));
        }
        if (found.isEmpty()) {
            throw new LevelException("has no interceptor: a Java level lists its classes (subclasses of "
                    + Interceptor.class.getName() + ") in META-INF/services/" + Interceptor.class.getName());
        }
        return new JavaLevel(runtime, index, entry, found);
    }

    /** The class names the jar's own services file lists (not those of the jars its manifest adds). */
    private static java.util.Set<String> ownServices(LevelClassLoader loader) throws ServiceConfigurationError {
        java.util.Set<String> names = new java.util.HashSet<>();
        try {
            var urls = loader.findResources("META-INF/services/" + Interceptor.class.getName());
            String own = "jar:" + loader.jar() + "!/";
            while (urls.hasMoreElements()) {
                java.net.URL url = urls.nextElement();
                if (!url.toString().startsWith(own)) {
                    continue; // a jar on its Class-Path: its interceptors belong to its own level, if listed
                }
                try (var in = url.openStream()) {
                    // Plain scanning rather than regular expressions: this runs in the cold JVM at the
                    // rank's first MPI call, where compiling a pattern alone costs milliseconds.
                    String text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                    for (int from = 0; from < text.length(); ) {
                        int end = from;
                        while (end < text.length() && text.charAt(end) != '\n' && text.charAt(end) != '\r') {
                            end++;
                        }
                        int hash = text.indexOf('#', from);
                        String name = text.substring(from, hash >= 0 && hash < end ? hash : end).trim();
                        if (!name.isEmpty()) {
                            names.add(name);
                        }
                        from = end + 1;
                    }
                }
            }
        } catch (java.io.IOException e) {
            throw new ServiceConfigurationError("cannot read the services file: " + e.getMessage(), e);
        }
        return names;
    }

    static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s*\\R\\s*", " ").trim();
    }

    /** Makes an upcall stub for every function each interceptor overrides, and tells the dispatcher. */
    void install() throws LevelException {
        Linker linker = Linker.nativeLinker();
        String impl = runtime.bridge.implementation();
        int init = MpiFunctions.MPI_Init;
        int initThread = MpiFunctions.MPI_Init_thread;
        int fin = MpiFunctions.MPI_Finalize;
        boolean anyPcontrol = false;
        for (int i = 0; i < interceptors.size(); i++) {
            Interceptor it = interceptors.get(i);
            Class<?> c = it.getClass();
            List<Method> own = ownMethods(c);
            boolean[] over = overridden(c, own);
            for (int id = 0; id < MpiFunctions.COUNT; id++) {
                over[id] = over[id] && it.intercepts(id);
            }
            boolean afterInit = declares(own, "afterInit");
            boolean beforeFinalize = declares(own, "beforeFinalize");
            pcontrols[i] = declares(own, "pcontrol", int.class);
            anyPcontrol |= pcontrols[i];
            over[init] |= afterInit;
            over[initThread] |= afterInit;
            over[fin] |= beforeFinalize;
            for (int id = 0; id < MpiFunctions.COUNT; id++) {
                String shape = MpiFunctions.shape(impl, id);
                if (!over[id] || shape == null || runtime.slotOf(id) < 0) {
                    continue;
                }
                String name = MpiFunctions.name(id);
                MethodType neutral = Shapes.neutralType(MpiFunctions.neutral(id));
                MethodHandle target;
                try {
                    target = MethodHandles.publicLookup().findStatic(Upcalls.class, name,
                            neutral.insertParameterTypes(0, InterceptorMethods.class, UpcallSite.class));
                } catch (ReflectiveOperationException e) {
                    throw new LevelException("cannot bind " + c.getName() + "." + name + ": " + e);
                }
                UpcallSite site = new UpcallSite(this, it, id, afterInit, beforeFinalize);
                target = MethodHandles.insertArguments(target, 0, it, site);
                FunctionDescriptor fd = Shapes.descriptor(shape);
                target = MethodHandles.explicitCastArguments(target, fd.toMethodType());
                stubs[i][id] = linker.upcallStub(target, fd, Arena.global()).address();
            }
        }
        if (anyPcontrol) {
            FunctionDescriptor fd = Shapes.descriptor("II");
            pcontrolStub = linker.upcallStub(PCONTROL.bindTo(this), fd, Arena.global()).address();
        }
        for (int id = 0; id < MpiFunctions.COUNT; id++) {
            long top = top(id, 0);
            if (top != 0) {
                runtime.bridge.install(index, runtime.slotOf(id), top);
            }
        }
        if (pcontrolStub != 0) {
            runtime.bridge.install(index, runtime.slotOf(MpiFunctions.MPI_Pcontrol), pcontrolStub);
        }
    }

    /** The first stub of interceptor {@code from} or later for function {@code id}, or 0. */
    private long top(int id, int from) {
        for (int j = from; j < interceptors.size(); j++) {
            if (stubs[j][id] != 0) {
                return stubs[j][id];
            }
        }
        return 0;
    }

    /**
     * The public methods the interceptor's own classes declare (from {@code c} up to, not
     * including, Interceptor): what it overrides can only be there. Walking these few rather than
     * {@code c.getMethods()} (some 800 inherited ones, each reflected in the still cold JVM) keeps
     * milliseconds off the rank's start.
     */
    private static List<Method> ownMethods(Class<?> c) {
        List<Method> own = new ArrayList<>();
        for (Class<?> k = c; k != null && k != Interceptor.class && k != Object.class; k = k.getSuperclass()) {
            for (Method m : k.getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()) && !m.isBridge()
                        && !m.isSynthetic()) {
                    own.add(m);
                }
            }
        }
        return own;
    }

    /**
     * Which MPI functions these methods of class {@code c} override (the API's names and types). A
     * method with the handles as {@code long} (a class compiled against jpmpi before typed handles)
     * overrides nothing: it is named in one line, and the call passes through untouched.
     */
    private boolean[] overridden(Class<?> c, List<Method> own) {
        boolean[] over = new boolean[MpiFunctions.COUNT];
        java.util.Map<String, Integer> ids = LevelTable.ids();
        for (Method m : own) {
            Integer id = ids.get(m.getName());
            if (id == null) {
                continue;
            }
            MethodType t = Shapes.apiType(MpiFunctions.api(id));
            if (Arrays.equals(m.getParameterTypes(), t.parameterArray()) && m.getReturnType() == t.returnType()) {
                over[id] = true;
            } else if (!MpiFunctions.api(id).equals(MpiFunctions.neutral(id))
                    && m.getReturnType() == Shapes.neutralType(MpiFunctions.neutral(id)).returnType()
                    && Arrays.equals(m.getParameterTypes(), Shapes.neutralType(MpiFunctions.neutral(id)).parameterArray())) {
                report(c.getName() + "." + m.getName() + " takes its handles as long, as jpmpi's API did before typed"
                        + " handles: it overrides nothing and is not called; rebuild the tool against this jpmpi ("
                        + Shapes.apiType(MpiFunctions.api(id)).parameterList().stream().map(Class::getSimpleName)
                        .collect(java.util.stream.Collectors.joining(", ", "(", ")")) + ")");
            }
        }
        return over;
    }

    private static boolean declares(List<Method> own, String method, Class<?>... params) {
        for (Method m : own) {
            if (m.getName().equals(method) && Arrays.equals(m.getParameterTypes(), params)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Points every call position of this level at the chain as it is now (the isolation rule):
     * an interceptor's pmpi() at the next interceptor of this jar, else at the forwarding route (the
     * next level, for the call the interceptor intercepted; the library for any other); mpi() at
     * this jar's own top, else the library; the Level helpers and library() at the library.
     */
    void refresh() {
        long[] routes = runtime.bridge.routeAll(index);
        long[] lib = runtime.bridge.routeAll(-1);
        for (int id = 0; id < MpiFunctions.COUNT; id++) {
            int slot = runtime.slotOf(id);
            if (slot < 0) {
                continue;
            }
            long own = off ? 0 : top(id, 0);
            same.set(id, own != 0 ? own : lib[slot]);
            library.set(id, lib[slot]);
            forward[id] = routes[slot];
            for (int i = 0; i < interceptors.size(); i++) {
                long inJar = off ? 0 : top(id, i + 1);
                next[i].set(id, inJar != 0 ? inJar : routes[slot]);
            }
        }
    }

    /** Where the call of {@code id} an interceptor of this level intercepted goes on below it. */
    long nextDefinition(int id) {
        return forward[id];
    }

    /** An interceptor failed: report once, switch the level off. */
    void fault(String interceptor, String function, Throwable t) {
        synchronized (this) {
            if (off) {
                return;
            }
            off = true;
        }
        Throwable shown = t;
        for (Throwable c = t; c != null && c.getCause() != c; c = c.getCause()) {
            if (c instanceof ExitTrap.ExitAttempt) {
                shown = c; // wrapped on its way (by reflection, by the tool): the attempt is what counts
                break;
            }
        }
        runtime.bridge.message("level " + index + " '" + entry + "': " + interceptor + " failed in " + function + ": "
                + oneLine(String.valueOf(shown)) + "; the call went on to the next level, and this level is switched off"
                + " for the rest of the run");
        for (int id = 0; id < MpiFunctions.COUNT; id++) {
            if (top(id, 0) != 0) {
                runtime.bridge.install(index, runtime.slotOf(id), 0);
            }
        }
        if (pcontrolStub != 0) {
            runtime.bridge.install(index, runtime.slotOf(MpiFunctions.MPI_Pcontrol), 0);
        }
        runtime.relink();
    }

    /** One line on stderr about this level. */
    void report(String line) {
        runtime.bridge.message("level " + index + " '" + entry + "': " + line);
    }

    /** MPI_Pcontrol, delivered by the core to this level: every interceptor overriding pcontrol, in order. */
    @SuppressWarnings("unused") // through PCONTROL
    private int pcontrol(int level) {
        for (int i = 0; i < interceptors.size(); i++) {
            Interceptor it = interceptors.get(i);
            try {
                if (!off && pcontrols[i]) {
                    it.pcontrol(level);
                }
            } catch (Throwable t) {
                try {
                    fault(it.getClass().getName(), "MPI_Pcontrol", t);
                } catch (Throwable ignored) {
                    // the core delivers Pcontrol on to the next levels whatever happens here
                }
            }
        }
        return 0;
    }
}
