package io.jpmpi.bindings.c;

import io.jpmpi.specs.CTypes;
import io.jpmpi.specs.MpiConstants;
import io.jpmpi.specs.MpiFunction;
import io.jpmpi.specs.MpiSpec;
import io.jpmpi.specs.Parameter;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Emits {@code jpmpi_abi.c}: what the Java side of a Java level must know about the ABI of the
 * MPI library the dispatcher is built for, taken from that library's own mpi.h at compile time
 * rather than guessed: the size and kind (pointer or integer) of each handle type, the values of
 * the predefined handles and constants of {@code specs/mpi-constants.json}, and the layout of
 * {@code MPI_Status}. The core hands these tables to the JVM. Compiled into the dispatcher, so a
 * predefined handle that Open MPI copy-relocates into the executable is read at the address the
 * program really uses.
 */
final class AbiEmitter {
    private final MpiSpec spec;
    private final MpiConstants constants;
    private final String impl;

    AbiEmitter(MpiSpec spec, MpiConstants constants, String impl) {
        this.spec = spec;
        this.constants = constants;
        this.impl = impl;
    }

    String emit() {
        StringBuilder c = new StringBuilder(DispatcherEmitter.HEADER.replace("DispatcherEmitter", "AbiEmitter"));
        c.append("#include <stddef.h>\n#include <stdint.h>\n#include <mpi.h>\n#include \"jpmpi_core.h\"\n\n");
        Set<String> used = typesUsed();
        c.append("/* The fixed-width types the Java bindings assume. */\n");
        for (String t : constants.int32Types()) {
            if (used.contains(t)) {
                c.append("_Static_assert(sizeof(").append(t).append(") == 4, \"").append(t).append(" is not 32 bits\");\n");
            }
        }
        for (String t : constants.int64Types()) {
            if (used.contains(t)) {
                c.append("_Static_assert(sizeof(").append(t).append(") == 8, \"").append(t).append(" is not 64 bits\");\n");
            }
        }
        c.append("\n/* Handle types: size, and 1 when a handle is a pointer (5 = GCC's pointer_type_class). */\n");
        c.append("const struct jpmpi_abi_type jpmpi_abi_types[] = {\n");
        int ntypes = 0;
        for (String t : constants.handleTypes()) {
            if (used.contains(t)) {
                c.append("    {\"").append(t).append("\", sizeof(").append(t).append("), __builtin_classify_type((")
                        .append(t).append(")0) == 5},\n");
                ntypes++;
            }
        }
        c.append("};\nconst int jpmpi_abi_ntypes = ").append(ntypes).append(";\n\n");
        c.append("/* Predefined handles and constants, as 64-bit values (int handles sign-extended). Filled at\n")
                .append(" * run time: some are variables (MPICH's MPI_UNWEIGHTED), some addresses in the executable. */\n");
        StringBuilder body = new StringBuilder();
        int n = 0;
        for (Map.Entry<String, String> e : constants.typeOfConstant().entrySet()) {
            String name = e.getKey();
            String type = e.getValue();
            boolean optional = constants.optional().contains(name);
            if (!type.equals(MpiConstants.INT) && !type.equals(MpiConstants.ADDRESS) && !used.contains(type) && !optional) {
                continue; // a handle type this MPI does not have
            }
            String value = type.equals(MpiConstants.INT) ? "(int64_t)(" + name + ")" : "(int64_t)(intptr_t)(" + name + ")";
            String slot = "    jpmpi_abi_constants[" + n + "] = (struct jpmpi_abi_constant){\"" + name + "\", ";
            if (optional) {
                body.append("#ifdef ").append(name).append('\n');
            }
            body.append(slot).append(value).append(", 1};\n");
            if (optional) {
                body.append("#else\n").append(slot).append("0, 0};\n#endif\n");
            }
            n++;
        }
        c.append("struct jpmpi_abi_constant jpmpi_abi_constants[").append(n).append("];\n")
                .append("const int jpmpi_abi_nconstants = ").append(n).append(";\n\n")
                .append("void jpmpi_abi_load(void)\n{\n").append(body).append("}\n\n");
        c.append("const struct jpmpi_abi_status jpmpi_abi_status = {\n")
                .append("    sizeof(MPI_Status), offsetof(MPI_Status, MPI_SOURCE), offsetof(MPI_Status, MPI_TAG),\n")
                .append("    offsetof(MPI_Status, MPI_ERROR)\n};\n");
        return c.toString();
    }

    /** The non-pointer base type names the functions of this implementation use. */
    private Set<String> typesUsed() {
        Set<String> used = new TreeSet<>();
        for (MpiFunction f : spec.functionsOf(impl)) {
            used.add(base(f.returnType(impl)));
            for (Parameter p : f.parameters()) {
                if (!p.isVarargs()) {
                    used.add(base(p.cType(impl)));
                }
            }
        }
        return used;
    }

    static String base(String cType) {
        return CTypes.normalize(cType).replace("const ", "").replaceAll("\\[.*", "").replace("*", "").trim();
    }
}
