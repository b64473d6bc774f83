package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jpmpi.platform.InstallLayout;
import io.jpmpi.profilers.accounting.AccountingRecord;
import io.jpmpi.profilers.report.Profile;
import io.jpmpi.profilers.report.ProfileJson;
import io.jpmpi.testsupport.MpiRun;
import io.jpmpi.testsupport.MpiRun.Impl;
import io.jpmpi.testsupport.MpiRun.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * The one preload (lib/libjpmpi-preload.so) and the site's tools (etc/jpmpi/site.conf, here the
 * file JPMPI_SITE_CONFIG names) on this host, under mpirun / mpiexec.hydra: an MPI program of
 * either MPI gets its own MPI's dispatcher and nothing else, the environment it was given, its
 * exit status, and the site's accounting record; a job's opt-out is honoured or refused as the
 * site says; a user's own tools (bin/jpmpi run --tools profile) and the site's together give the
 * complete profile and the record; a non-MPI program and a shell script run exactly as without
 * it; a Python program that loads MPI at run time (mpi4py) is accounted too. The same on the
 * Slurm test cluster: SlurmSiteIT.
 */
class PreloadIT {
    static final Path PRELOAD = Jpmpi.HOME.resolve(InstallLayout.PRELOAD);
    static final String PYTHON = "/usr/bin/python3";
    static final Path MPI4PY_SCRIPT = Path.of("../test-support/src/main/python/mpi4py_traffic.py").toAbsolutePath()
            .normalize();

    /** A site configuration naming the accounting tool and a records file of its own; the records file. */
    static Path site(String... more) throws Exception {
        Path dir = Files.createTempDirectory(Files.createDirectories(Jpmpi.RUNS), "preload-");
        Path records = dir.resolve("accounting.jsonl");
        List<String> lines = new ArrayList<>(List.of("# the site's tools", "tools = accounting",
                "set JPMPI_ACCOUNTING_FILE = " + records));
        lines.addAll(List.of(more));
        Files.write(dir.resolve("site.conf"), lines);
        return records;
    }

    static MpiRun preloaded(Impl impl, Path records) {
        return MpiRun.on(impl).ranks(2).env("LD_PRELOAD", PRELOAD.toString())
                .env("JPMPI_SITE_CONFIG", records.resolveSibling("site.conf").toString());
    }

    static List<AccountingRecord> records(Path file) throws Exception {
        List<AccountingRecord> all = new ArrayList<>();
        for (String line : Files.exists(file) ? Files.readAllLines(file) : List.<String>of()) {
            all.add(AccountingRecord.parse(line));
        }
        return all;
    }

