package io.jpmpi.profilers.mpit;

import io.jpmpi.layering.MpiAbi;
import io.jpmpi.layering.generated.Constants;
import io.jpmpi.layering.generated.MPI_Datatype;
import io.jpmpi.layering.generated.MPI_T_enum;

/**
 * A performance or control variable as MPI_T_{pvar,cvar}_get_info describes it. {@code varClass}
 * is -1 for control variables, {@code scope} 0 for performance variables.
 */
record Variable(Kind kind, int index, String name, String description, int verbosity, int varClass, Type type,
        MPI_T_enum enumtype, int bind, int scope, boolean readonly, boolean continuous, boolean atomic) {

    enum Kind {
        PVAR, CVAR
    }

    /** The MPI datatypes MPI_T uses for variables, and their sizes. */
    enum Type {
        INT("MPI_INT", 4, true), UNSIGNED("MPI_UNSIGNED", 4, false), UNSIGNED_LONG("MPI_UNSIGNED_LONG", 8, false),
        UNSIGNED_LONG_LONG("MPI_UNSIGNED_LONG_LONG", 8, false), COUNT("MPI_COUNT", 8, true),
        DOUBLE("MPI_DOUBLE", 8, true), CHAR("MPI_CHAR", 1, true), OTHER("other", 0, true);

        final String mpiName;
        final int size;
        final boolean signed;

        Type(String mpiName, int size, boolean signed) {
            this.mpiName = mpiName;
            this.size = size;
            this.signed = signed;
        }

        static Type of(MPI_Datatype datatype) {
            if (datatype.equals(Constants.MPI_INT)) {
                return INT;
            } else if (datatype.equals(Constants.MPI_UNSIGNED)) {
                return UNSIGNED;
            } else if (datatype.equals(Constants.MPI_UNSIGNED_LONG)) {
                return UNSIGNED_LONG;
            } else if (datatype.equals(Constants.MPI_UNSIGNED_LONG_LONG)) {
                return UNSIGNED_LONG_LONG;
            } else if (datatype.equals(Constants.MPI_COUNT)) {
                return COUNT;
            } else if (datatype.equals(Constants.MPI_DOUBLE)) {
                return DOUBLE;
            } else if (datatype.equals(Constants.MPI_CHAR)) {
                return CHAR;
            }
            return OTHER;
        }

        boolean numeric() {
            return this != CHAR && this != OTHER;
        }
    }

    /** How the tool derives values from a performance variable's class. */
    enum Derive {
        /** Counters, timers, aggregates: the delta between reads. */
        DELTA,
        /** Levels and percentages: min, average and max of the readings. */
        RANGE,
        /** High and low watermarks: the value, how often and by how much it moved. */
        WATERMARK,
        /** State, size, generic: the raw value. */
        RAW
    }

    Derive derive() {
        if (varClass == Constants.MPI_T_PVAR_CLASS_COUNTER || varClass == Constants.MPI_T_PVAR_CLASS_TIMER
                || varClass == Constants.MPI_T_PVAR_CLASS_AGGREGATE) {
            return Derive.DELTA;
        } else if (varClass == Constants.MPI_T_PVAR_CLASS_LEVEL || varClass == Constants.MPI_T_PVAR_CLASS_PERCENTAGE) {
            return Derive.RANGE;
        } else if (varClass == Constants.MPI_T_PVAR_CLASS_HIGHWATERMARK
                || varClass == Constants.MPI_T_PVAR_CLASS_LOWWATERMARK) {
            return Derive.WATERMARK;
        }
        return Derive.RAW;
    }

    String className() {
        return name(varClass, "MPI_T_PVAR_CLASS_", "STATE", "LEVEL", "SIZE", "PERCENTAGE", "HIGHWATERMARK",
                "LOWWATERMARK", "COUNTER", "AGGREGATE", "TIMER", "GENERIC");
    }

    String bindName() {
        return name(bind, "MPI_T_BIND_", "NO_OBJECT", "MPI_COMM", "MPI_DATATYPE", "MPI_ERRHANDLER", "MPI_FILE",
                "MPI_GROUP", "MPI_OP", "MPI_REQUEST", "MPI_WIN", "MPI_MESSAGE", "MPI_INFO");
    }

    String verbosityName() {
        return name(verbosity, "MPI_T_VERBOSITY_", "USER_BASIC", "USER_DETAIL", "USER_ALL", "TUNER_BASIC",
                "TUNER_DETAIL", "TUNER_ALL", "MPIDEV_BASIC", "MPIDEV_DETAIL", "MPIDEV_ALL");
    }

    String scopeName() {
        return name(scope, "MPI_T_SCOPE_", "CONSTANT", "READONLY", "LOCAL", "GROUP", "GROUP_EQ", "ALL", "ALL_EQ");
    }

    /** The lower-case suffix of the constant {@code prefix + one of names} equal to {@code value}. */
    private static String name(int value, String prefix, String... names) {
        if (value == -1) {
            return "-";
        }
        for (String n : names) {
            if (MpiAbi.integer(prefix + n) == value) {
                return n.toLowerCase(java.util.Locale.ROOT);
            }
        }
        return String.valueOf(value);
    }
}
