package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jpmpi.platform.InstallLayout;
import io.jpmpi.profilers.accounting.AccountingRecord;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.testsupport.Cluster;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The installation's modulefile share/jpmpi/site/modulefiles/jpmpi-accounting/openmpi, loaded with
 * Environment Modules (Debian's environment-modules) on the test cluster's first host: a plain
 * {@code mpirun --hostfile H -np 6 pingpong} over 3 hosts leaves one accounting record of 3 nodes
 * and 6 ranks; {@code mpirun -x JPMPI_SITE_TOOLS=off} none; bin/jpmpi run --tools profile under the
 * loaded module its profile and no record. Skipped, with one line, where this machine cannot make
 * such hosts or has no environment-modules.
 */
class SiteModuleIT {
    static final Path MODULES_INIT = Path.of("/usr/share/modules/init/bash");

    private static Cluster cluster;

    @AfterAll
    static void down() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theModuleAccountsOpenMpiJobsButTheOptedOutAndJpmpiRun() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(MODULES_INIT),
                () -> "no environment modules here (Debian: environment-modules): " + MODULES_INIT);
        cluster = Cluster.up(ClusterIT.HOSTS);
        Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "module-");
        Path accounting = dir.resolve("accounting.jsonl");
        String mpirun = "mpirun --hostfile " + cluster.hostfile(Impl.OPENMPI) + " -np " + ClusterIT.RANKS + " ";
        String pingpong = Impl.OPENMPI.file("pingpong") + " 2";

        withModule(accounting, mpirun + pingpong).assertSuccess();
        List<String> lines = Files.readAllLines(accounting);
        assertEquals(1, lines.size(), lines::toString);
        AccountingRecord a = AccountingRecord.parse(lines.get(0));
        assertEquals(ClusterIT.HOSTS, a.nodes(), lines::toString);
        assertEquals(ClusterIT.RANKS, a.ranks(), lines::toString);
        assertEquals(Impl.OPENMPI.file("pingpong"), a.exe(), lines::toString);

        withModule(accounting, mpirun + "-x JPMPI_SITE_TOOLS=off " + pingpong).assertSuccess();
        Path output = dir.resolve("profile");
        Result run = withModule(accounting, Jpmpi.HOME.resolve("bin/jpmpi") + " run --tools profile --output "
                + output + " -- " + mpirun + pingpong);
        run.assertSuccess();
        assertEquals(ClusterIT.RANKS, ProfileJson.read(output.resolve("profile.json")).rankRows().size(),
                run::describe);
        assertEquals(lines, Files.readAllLines(accounting), "no record but the first job's");
    }

    /** `command` by bash on the first host, after module use + module load jpmpi-accounting/openmpi. */
    static Result withModule(Path accounting, String command) {
        Path modulefiles = Jpmpi.HOME.resolve(InstallLayout.SITE + "/modulefiles");
        assertTrue(Files.isRegularFile(modulefiles.resolve("jpmpi-accounting/openmpi")), modulefiles::toString);
        String script = "source " + MODULES_INIT + " && module use " + modulefiles
                + " && module load jpmpi-accounting/openmpi && " + command;
        return cluster.run(cluster.hosts().get(0), Map.of("JPMPI_SITE_ACCOUNTING_FILE", accounting.toString()),
                List.of("bash", "-c", script));
    }
}
