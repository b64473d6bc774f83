package io.jpmpi.bindings.c;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.specs.MpiFunction;
import io.jpmpi.specs.MpiSpec;
import io.jpmpi.specs.Parameter;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ProfileEmitterTest {
    static final MpiSpec SPEC = MpiSpec.load();
    private static final Pattern PARAM = Pattern.compile("\\ba_(\\w+)");

    @Test
    void everyArgumentASemanticsNamesIsAParameterOfTheFunction() {
        for (String impl : SPEC.implementations().keySet()) {
            for (MpiFunction f : SPEC.functionsOf(impl)) {
                ProfileEmitter.Semantics s = ProfileEmitter.semanticsOf(f);
                if (s == null) {
                    continue;
                }
                Set<String> names = new HashSet<>();
                for (Parameter p : f.parameters()) {
                    names.add(p.name());
                }
                Matcher m = PARAM.matcher(s.pre() + " " + s.post());
                while (m.find()) {
                    assertTrue(names.contains(m.group(1)), f.name() + " (" + impl + "): its semantics use a_" + m.group(1)
                            + " but its parameters are " + names);
                }
            }
        }
    }

    @Test
    void theFamiliesThatMoveDataHaveSemanticsInEveryForm() {
        for (String impl : SPEC.implementations().keySet()) {
            Map<String, MpiFunction> byName = SPEC.byName();
            for (String name : List.of("MPI_Send", "MPI_Isend", "MPI_Recv", "MPI_Irecv", "MPI_Bcast", "MPI_Ibcast",
                    "MPI_Alltoallw", "MPI_Ialltoallw", "MPI_Put", "MPI_Get", "MPI_File_write_at_all", "MPI_Waitall",
                    "MPI_Startall", "MPI_Sendrecv")) {
                assertNotNull(ProfileEmitter.semanticsOf(byName.get(name)), name);
            }
            for (MpiFunction f : SPEC.functionsOf(impl)) {
                if (f.largeCount() && f.base() != null && ProfileEmitter.semanticsOf(byName.get(f.base())) != null) {
                    assertNotNull(ProfileEmitter.semanticsOf(f), f.name() + " should be recorded like " + f.base());
                }
            }
        }
    }

    @Test
    void recordsEveryIntFunctionOnceExceptHandleConversions() {
        for (String impl : SPEC.implementations().keySet()) {
            ProfileEmitter e = new ProfileEmitter(SPEC, impl);
            List<String> names = e.functionNames();
            assertEquals(names.size(), new HashSet<>(names).size());
            assertTrue(names.containsAll(ProfileEmitter.HAND_WRITTEN), impl);
            assertFalse(names.contains("MPI_Wtime"));
            assertFalse(names.contains("MPI_Comm_c2f"));
            String c = e.emit().get("jpmpi_profile.c");
            for (String hand : ProfileEmitter.HAND_WRITTEN) {
                assertFalse(c.contains(" " + hand + "("), hand + " is wrapped by hand, not generated");
            }
            String ids = e.emit().get("jpmpi_profile_ids.h");
            assertTrue(ids.contains("#define JP_NFUNC " + names.size() + "\n"), ids);
        }
    }

    @Test
    void generationIsDeterministic() {
        assertEquals(new ProfileEmitter(SPEC, "openmpi").emit(), new ProfileEmitter(SPEC, "openmpi").emit());
    }
}
