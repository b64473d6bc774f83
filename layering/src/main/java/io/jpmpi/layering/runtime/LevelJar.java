package io.jpmpi.layering.runtime;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A jar of the entry list as the dispatcher passes it: the bytes of its path, as the file system
 * has them (not JNI's modified UTF-8, which mangles characters outside the BMP such as emoji), and
 * a descriptor the dispatcher opened on it. The path is used where the JVM's file-system encoding
 * (sun.jnu.encoding: the locale's, ASCII in the C locale) can spell it; otherwise the jar is read
 * through /proc/self/fd/N, which names the same file whatever its bytes.
 *
 * @param entry how messages name it (UTF-8, a replacement character for a byte that is not)
 * @param path  where the class loader reads it
 */
record LevelJar(String entry, Path path) {
    static LevelJar of(byte[] bytes, int fd) throws JavaLevel.LevelException {
        String encoding = System.getProperty("sun.jnu.encoding");
        Charset fs = encoding != null && Charset.isSupported(encoding) ? Charset.forName(encoding) : StandardCharsets.UTF_8;
        String spelled = exactly(bytes, fs);
        if (spelled != null) {
            try {
                return new LevelJar(spelled, Path.of(spelled));
            } catch (InvalidPathException e) {
                // a NUL cannot be in the bytes; anything else the JVM refuses goes through the descriptor
            }
        }
        String shown = new String(bytes, StandardCharsets.UTF_8);
        if (fd < 0) {
            throw new JavaLevel.LevelException("its path cannot be spelled in the JVM's file-system encoding " + fs
                    + " (set a UTF-8 locale, e.g. LANG=C.UTF-8)");
        }
        return new LevelJar(shown, Path.of("/proc/self/fd/" + fd));
    }

    /** The bytes decoded with {@code cs} if they round-trip unchanged, else null. */
    private static String exactly(byte[] bytes, Charset cs) {
        try {
            CharBuffer chars = cs.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            String s = chars.toString();
            return Arrays.equals(s.getBytes(cs), bytes) ? s : null;
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
