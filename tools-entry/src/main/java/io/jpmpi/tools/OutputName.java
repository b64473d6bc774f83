package io.jpmpi.tools;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;

/**
 * The name of the output directory {@code jpmpi run} makes when none is given: {@code jpmpi-} and,
 * under Slurm, the job ({@code SLURM_JOB_ID}, or for a task of an array job Slurm's own
 * {@code <array job>_<task>}) and the step {@code jpmpi run} itself runs in ({@code .<step>}, when
 * it is started by srun), then the local time to the second. Two runs that would take the same
 * name (two steps of one job started in the same second) still get directories of their own:
 * {@link RunCommand#freshDirectory} makes {@code name-2} and on.
 */
final class OutputName {
    static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    private OutputName() {
    }

    static String of(Map<String, String> env, LocalDateTime now) {
        StringBuilder b = new StringBuilder("jpmpi-");
        String array = env.get("SLURM_ARRAY_JOB_ID");
        String task = env.get("SLURM_ARRAY_TASK_ID");
        String job = env.get("SLURM_JOB_ID");
        if (safe(array) && safe(task)) {
            b.append(array).append('_').append(task).append('-');
        } else if (safe(job)) {
            b.append(job).append('-');
        }
        String step = env.get("SLURM_STEP_ID");
        if (b.length() > "jpmpi-".length() && safe(step)) {
            b.setLength(b.length() - 1);
            b.append('.').append(step).append('-');
        }
        return b.append(TIME.format(now)).toString();
    }

    /** A value that can be part of a file name as it is (ids are digits; anything else is left out). */
    private static boolean safe(String v) {
        return v != null && v.matches("[0-9A-Za-z]{1,32}");
    }
}
