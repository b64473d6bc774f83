package io.jpmpi.profilers.profile;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.bindings.c.ProfileSemantics;
import io.jpmpi.specs.MpiFunction;
import io.jpmpi.specs.MpiSpec;
import io.jpmpi.specs.Parameter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The recorder's semantics file (src/main/c/semantics.json) against the spec. */
class SemanticsTest {
    static final MpiSpec SPEC = MpiSpec.load();
    static final Path FILE = Path.of("src/main/c/semantics.json");
    private static final Pattern PARAM = Pattern.compile("\\ba_(\\w+)");

    @Test
    void everyArgumentASemanticsNamesIsAParameterOfTheFunction() throws IOException {
        ProfileSemantics semantics = ProfileSemantics.load(FILE);
        for (String impl : SPEC.implementations().keySet()) {
            for (MpiFunction f : SPEC.functionsOf(impl)) {
                ProfileSemantics.Semantics s = semantics.of(f);
                if (s == null) {
                    continue;
                }
                Set<String> names = new HashSet<>();
                for (Parameter p : f.parameters()) {
                    names.add(p.name());
                }
                Matcher m = PARAM.matcher(String.join(" ", s.pre()) + " " + String.join(" ", s.post()));
                while (m.find()) {
                    assertTrue(names.contains(m.group(1)), f.name() + " (" + impl + "): its semantics use a_" + m.group(1)
                            + " but its parameters are " + names);
                }
            }
        }
    }

    @Test
    void theFamiliesThatMoveDataHaveSemanticsInEveryForm() throws IOException {
        ProfileSemantics semantics = ProfileSemantics.load(FILE);
        for (String impl : SPEC.implementations().keySet()) {
            Map<String, MpiFunction> byName = SPEC.byName();
            for (String name : List.of("MPI_Send", "MPI_Isend", "MPI_Recv", "MPI_Irecv", "MPI_Bcast", "MPI_Ibcast",
                    "MPI_Alltoallw", "MPI_Ialltoallw", "MPI_Put", "MPI_Get", "MPI_File_write_at_all", "MPI_Waitall",
                    "MPI_Startall", "MPI_Sendrecv")) {
                assertNotNull(semantics.of(byName.get(name)), name);
            }
            for (MpiFunction f : SPEC.functionsOf(impl)) {
                if (f.largeCount() && f.base() != null && semantics.of(byName.get(f.base())) != null) {
                    assertNotNull(semantics.of(f), f.name() + " should be recorded like " + f.base());
                }
            }
        }
    }
}
