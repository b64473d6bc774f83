package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.platform.LauncherGrammar;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Open MPI 4.1's appfile jobs: jpmpi's variables in mca_base_env_list, joined with the user's own. */
class OmpiEnvListTest {
    private static final LauncherGrammar OMPI = LauncherGrammar.of("openmpi-4.1");
    private static final Map<String, String> VARS = new LinkedHashMap<>(Map.of("LD_PRELOAD", "/x/libd.so"));

    static {
        VARS.put("JPMPI_TOOLS_ENTRY", "/x/a.so,/x/b.so");
    }

    private static List<String> pass(List<String> command, Map<String, String> env) throws JpmpiException {
        return OmpiEnvList.pass(OMPI, command, VARS, env);
    }

    @Test
    void theListGoesRightAfterMpirun() throws JpmpiException {
        assertEquals(List.of("mpirun", "--mca", "mca_base_env_list", "LD_PRELOAD=/x/libd.so;JPMPI_TOOLS_ENTRY=/x/a.so,/x/b.so",
                "-v", "--app", "f"), pass(List.of("mpirun", "-v", "--app", "f"), Map.of()));
    }

    @Test
    void theUsersOwnListIsKeptInItsPlace() throws JpmpiException {
        assertEquals(List.of("mpirun", "--app", "f", "-mca", "mca_base_env_list",
                        "A=1;B;LD_PRELOAD=/x/libd.so;JPMPI_TOOLS_ENTRY=/x/a.so,/x/b.so", "--mca", "btl", "self"),
                pass(List.of("mpirun", "--app", "f", "-mca", "mca_base_env_list", "A=1;B", "--mca", "btl", "self"), Map.of()));
        // from the environment, which the command line's value would replace
        assertEquals(List.of("mpirun", "--mca", "mca_base_env_list", "A=1;LD_PRELOAD=/x/libd.so;JPMPI_TOOLS_ENTRY=/x/a.so,/x/b.so",
                "--app", "f"), pass(List.of("mpirun", "--app", "f"), Map.of("OMPI_MCA_mca_base_env_list", "A=1")));
    }

    @Test
    void theUsersDelimiterIsTheListsAndAValueHoldingItIsRefused() throws JpmpiException {
        assertEquals(List.of("mpirun", "--mca", "mca_base_env_list", "LD_PRELOAD=/x/libd.so|JPMPI_TOOLS_ENTRY=/x/a.so,/x/b.so",
                "--gmca", "mca_base_env_list_delimiter", "|", "--app", "f"),
                pass(List.of("mpirun", "--gmca", "mca_base_env_list_delimiter", "|", "--app", "f"), Map.of()));
        JpmpiException e = assertThrows(JpmpiException.class, () -> pass(List.of("mpirun", "--app", "f"),
                Map.of("OMPI_MCA_mca_base_env_list_delimiter", ",")));
        assertEquals(ExitCode.USAGE, e.exit());
        assertTrue(e.getMessage().contains("JPMPI_TOOLS_ENTRY=/x/a.so,/x/b.so") && e.getMessage().contains("','"),
                e.getMessage());
    }

    @Test
    void theGrammarTellsAnAppfileAndTheOptionsUsed() {
        assertEquals(List.of("f"), OMPI.inputFiles(List.of("-np", "2", "--app", "f")));
        assertEquals(List.of(), OMPI.inputFiles(List.of("-np", "2", "./a", "--app", "g")), "the program's own words");
        List<LauncherGrammar.Use> uses = OMPI.uses(List.of("-np", "2", "--mca", "btl", "self", "./a", "-x"));
        assertEquals(2, uses.size());
        assertEquals(2, uses.get(1).at());
        assertEquals(3, uses.get(1).words());
        assertEquals(List.of("btl", "self"), uses.get(1).values());
    }
}
