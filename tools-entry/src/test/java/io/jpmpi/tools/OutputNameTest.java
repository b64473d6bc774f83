package io.jpmpi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.LocalDateTime;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The default output directory's name: Slurm's job, array task and step where they exist, then the time. */
class OutputNameTest {
    static final LocalDateTime NOW = LocalDateTime.of(2026, 11, 26, 8, 5, 9);

    @Test
    void namesTheJobTheArrayTaskAndTheStep() {
        assertEquals("jpmpi-20261126-080509", OutputName.of(Map.of(), NOW));
        assertEquals("jpmpi-4242-20261126-080509", OutputName.of(Map.of("SLURM_JOB_ID", "4242"), NOW));
        assertEquals("jpmpi-4240_2-20261126-080509", OutputName.of(Map.of("SLURM_JOB_ID", "4242",
                "SLURM_ARRAY_JOB_ID", "4240", "SLURM_ARRAY_TASK_ID", "2"), NOW));
        assertEquals("jpmpi-4242.3-20261126-080509", OutputName.of(Map.of("SLURM_JOB_ID", "4242",
                "SLURM_STEP_ID", "3"), NOW));
        assertEquals("jpmpi-20261126-080509", OutputName.of(Map.of("SLURM_STEP_ID", "3"), NOW), "a step of no job");
        assertEquals("jpmpi-20261126-080509", OutputName.of(Map.of("SLURM_JOB_ID", "../x"), NOW),
                "not a name part: left out");
    }
}
