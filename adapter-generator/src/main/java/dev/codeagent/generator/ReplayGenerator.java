package dev.codeagent.generator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.GenerationRequest;
import dev.codeagent.domain.solving.GeneratorException;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A {@link CodeGenerator} that plays back recorded replies from a JSONL file: for offline demos and
 * regression tests of the agent loop, with no model and no network.
 *
 * <p>Each non-blank line is one reply, as any of
 * <ul>
 *   <li>{@code {"reply": "..."}} (other fields, such as a note on what the reply is for, are ignored),</li>
 *   <li>{@code {"content": "..."}},</li>
 *   <li>a raw recorded chat-completions response, {@code {"choices": [{"message": {"content": "..."}}]}}.</li>
 * </ul>
 *
 * <p>Attempt <i>n</i> of a run gets the reply on the <i>n</i>-th non-blank line, whatever the feedback
 * said: the reply is chosen by {@link GenerationRequest#attemptNumber()}, not by a cursor. So every run
 * replays the same transcript from its start, runs may interleave on one instance, and the generator is
 * safe for concurrent use. A run that needs more attempts than the file has replies fails with a
 * {@link GeneratorException.Kind#PERMANENT} error.
 *
 * <p>The whole file is read and checked when the generator is built; a bad line fails then, naming the
 * file and the line.
 */
public final class ReplayGenerator implements CodeGenerator {

    private final Path file;
    private final List<String> replies;

    /**
     * @param file the JSONL file; a leading {@code ~} means the user's home directory
     * @throws ConfigException when the file cannot be read, has a bad line, or has no replies
     */
    public ReplayGenerator(Path file) {
        this.file = Objects.requireNonNull(file, "file");
        this.replies = List.copyOf(read(file));
    }

    /**
     * Builds a replay generator from {@code generator.replay.file}.
     *
     * @param file the configured path, {@code ~} expanded; null fails with what to set
     */
    public static ReplayGenerator fromConfig(String file) {
        if (file == null || file.isBlank()) {
            throw new ConfigException("generator.replay.file is not set; the replay generator needs a JSONL file of "
                    + "recorded replies: pass --replay FILE or set generator.replay.file");
        }
        return new ReplayGenerator(expandHome(file.strip()));
    }

    @Override
    public String generate(GenerationRequest request) {
        int attempt = request.attemptNumber();
        if (attempt > replies.size()) {
            throw new GeneratorException(GeneratorException.Kind.PERMANENT, "the replay file " + file + " has only "
                    + replies.size() + (replies.size() == 1 ? " reply" : " replies") + ", but attempt " + attempt + " needs one more");
        }
        return replies.get(attempt - 1);
    }

    @Override
    public String describe() {
        return "replay:" + file.getFileName();
    }

    /** How many replies the file holds. */
    public int size() {
        return replies.size();
    }

    static Path expandHome(String path) {
        if (path.equals("~") || path.startsWith("~/")) {
            return Path.of(System.getProperty("user.home") + path.substring(1));
        }
        return Path.of(path);
    }

    private static List<String> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ConfigException("the replay file " + file + " does not exist (generator.replay.file)");
        } catch (CharacterCodingException e) {
            throw new ConfigException("the replay file " + file + " is not UTF-8 text");
        } catch (IOException e) {
            throw new ConfigException("cannot read the replay file " + file + ": " + e.getMessage(), e);
        }
        ObjectMapper json = new ObjectMapper();
        List<String> replies = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (i == 0 && line.startsWith("\uFEFF")) {
                line = line.substring(1);
            }
            if (!line.isBlank()) {
                replies.add(reply(json, line, file, i + 1));
            }
        }
        if (replies.isEmpty()) {
            throw new ConfigException("the replay file " + file + " has no replies; each line should be {\"reply\": \"...\"}");
        }
        return replies;
    }

    private static String reply(ObjectMapper json, String line, Path file, int number) {
        String where = "the replay file " + file + " line " + number + ": ";
        JsonNode node;
        try {
            node = json.readTree(line);
        } catch (JsonProcessingException e) {
            throw new ConfigException(where + "not valid JSON (" + e.getOriginalMessage().replaceAll("\\s+", " ") + ")");
        }
        if (!node.isObject()) {
            throw new ConfigException(where + "expected a JSON object such as {\"reply\": \"...\"}");
        }
        JsonNode text;
        String field;
        if (node.has("reply")) {
            field = "reply";
            text = node.get("reply");
        } else if (node.has("content")) {
            field = "content";
            text = node.get("content");
        } else if (node.has("choices")) {
            field = "choices[0].message.content";
            text = node.path("choices").path(0).path("message").path("content");
        } else {
            throw new ConfigException(where + "no reply: expected \"reply\", \"content\" or a recorded "
                    + "{\"choices\": [{\"message\": {\"content\": ...}}]} response");
        }
        if (!text.isTextual()) {
            throw new ConfigException(where + "\"" + field + "\" must be a string");
        }
        return text.asText();
    }
}
