package io.jpmpi.profilers.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The human-readable reports of a profile, written beside its profile.json. */
public final class Reports {
    /** The text report's file name. */
    public static final String TEXT = "report.txt";
    /** The HTML report's file name. */
    public static final String HTML = "report.html";

    private Reports() {
    }

    /** Writes {@value #TEXT} and {@value #HTML} into {@code dir}, each atomically; returns the text report. */
    public static String writeReports(Profile p, Path dir) throws IOException {
        return writeReports(p, dir, true);
    }

    /**
     * Writes {@value #TEXT} and, if {@code html}, {@value #HTML} into {@code dir}, each atomically;
     * returns the text report.
     */
    public static String writeReports(Profile p, Path dir, boolean html) throws IOException {
        java.util.Map<String, String> extra = extraSections(dir);
        StringBuilder all = new StringBuilder(TextReport.render(p));
        for (var e : extra.entrySet()) {
            all.append('\n').append(e.getValue());
        }
        String text = all.toString();
        AtomicFile.write(dir.resolve(TEXT), w -> w.write(text));
        if (html) {
            String page = HtmlReport.render(p, extra);
            AtomicFile.write(dir.resolve(HTML), w -> w.write(page));
        }
        return text;
    }

    /** Reports of other jpmpi tools found beside the profile, included at the end: file name → section title. */
    public static final java.util.Map<String, String> EXTRA_FILES = java.util.Map.of("mpit.txt",
            "MPI_T performance variables", "hwc.txt", "Hardware counters inside and outside MPI");

    /** The profile tool's data file, from which its reports are made. */
    public static final String PROFILE = "profile.json";

    /**
     * For a tool that has just written one of {@link #EXTRA_FILES} into {@code dir}: when the profile
     * tool wrote its {@value #PROFILE} there (it ran first), writes its reports again so that they
     * include that file; when it runs later, it includes the file itself. Returns whether there was a
     * profile.
     */
    public static boolean includeInProfileReports(Path dir) throws IOException {
        Path profile = dir.resolve(PROFILE);
        if (!Files.isRegularFile(profile)) {
            return false;
        }
        writeReports(ProfileJson.read(profile), dir);
        return true;
    }

    static java.util.Map<String, String> extraSections(Path dir) throws IOException {
        java.util.Map<String, String> out = new java.util.TreeMap<>();
        for (var e : EXTRA_FILES.entrySet()) {
            Path f = dir.resolve(e.getKey());
            if (Files.isRegularFile(f)) {
                out.put(e.getValue(), Files.readString(f));
            }
        }
        return out;
    }
}
