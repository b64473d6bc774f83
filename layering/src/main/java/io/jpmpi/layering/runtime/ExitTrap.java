package io.jpmpi.layering.runtime;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

/**
 * What calls to System.exit, Runtime.exit and Runtime.halt in interceptor classes become
 * (LevelClassLoader rewrites them as the classes load): an error thrown back to the upcall, where
 * fault containment reports it and switches the level off, instead of ending the MPI rank. The
 * same for the other ways to reach them from a level's classes: a {@code Method} obtained by
 * reflection ({@code getMethod}, {@code getDeclaredMethod}, {@code getMethods},
 * {@code getDeclaredMethods}), a method handle ({@code Lookup.findStatic}, {@code findVirtual},
 * {@code unreflect}) and a method reference ({@code System::exit}): each is handed the trap
 * instead.
 */
public final class ExitTrap {
    private static final MethodType EXIT = MethodType.methodType(void.class, int.class);

    private ExitTrap() {
    }

    /** Thrown instead of exiting. */
    public static final class ExitAttempt extends Error {
        private static final long serialVersionUID = 1L;

        ExitAttempt(String what, int status) {
            super(what + "(" + status + ") was called; a Java level cannot end the MPI process");
        }
    }

    public static void exit(int status) {
        throw new ExitAttempt("System.exit", status);
    }

    public static void runtimeExit(Runtime runtime, int status) {
        throw new ExitAttempt("Runtime.exit", status);
    }

    public static void runtimeHalt(Runtime runtime, int status) {
        throw new ExitAttempt("Runtime.halt", status);
    }

    /** Runtime.exit reached by reflection (the receiver is ignored, as a static method's is). */
    public static void reflectedRuntimeExit(int status) {
        throw new ExitAttempt("Runtime.exit", status);
    }

    /** Runtime.halt reached by reflection. */
    public static void reflectedRuntimeHalt(int status) {
        throw new ExitAttempt("Runtime.halt", status);
    }

    /** The trap's name for a method that ends the process, or null for any other. */
    static String trapOf(Class<?> owner, String name, MethodType type) {
        if (!type.equals(EXIT)) {
            return null;
        }
        if (owner == System.class && name.equals("exit")) {
            return "exit";
        }
        if (owner == Runtime.class && (name.equals("exit") || name.equals("halt"))) {
            return name.equals("exit") ? "runtimeExit" : "runtimeHalt";
        }
        return null;
    }

    private static String trapOf(Method m) {
        return trapOf(m.getDeclaringClass(), m.getName(), MethodType.methodType(m.getReturnType(), m.getParameterTypes()));
    }

    /** After getMethod / getDeclaredMethod: the trap in place of a method that ends the process. */
    public static Method checked(Method m) {
        String trap = m == null ? null : trapOf(m);
        if (trap == null) {
            return m;
        }
        String reflected = switch (trap) {
            case "runtimeExit" -> "reflectedRuntimeExit";
            case "runtimeHalt" -> "reflectedRuntimeHalt";
            default -> "exit";
        };
        try {
            return ExitTrap.class.getMethod(reflected, int.class);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    /** After getMethods / getDeclaredMethods. */
    public static Method[] checked(Method[] all) {
        if (all != null) {
            for (int i = 0; i < all.length; i++) {
                all[i] = checked(all[i]);
            }
        }
        return all;
    }

    private static MethodHandle trapHandle(String trap) throws ReflectiveOperationException {
        MethodType type = trap.equals("exit") ? EXIT : MethodType.methodType(void.class, Runtime.class, int.class);
        return MethodHandles.lookup().findStatic(ExitTrap.class, trap, type);
    }

    /** In place of Lookup.findStatic. */
    public static MethodHandle findStatic(MethodHandles.Lookup lookup, Class<?> owner, String name, MethodType type)
            throws ReflectiveOperationException {
        String trap = trapOf(owner, name, type);
        return trap != null && trap.equals("exit") ? trapHandle(trap) : lookup.findStatic(owner, name, type);
    }

    /** In place of Lookup.findVirtual. */
    public static MethodHandle findVirtual(MethodHandles.Lookup lookup, Class<?> owner, String name, MethodType type)
            throws ReflectiveOperationException {
        String trap = trapOf(owner, name, type);
        return trap != null && !trap.equals("exit") ? trapHandle(trap) : lookup.findVirtual(owner, name, type);
    }

    /** In place of Lookup.unreflect. */
    public static MethodHandle unreflect(MethodHandles.Lookup lookup, Method m) throws ReflectiveOperationException {
        String trap = trapOf(m);
        if (trap == null) {
            return lookup.unreflect(m);
        }
        return Modifier.isStatic(m.getModifiers()) == trap.equals("exit") ? trapHandle(trap) : lookup.unreflect(m);
    }
}