    static String mpiName(Impl impl) {
        return impl == Impl.OPENMPI ? "Open MPI" : "MPICH";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void anMpiProgramGetsItsOwnDispatcherAndTheSiteTools(Impl impl) throws Exception {
        Path records = site();
        String given = PRELOAD + ":/lib/x86_64-linux-gnu/libm.so.6";
        Result r = preloaded(impl, records).env("LD_PRELOAD", given).env("JPMPI_TOOLS_ENTRY", "v")
                .run("preloadenv", "5");
        assertEquals(5, r.exit(), r::describe);
        Path dispatcher = Jpmpi.HOME.resolve("lib/" + impl.id + "/libmpiprofilesupport.so");
        for (int rank = 0; rank < 2; rank++) {
            String head = "preloadenv rank " + rank + ": ";
            assertEquals(1, r.countOut(head + "LD_PRELOAD=" + given + " saved=unset"), r::describe);
            int me = rank;
            assertEquals(List.of(head + "dispatcher " + dispatcher),
                    r.out().stream().filter(l -> l.startsWith("preloadenv rank " + me + ": dispatcher")).toList(),
                    () -> "exactly one dispatcher, the program's MPI's\n" + r.describe());
        }
        String err = r.stderr();
        assertTrue(err.contains("jpmpi: 1 level over " + mpiName(impl)), r::describe);
        assertTrue(err.contains("jpmpi: site tools from " + records.resolveSibling("site.conf") + ": below the job's"),
                r::describe);
        assertTrue(err.contains("lib/" + impl.id + "/libjpmpi-accounting.so  (site) defines"), r::describe);
        List<AccountingRecord> all = records(records);
        assertEquals(1, all.size(), r::describe);
        assertEquals(impl.file("preloadenv"), all.get(0).exe());
        assertEquals(2, all.get(0).ranks());
        assertTrue(all.get(0).mpi().startsWith(impl.id + " "), all.get(0)::toString);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void theSiteSaysWhetherAJobMayOptOut(Impl impl) throws Exception {
        Path allowed = site();
        Result out = preloaded(impl, allowed).env("JPMPI_SITE_TOOLS", "off").run("pingpong", "2");
        out.assertSuccess();
        assertEquals("", out.stderr(), out::describe);
        assertEquals(List.of(), records(allowed), "opted out: no record");
        Path forbidden = site("opt-out = forbidden");
        Result kept = preloaded(impl, forbidden).env("JPMPI_SITE_TOOLS", "off").env("JPMPI_TOOLS_ENTRY", "v")
                .run("pingpong", "2");
        kept.assertSuccess();
        assertTrue(kept.stderr().contains(": kept, the site forbids opting out (JPMPI_SITE_TOOLS=off ignored)"),
                kept::describe);
        assertEquals(1, records(forbidden).size(), kept::describe);
    }

    /** bin/jpmpi run --tools profile with the site's accounting: both, neither replacing the other. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jpmpi.testsupport.MpiRun#implementations")
    void theUsersToolsAndTheSitesTogether(Impl impl) throws Exception {
        Path records = site();
        Path output = records.resolveSibling("profile");
        List<String> args = new ArrayList<>(List.of("run", "--tools", "profile", "--output", output.toString(), "--"));
        args.addAll(LauncherIT.launcher(impl, 2));
        args.addAll(List.of(impl.file("pingpong"), "3"));
        Jpmpi.Result r = Jpmpi.run(Map.of("LD_PRELOAD", PRELOAD.toString(),
                "JPMPI_SITE_CONFIG", records.resolveSibling("site.conf").toString()), args);
        assertEquals(0, r.exit(), r::describe);
        Profile p = ProfileJson.read(output.resolve("profile.json"));
        assertFalse(p.partial(), r::describe);
        assertEquals(2, p.rankRows().size(), r::describe);
        Map<String, Long> calls = new TreeMap<>();
        p.functions().forEach(f -> calls.put(f.name(), f.calls()));
        assertEquals(2L, calls.get("MPI_Allreduce"), calls::toString);
        List<AccountingRecord> all = records(records);
        assertEquals(1, all.size(), r::describe);
        assertEquals(2, all.get(0).ranks());
        assertFalse(all.get(0).sampled(), "counted: the profile tool's recorder is listed above the site's level");
    }

    /** A shell script and /bin/true: the same output, exit status and nothing on stderr. */
    @Test
    void aProcessWithoutMpiRunsAsWithout() throws Exception {
        Path records = site();
        Path dir = records.getParent();
        Path script = Files.writeString(dir.resolve("script.sh"), "#!/bin/sh\necho \"LD_PRELOAD=$LD_PRELOAD\"\n"
                + "for i in 1 2 3; do /bin/echo line $i; done\n/bin/true && echo done\nexit 7\n");
        script.toFile().setExecutable(true);
        for (String program : List.of(script.toString(), "/bin/true")) {
            Result plain = MpiRun.execute(List.of(program), dir, e -> e.put("LD_PRELOAD", ""), MpiRun.TIMEOUT);
            Result with = MpiRun.execute(List.of(program), dir, e -> {
                e.put("LD_PRELOAD", PRELOAD.toString());
                e.put("JPMPI_SITE_CONFIG", dir.resolve("site.conf").toString());
            }, MpiRun.TIMEOUT);
            assertEquals(plain.exit(), with.exit(), with::describe);
            assertEquals(plain.stdout().replace("LD_PRELOAD=\n", "LD_PRELOAD=" + PRELOAD + "\n"), with.stdout(),
                    with::describe);
            assertEquals("", with.stderr(), with::describe);
        }
        assertEquals(List.of(), records(records));
    }

    /** python with mpi4py (Debian's, built for Open MPI): MPI loaded at run time, accounted too. */
    @Test
    void aPythonProgramThatLoadsMpiLater() throws Exception {
        assumeTrue(Impl.OPENMPI.installed(), "no Open MPI");
        assumeTrue(Files.isExecutable(Path.of(PYTHON)) && Files.isRegularFile(MPI4PY_SCRIPT), "no " + PYTHON);
        Path records = site();
        Result plain = MpiRun.on(Impl.OPENMPI).ranks(2).run(PYTHON, MPI4PY_SCRIPT.toString());
        Result r = preloaded(Impl.OPENMPI, records).run(PYTHON, MPI4PY_SCRIPT.toString());
        assertEquals(plain.exit(), r.exit(), r::describe);
        assertEquals(0, r.exit(), r::describe);
        assertEquals("", r.stderr(), r::describe);
        for (String line : List.of("mpi4py rank 0: ok", "mpi4py rank 1: ok")) {
            assertEquals(1, r.countOut(line), r::describe);
        }
        List<AccountingRecord> all = records(records);
        assertEquals(1, all.size(), r::describe);
        assertTrue(all.get(0).exe().contains("python3"), all.get(0)::toString);
        assertEquals(2, all.get(0).ranks());
    }
}
