package io.jpmpi.specs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CTypesTest {
    @Test
    void normalizesSpacingAndStars() {
        assertEquals("const void *", CTypes.normalize("const void*"));
        assertEquals("char **", CTypes.normalize("char * *"));
        assertEquals("int [][3]", CTypes.normalize("int  [ ] [3]"));
        assertEquals("char *[]", CTypes.normalize("char * []"));
        assertEquals("MPI_Comm", CTypes.normalize(" MPI_Comm "));
    }

    @Test
    void declaresNames() {
        assertEquals("const void *buf", CTypes.declare("const void *", "buf"));
        assertEquals("int ranges[][3]", CTypes.declare("int [][3]", "ranges"));
        assertEquals("char **argv[]", CTypes.declare("char **[]", "argv"));
        assertEquals("MPI_Comm comm", CTypes.declare("MPI_Comm", "comm"));
        assertEquals("...", CTypes.declare("...", "varargs"));
    }

    @Test
    void adjustsArraysToPointers() {
        assertEquals("int (*)[3]", CTypes.adjusted("int [][3]"));
        assertEquals("const int *", CTypes.adjusted("const int []"));
        assertEquals("char ***", CTypes.adjusted("char **[]"));
        assertEquals("MPI_Comm", CTypes.adjusted("MPI_Comm"));
    }

    @Test
    void declaresVariablesOfTheAdjustedType() {
        assertEquals("int (*x)[3]", CTypes.declareAdjusted("int [][3]", "x"));
        assertEquals("MPI_Request *x", CTypes.declareAdjusted("MPI_Request []", "x"));
        assertEquals("const int *x", CTypes.declareAdjusted("const int *", "x"));
        assertEquals("MPI_Comm x", CTypes.declareAdjusted("MPI_Comm", "x"));
    }
}
