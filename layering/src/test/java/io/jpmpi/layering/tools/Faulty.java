package io.jpmpi.layering.tools;

import io.jpmpi.layering.Interceptor;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.MPI_Datatype;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Fails in MPI_Send as $JPMPI_TEST_FAULT says: "before" (throws before passing the call on),
 * "after" (passes it on, then throws), "soe" (StackOverflowError), "oom" (OutOfMemoryError),
 * "exit" (System.exit), "halt" (Runtime.halt), "runtime-exit" (Runtime.exit), "recursion" (calls
 * mpi().MPI_Send, which comes back here: endless), "reflect-exit" (System.exit through reflection),
 * "handle-exit" (Runtime.exit through a method handle). Also counts how
 * often it was entered, printing "faulty sends=N rank R" at MPI_Finalize if it is still on.
 */
public final class Faulty extends Interceptor {
    private static final String MODE = System.getenv().getOrDefault("JPMPI_TEST_FAULT", "before");
    private long sends;

    @Override
    public int MPI_Send(long buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
        sends++;
        switch (MODE) {
            case "before" -> throw new IllegalStateException("injected before the call");
            case "soe" -> recurse(0);
            case "oom" -> System.out.println(new long[Integer.MAX_VALUE - 8].length);
            case "exit" -> System.exit(3);
            case "halt" -> Runtime.getRuntime().halt(4);
            case "runtime-exit" -> Runtime.getRuntime().exit(5);
            case "recursion" -> {
                return mpi().MPI_Send(buf, count, datatype, dest, tag, comm);
            }
            case "reflect-exit" -> reflectExit();
            case "handle-exit" -> handleExit();
            default -> {
            }
        }
        int rc = pmpi().MPI_Send(buf, count, datatype, dest, tag, comm);
        if (MODE.equals("after")) {
            throw new IllegalArgumentException("injected after the call");
        }
        return rc;
    }

    private static void reflectExit() {
        try {
            System.class.getMethod("exit", int.class).invoke(null, 6);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void handleExit() {
        try {
            MethodHandles.publicLookup().findVirtual(Runtime.class, "exit", MethodType.methodType(void.class, int.class))
                    .invoke(Runtime.getRuntime(), 7);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    private static long recurse(long n) {
        return recurse(n + 1) + 1;
    }

    @Override
    public int MPI_Finalize() {
        System.out.println("faulty sends=" + sends + " rank " + level().worldRank());
        return pmpi().MPI_Finalize();
    }
}
