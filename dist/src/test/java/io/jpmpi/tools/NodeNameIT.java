package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jpmpi.profilers.accounting.AccountingRecord;
import io.jpmpi.testsupport.MpiRun.Impl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A node is Slurm's node where Slurm names it: the accounting record's host and nodes come from
 * SLURMD_NODENAME when the ranks have it (else the host name). Shown on this one host with an MPMD
 * job whose two ranks are told two node names: 2 nodes, host the first's; the same job without them:
 * 1 node, this host's name. (On the Slurm test cluster, SlurmSiteIT's records: the nodes squeue names.)
 */
class NodeNameIT {
    /**
     * Each MPMD context its own node name (hydra's -env, Open MPI's -x in the context). Open MPI 4.1's
     * mpirun gives an -x only to the ranks of its own context: jpmpi run puts its variables into every
     * context (before, the second rank had no dispatcher and the first waited for it at MPI_Finalize).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void slurmsNodeNamesCountTheNodes(Impl impl) throws Exception {
        Path records = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "nodes-").resolve("a.jsonl");
        String acct = impl.file("acct");
        for (boolean named : List.of(true, false)) {
            List<String> args = new ArrayList<>(List.of("run", "--tools", "accounting", "--"));
            for (String node : List.of("node-a", "node-b")) {
                if (!args.getLast().equals("--")) {
                    args.add(":");
                }
                if (impl == Impl.OPENMPI) {
                    args.addAll(args.contains("mpirun") ? List.of("-np", "1") : List.of("mpirun", "--oversubscribe", "-np", "1"));
                    args.addAll(named ? List.of("-x", "SLURMD_NODENAME=" + node) : List.of());
                } else {
                    args.addAll(args.contains("mpiexec.hydra") ? List.of("-n", "1") : List.of("mpiexec.hydra", "-n", "1"));
                    args.addAll(named ? List.of("-env", "SLURMD_NODENAME", node) : List.of());
                }
                args.addAll(List.of(acct, "10"));
            }
            Jpmpi.Result r = Jpmpi.run(Map.of("JPMPI_ACCOUNTING_FILE", records.toString()), args);
            assertEquals(0, r.exit(), r::describe);
        }
        List<String> lines = Files.readAllLines(records);
        assertEquals(2, lines.size(), lines::toString);
        AccountingRecord named = AccountingRecord.parse(lines.get(0));
        assertEquals(2, named.ranks(), named::toString);
        assertEquals(2, named.nodes(), named::toString);
        assertEquals("node-a", named.host(), named::toString);
        AccountingRecord plain = AccountingRecord.parse(lines.get(1));
        assertEquals(1, plain.nodes(), plain::toString);
        assertEquals(java.net.InetAddress.getLocalHost().getHostName(), plain.host(), plain::toString);
    }
}
