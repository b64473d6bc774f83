package io.jpmpi.tools;

import io.jpmpi.platform.Settings;
import io.jpmpi.platform.Toolchain;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The MPI implementations jpmpi has a dispatcher build for: their toolchain (the specs module's
 * list of implementations) and how to recognise their libraries.
 */
public enum MpiImpl {
    // companions: its runtime's own libraries, and its Fortran and C++ bindings, which a Fortran or C++
    // program may need instead of the C library (Debian's elk-lapw: libmpi_mpifh.so.40 alone), so that such
    // a program's MPI is known from its own headers, without its dynamic loader's list
    OPENMPI("openmpi", List.of("libmpi.so.40"), List.of("libopen-pal.so", "libopen-rte.so", "libmpi_mpifh",
            "libmpi_usempi", "libmpi_cxx.so", "libmpi_java.so")),
    MPICH("mpich", List.of("libmpich.so.12", "libmpi.so.12"), List.of("libmpl.so", "libmpichfort.so",
            "libmpichcxx.so", "libmpifort.so", "libmpicxx.so"));

    public final Toolchain toolchain;
    /** Sonames of its C library (the first is what jpmpi's build links). */
    public final List<String> libraries;
    /** Libraries only it brings along, for builds with another soname. */
    public final List<String> companions;

    MpiImpl(String id, List<String> libraries, List<String> companions) {
        this.toolchain = Toolchain.byId(id);
        this.libraries = libraries;
        this.companions = companions;
    }

    public String id() {
        return toolchain.id();
    }

    public String displayName() {
        return toolchain.name();
    }

    /** JPMPI_&lt;IMPL&gt;_MPICC. */
    public Settings.Setting mpiccSetting() {
        return Settings.mpicc(toolchain);
    }

    /** JPMPI_&lt;IMPL&gt;_MPIRUN. */
    public Settings.Setting mpirunSetting() {
        return Settings.mpirun(toolchain);
    }

    /** The compiler wrapper: JPMPI_&lt;IMPL&gt;_MPICC, else Debian's name. */
    public String mpicc() {
        return mpiccSetting().value().orElse(toolchain.cc());
    }

    /** The launcher: JPMPI_&lt;IMPL&gt;_MPIRUN, else Debian's name. */
    public String mpirun() {
        return mpirunSetting().value().orElse(toolchain.mpirun());
    }

    /** Launcher arguments for {@code n} ranks on this machine. */
    public List<String> ranksArgs(int n) {
        return this == OPENMPI ? List.of("--oversubscribe", "-np", Integer.toString(n)) : List.of("-n", Integer.toString(n));
    }

    public static Optional<MpiImpl> byId(String id) {
        for (MpiImpl m : values()) {
            if (m.id().equals(id.toLowerCase(Locale.ROOT))) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    /** Which implementation a shared library's soname belongs to. */
    public static Optional<MpiImpl> bySoname(String soname) {
        for (MpiImpl m : values()) {
            if (m.libraries.contains(soname) || m.companions.stream().anyMatch(soname::startsWith)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }
}
