package io.jpmpi.tools;

import io.jpmpi.specs.Settings.Implementation;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The MPI implementations jpmpi has a dispatcher build for, and how to recognise each. */
public enum MpiImpl {
    OPENMPI(Implementation.OPENMPI, List.of("libmpi.so.40"), List.of("libopen-pal.so", "libopen-rte.so"),
            "Open MPI"),
    MPICH(Implementation.MPICH, List.of("libmpich.so.12", "libmpi.so.12"), List.of("libmpl.so"), "MPICH");

    public final Implementation settings;
    /** Sonames of its C library (the first is what jpmpi's build links). */
    public final List<String> libraries;
    /** Libraries only it brings along, for builds with another soname. */
    public final List<String> companions;
    /** How `--version` of its launcher or MPI_Get_library_version names it. */
    public final String marker;

    MpiImpl(Implementation settings, List<String> libraries, List<String> companions, String marker) {
        this.settings = settings;
        this.libraries = libraries;
        this.companions = companions;
        this.marker = marker;
    }

    public String id() {
        return settings.id;
    }

    public String displayName() {
        return settings.displayName;
    }

    /** The compiler wrapper: JPMPI_&lt;IMPL&gt;_MPICC, else Debian's name. */
    public String mpicc() {
        return settings.mpiccSetting().value().orElse(settings.mpicc);
    }

    /** The launcher: JPMPI_&lt;IMPL&gt;_MPIRUN, else Debian's name. */
    public String mpirun() {
        return settings.mpirunSetting().value().orElse(settings.mpirun);
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
