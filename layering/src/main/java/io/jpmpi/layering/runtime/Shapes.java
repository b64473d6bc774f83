package io.jpmpi.layering.runtime;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jpmpi.layering.generated.MpiFunctions;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.invoke.MethodType;
import java.util.function.ToIntFunction;

/**
 * Shapes (see io.jpmpi.bindings.java.Signatures) turned into FFM descriptors for the running MPI
 * and into the Java method types of the upcalls and downcalls (neutral: handles as long) and of the
 * interceptor API (handles as their records). Pointers travel as 64-bit
 * integers (the same registers as a pointer in the C ABIs jpmpi runs on), so nothing is
 * allocated to pass them; a handle is an int or a 64-bit value as the running MPI defines it.
 */
final class Shapes {
    private Shapes() {
    }

    static FunctionDescriptor descriptor(String shape) {
        return descriptor(shape, Abi::handleSize);
    }

    /**
     * The descriptor of a shape given the size of each handle type (the running MPI's, from the
     * dispatcher; JextractDescriptorTest gives jextract's).
     */
    static FunctionDescriptor descriptor(String shape, ToIntFunction<String> handleSize) {
        MemoryLayout[] args = new MemoryLayout[shape.length() - 1];
        for (int i = 1; i < shape.length(); i++) {
            args[i - 1] = layout(shape.charAt(i), handleSize);
        }
        return FunctionDescriptor.of(layout(shape.charAt(0), handleSize), args);
    }

    private static MemoryLayout layout(char code, ToIntFunction<String> handleSize) {
        return switch (code) {
            case 'I' -> JAVA_INT;
            case 'J', 'P' -> JAVA_LONG;
            case 'D' -> JAVA_DOUBLE;
            default -> handleSize.applyAsInt(MpiFunctions.handleType(code)) == 4 ? JAVA_INT : JAVA_LONG;
        };
    }

    /** The Java types of a shape for the running MPI. */
    static MethodType implType(String shape) {
        return descriptor(shape).toMethodType();
    }

    /** The types of the upcall adapters and downcalls for a neutral shape (handles as long). */
    static MethodType neutralType(String neutral) {
        Class<?>[] args = new Class<?>[neutral.length() - 1];
        for (int i = 1; i < neutral.length(); i++) {
            args[i - 1] = neutralClass(neutral.charAt(i));
        }
        return MethodType.methodType(neutralClass(neutral.charAt(0)), args);
    }

    /** The types of the interceptor API's method for an API shape (handles as their records). */
    static MethodType apiType(String api) {
        Class<?>[] args = new Class<?>[api.length() - 1];
        for (int i = 1; i < api.length(); i++) {
            args[i - 1] = apiClass(api.charAt(i));
        }
        return MethodType.methodType(apiClass(api.charAt(0)), args);
    }

    private static Class<?> apiClass(char code) {
        return Character.isLowerCase(code) ? MpiFunctions.handleClass(code) : neutralClass(code);
    }

    private static Class<?> neutralClass(char code) {
        return switch (code) {
            case 'I' -> int.class;
            case 'D' -> double.class;
            default -> long.class;
        };
    }
}
