package io.jpmpi.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Makefiles' table of MPI implementations (scripts/mpi.mk, which every Makefile includes) and
 * the Java one ({@link Toolchain#KNOWN}) name the same implementations with the same wrappers.
 */
class MpiTableTest {
    @Test
    void theMakefilesTableIsToolchains() throws IOException {
        Path mk = Path.of(System.getProperty("jpmpi.mpi.mk"));
        Map<String, String> vars = new LinkedHashMap<>();
        for (String line : Files.readAllLines(mk)) {
            String[] kv = line.split(":=", 2);
            if (kv.length == 2 && !line.startsWith("#")) {
                vars.put(kv[0].trim(), kv[1].trim());
            }
        }
        List<String> known = List.of(vars.getOrDefault("MPI_KNOWN", "").split("\\s+"));
        assertEquals(Toolchain.KNOWN.stream().map(Toolchain::id).sorted().toList(), known.stream().sorted().toList(),
                "MPI_KNOWN in " + mk);
        for (Toolchain t : Toolchain.KNOWN) {
            assertEquals(t.cc(), vars.get("MPICC_" + t.id()), "MPICC_" + t.id() + " in " + mk);
            assertEquals(t.fc(), vars.get("MPIFC_" + t.id()), "MPIFC_" + t.id() + " in " + mk);
            assertEquals(t.cc().replace("mpicc", "mpicxx"), vars.get("MPICXX_" + t.id()), "MPICXX_" + t.id() + " in " + mk);
        }
    }
}
