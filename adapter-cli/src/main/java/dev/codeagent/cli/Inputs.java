package dev.codeagent.cli;

import dev.codeagent.application.execute.InvalidRequestException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Reads the user's files and standard input without ever reading more than a cap into memory. */
final class Inputs {

    /** The most a program's standard input or a task's tests may be: it is held in memory whole. */
    static final long MAX_INPUT_BYTES = 64L * 1024 * 1024;

    private Inputs() {
    }

    /** What was read, and what to call it in messages. */
    record Text(String name, String text) {
    }

    /**
     * Reads a whole file or, for {@code -}, standard input, as UTF-8 (malformed bytes replaced).
     *
     * @param what what the file is, for messages ("program", "tests")
     * @param cap the most bytes accepted
     * @param capKey the config key that sets the cap, for the message, or null
     * @throws UsageException when the file is missing or unreadable
     * @throws InvalidRequestException when there is more than {@code cap}
     */
    static Text read(String file, CliContext context, String what, long cap, String capKey) {
        if (file == null || file.equals("-")) {
            return new Text("<stdin>", decode(readAtMost(context.stdin(), cap, "standard input", what, capKey)));
        }
        Path path = context.resolve(file);
        if (Files.isDirectory(path)) {
            throw new UsageException(file + ": is a directory, not a file");
        }
        try (InputStream in = Files.newInputStream(path)) {
            return new Text(file, decode(readAtMost(in, cap, file, what, capKey)));
        } catch (NoSuchFileException e) {
            throw new UsageException(file + ": no such file");
        } catch (AccessDeniedException e) {
            throw new UsageException(file + ": permission denied");
        } catch (IOException e) {
            throw new UsageException(file + ": cannot read: " + e.getMessage());
        }
    }

    private static byte[] readAtMost(InputStream in, long cap, String source, String what, String capKey) {
        try {
            byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, cap + 1));
            if (bytes.length > cap) {
                throw new InvalidRequestException(what.equals("program") ? "code" : what, "the " + what + " from " + source
                        + " is more than " + cap + " bytes; the limit is " + cap + (capKey == null ? "" : " (" + capKey + ")"));
            }
            return bytes;
        } catch (IOException e) {
            throw new UsageException(source + ": cannot read: " + e.getMessage());
        }
    }

    private static String decode(byte[] bytes) {
        // new String(…, UTF_8) replaces malformed input instead of throwing
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
