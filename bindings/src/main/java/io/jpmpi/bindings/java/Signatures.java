package io.jpmpi.bindings.java;

import io.jpmpi.specs.CTypes;
import io.jpmpi.specs.MpiConstants;
import io.jpmpi.specs.MpiFunction;
import io.jpmpi.specs.Parameter;
import java.util.ArrayList;
import java.util.List;

/**
 * The ABI shape of an MPI function as one short string per implementation: the return type, then
 * one character per parameter. Upper case is a fixed C type: {@code I} 32-bit integer, {@code J}
 * 64-bit integer, {@code D} double, {@code P} any pointer (buffers, out-parameters, arrays,
 * strings, callbacks). Lower case is a handle type: {@code 'a' + i} is the i-th of
 * {@code handle_types} in specs/mpi-constants.json, whose size (pointer or int) only the running
 * MPI knows. The Java runtime turns a shape into a FunctionDescriptor for the MPI it runs on; the
 * interceptor API sees one neutral shape per function (handles as {@code long}), the same on every
 * implementation.
 */
public final class Signatures {
    private final MpiConstants constants;

    public Signatures(MpiConstants constants) {
        this.constants = constants;
        if (constants.handleTypes().size() > 26) {
            throw new IllegalStateException("more handle types than letters");
        }
    }

    /** The shape of {@code f} in implementation {@code impl}. */
    public String shape(MpiFunction f, String impl) {
        StringBuilder s = new StringBuilder().append(code(f.returnType(impl), f.name() + " return"));
        for (Parameter p : f.parameters()) {
            if (p.isVarargs()) {
                continue;
            }
            s.append(code(p.cType(impl), f.name() + "(" + p.name() + ")"));
        }
        return s.toString();
    }

    /** The neutral shape over all implementations of {@code f}: handles and mixed integers widen to J. */
    public String neutral(MpiFunction f) {
        StringBuilder n = new StringBuilder(api(f));
        for (int i = 0; i < n.length(); i++) {
            if (Character.isLowerCase(n.charAt(i))) {
                n.setCharAt(i, 'J');
            }
        }
        return n.toString();
    }

    /**
     * The API shape over all implementations of {@code f}: like the neutral shape, but a handle type
     * that every implementation agrees on stays its letter (a handle in one and an integer in another
     * widens to J).
     */
    public String api(MpiFunction f) {
        List<String> shapes = new ArrayList<>();
        for (String impl : f.implementations()) {
            shapes.add(shape(f, impl));
        }
        StringBuilder n = new StringBuilder();
        for (int i = 0; i < shapes.get(0).length(); i++) {
            char c = shapes.get(0).charAt(i);
            for (String s : shapes) {
                if (s.length() != shapes.get(0).length()) {
                    throw new IllegalStateException(f.name() + " has a different number of parameters per implementation");
                }
                c = widen(c, s.charAt(i), f.name());
            }
            n.append(c);
        }
        return n.toString();
    }

    private static char widen(char a, char b, String where) {
        if (a == b) {
            return a;
        }
        boolean intA = a == 'I' || a == 'J' || Character.isLowerCase(a);
        boolean intB = b == 'I' || b == 'J' || Character.isLowerCase(b);
        if (intA && intB) {
            return 'J';
        }
        throw new IllegalStateException(where + ": types " + a + " and " + b + " cannot share one Java type");
    }

    /** The code of one C type. */
    char code(String cType, String where) {
        String t = CTypes.normalize(cType).replace("const ", "").trim();
        if (t.contains("*") || t.contains("[") || t.endsWith("_function") || t.endsWith("_function_c")) {
            return 'P';
        }
        if (t.equals("int") || constants.int32Types().contains(t)) {
            return 'I';
        }
        if (constants.int64Types().contains(t)) {
            return 'J';
        }
        if (t.equals("double")) {
            return 'D';
        }
        int handle = constants.handleTypes().indexOf(t);
        if (handle >= 0) {
            return (char) ('a' + handle);
        }
        throw new IllegalStateException(where + ": C type '" + cType + "' has no Java shape;"
                + " add it to specs/mpi-constants.json");
    }
}
