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
        String text = writeText(p, dir, extra);
        if (html) {
            writeHtml(p, dir, extra);
        }
        return text;
    }

    /**
     * Writes {@value #TEXT} into {@code dir}, atomically, with {@code extra} ({@link #extraSections}) at
     * its end; returns it. With {@link #writeHtml}, what {@link #writeReports} does, in two parts that
     * may run at the same time (the launcher after a job).
     */
    public static String writeText(Profile p, Path dir, java.util.Map<String, String> extra) throws IOException {
        StringBuilder all = new StringBuilder(TextReport.render(p));
        for (var e : extra.entrySet()) {
            all.append('\n').append(e.getValue());
        }
        String text = all.toString();
        AtomicFile.write(dir.resolve(TEXT), w -> w.write(text));
        return text;
    }

    /** Writes {@value #HTML} into {@code dir}, atomically, with {@code extra} ({@link #extraSections}). */
    public static void writeHtml(Profile p, Path dir, java.util.Map<String, String> extra) throws IOException {
        String page = HtmlReport.render(p, extra);
        AtomicFile.write(dir.resolve(HTML), w -> w.write(page));
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

    /** The reports of other tools in {@code dir} ({@link #EXTRA_FILES}): section title → text, by title. */
    public static java.util.Map<String, String> extraSections(Path dir) throws IOException {
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
