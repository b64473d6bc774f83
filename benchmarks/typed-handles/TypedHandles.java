import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;

/**
 * Would typed handles (a record per handle kind instead of a bare long) keep a Java level's call
 * free of allocation? The interceptor's method receives a {@code new Comm(handle)} made by a static
 * adapter shared by every level, as the generated {@code Upcalls.MPI_X} would make it, with LEVELS
 * interceptor classes. Mode {@code stub}: each level's adapter is bound to its interceptor and
 * reached through an FFM upcall stub, as layering's JavaLevel makes them (the receiver is a constant
 * of each stub's compiled code). Mode {@code shared}: the adapters are called directly with the
 * interceptor as an argument, their one call site seeing every class (an adapter not bound per level). Prints bytes allocated per call and
 * ns per call, typed and long side by side in one process.
 *   java --enable-native-access=ALL-UNNAMED TypedHandles.java stub|shared LEVELS
 */
public class TypedHandles {
    public record Comm(long handle) {
    }

    public abstract static class Level {
        public abstract int typed(Comm comm, long out);

        public abstract int plain(long comm, long out);
    }

    public static final class L1 extends Level {
        public int typed(Comm c, long o) { return (int) (c.handle() ^ o); }
        public int plain(long c, long o) { return (int) (c ^ o); }
    }

    public static final class L2 extends Level {
        public int typed(Comm c, long o) { return (int) (c.handle() + o); }
        public int plain(long c, long o) { return (int) (c + o); }
    }

    public static final class L3 extends Level {
        public int typed(Comm c, long o) { return (int) (c.handle() - o); }
        public int plain(long c, long o) { return (int) (c - o); }
    }

    public static final class L4 extends Level {
        public int typed(Comm c, long o) { return (int) (c.handle() * o); }
        public int plain(long c, long o) { return (int) (c * o); }
    }

    public static int typedAdapter(Level level, long comm, long out) {
        return level.typed(new Comm(comm), out);
    }

    public static int plainAdapter(Level level, long comm, long out) {
        return level.plain(comm, out);
    }

    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    public static void main(String[] args) throws Throwable {
        boolean stub = args[0].equals("stub");
        int kinds = Integer.parseInt(args[1]);
        Level[] levels = {new L1(), new L2(), new L3(), new L4()};
        MethodType mt = MethodType.methodType(int.class, Level.class, long.class, long.class);
        MethodHandle typed = MethodHandles.lookup().findStatic(TypedHandles.class, "typedAdapter", mt);
        MethodHandle plain = MethodHandles.lookup().findStatic(TypedHandles.class, "plainAdapter", mt);
        MethodHandle[] typedCalls = new MethodHandle[kinds];
        MethodHandle[] plainCalls = new MethodHandle[kinds];
        Linker linker = Linker.nativeLinker();
        FunctionDescriptor fd = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
        for (int k = 0; k < kinds && stub; k++) {
            typedCalls[k] = upcall(linker, fd, MethodHandles.insertArguments(typed, 0, levels[k]));
            plainCalls[k] = upcall(linker, fd, MethodHandles.insertArguments(plain, 0, levels[k]));
        }
        long sink = 0;
        int n = stub ? 2_000_000 : 20_000_000;
        for (int round = 0; round < 8; round++) {
            long a0 = MX.getCurrentThreadAllocatedBytes();
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += stub ? (int) typedCalls[i % kinds].invokeExact((long) i, 7L) : typedAdapter(levels[i % kinds], i, 7);
            }
            long t1 = System.nanoTime();
            long a1 = MX.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < n; i++) {
                sink += stub ? (int) plainCalls[i % kinds].invokeExact((long) i, 7L) : plainAdapter(levels[i % kinds], i, 7);
            }
            long t2 = System.nanoTime();
            long a2 = MX.getCurrentThreadAllocatedBytes();
            if (round == 7) {
                System.out.printf("%s levels=%d  typed: %.2f B/call %.1f ns/call   long: %.2f B/call %.1f ns/call%n",
                        args[0], kinds, (a1 - a0) / (double) n, (t1 - t0) / (double) n, (a2 - a1) / (double) n,
                        (t2 - t1) / (double) n);
            }
        }
        if (sink == 42) {
            System.out.println(sink);
        }
    }

    /** A downcall to an upcall stub of {@code target}: the way a call reaches a Java level. */
    private static MethodHandle upcall(Linker linker, FunctionDescriptor fd, MethodHandle target) {
        return linker.downcallHandle(linker.upcallStub(target, fd, Arena.global()), fd);
    }
}
