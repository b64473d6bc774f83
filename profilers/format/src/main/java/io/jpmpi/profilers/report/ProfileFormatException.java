package io.jpmpi.profilers.report;

import java.io.IOException;

/**
 * A profile.json that is not a valid {@value Profile#SCHEMA} document: empty, truncated, not JSON,
 * another schema, a value of the wrong type or out of range, sizes that do not agree, input beyond
 * the reader's limits. The message is one line that names the file, the place and the culprit:
 * {@code profile.json: line 12, column 5: "functions[3].calls" must be a non-negative integer, found "abc"}.
 */
public final class ProfileFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    public ProfileFormatException(String message) {
        super(message);
    }
}
