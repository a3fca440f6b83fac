package dev.codeagent.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.codeagent.application.config.ConfigException;
import dev.codeagent.domain.solving.GenerationRequest;
import dev.codeagent.domain.solving.GeneratorException;
import dev.codeagent.domain.solving.Task;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayGeneratorTest {

    private static final Task TASK = Task.of("Write mean(xs); mean([]) is 0.");

    @TempDir
    Path dir;

    static Path fixture() {
        try {
            return Path.of(ReplayGeneratorTest.class.getResource("/replay/mean.jsonl").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The request for attempt {@code n}: n-1 failed turns before it. */
    private static GenerationRequest attempt(int n) {
        List<GenerationRequest.Turn> history = new ArrayList<>();
        for (int i = 1; i < n; i++) {
            history.add(new GenerationRequest.Turn("reply " + i, "feedback " + i));
        }
        return new GenerationRequest(TASK, history);
    }

    private Path file(String content) throws IOException {
        Path f = dir.resolve("replies.jsonl");
        Files.writeString(f, content, StandardCharsets.UTF_8);
        return f;
    }

    @Test
    void playsTheRecordedFixtureInAttemptOrder() {
        ReplayGenerator replay = new ReplayGenerator(fixture());

        assertThat(replay.size()).isEqualTo(2);
        assertThat(replay.generate(attempt(1))).startsWith("Here is the function:").contains("return sum(xs) / len(xs)")
                .doesNotContain("if not xs");
        assertThat(replay.generate(attempt(2))).contains("if not xs:\n        return 0");
        assertThat(replay.describe()).isEqualTo("replay:mean.jsonl");
    }

    @Test
    void choosesByAttemptNumberSoEveryRunReplaysFromTheStart() throws IOException {
        ReplayGenerator replay = new ReplayGenerator(file("{\"reply\":\"one\"}\n{\"reply\":\"two\"}\n{\"reply\":\"three\"}\n"));

        List<String> firstRun = List.of(replay.generate(attempt(1)), replay.generate(attempt(2)), replay.generate(attempt(3)));
        List<String> secondRun = List.of(replay.generate(attempt(1)), replay.generate(attempt(2)));

        assertThat(firstRun).containsExactly("one", "two", "three");
        assertThat(secondRun).containsExactly("one", "two");
    }

    @Test
    void acceptsReplyContentAndRawOpenAiLinesAndSkipsBlankOnes() throws IOException {
        ReplayGenerator replay = new ReplayGenerator(file("\uFEFF{\"reply\":\"a\",\"note\":\"ignored\"}\n\n   \n"
                + "{\"content\":\"b\"}\r\n"
                + "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                + "\"content\":\"c\"},\"finish_reason\":\"stop\"}]}\n"));

        assertThat(List.of(replay.generate(attempt(1)), replay.generate(attempt(2)), replay.generate(attempt(3))))
                .containsExactly("a", "b", "c");
    }

    @Test
    void aLineThatIsNotJsonFailsAtConstructionNamingFileAndLine() throws IOException {
        Path f = file("{\"reply\":\"ok\"}\n\n{\"reply\": oops}\n");

        assertThatThrownBy(() -> new ReplayGenerator(f))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("the replay file " + f + " line 3: not valid JSON")
                .hasMessageNotContaining("\n");
    }

    @Test
    void aLineWithoutAReplyOrWithANonStringReplyFailsNamingTheLine() throws IOException {
        Path noReply = file("{\"reply\":\"ok\"}\n{\"text\":\"where?\"}\n");
        assertThatThrownBy(() -> new ReplayGenerator(noReply))
                .isInstanceOf(ConfigException.class).hasMessageContaining("line 2: no reply");

        Path numeric = file("{\"reply\":42}\n");
        assertThatThrownBy(() -> new ReplayGenerator(numeric))
                .isInstanceOf(ConfigException.class).hasMessageContaining("line 1: \"reply\" must be a string");

        Path array = file("[\"reply\"]\n");
        assertThatThrownBy(() -> new ReplayGenerator(array))
                .isInstanceOf(ConfigException.class).hasMessageContaining("line 1: expected a JSON object");

        Path nullContent = file("{\"choices\":[{\"message\":{\"content\":null}}]}\n");
        assertThatThrownBy(() -> new ReplayGenerator(nullContent))
                .isInstanceOf(ConfigException.class).hasMessageContaining("line 1: \"choices[0].message.content\" must be a string");
    }

    @Test
    void moreAttemptsThanRepliesIsAPermanentFailure() throws IOException {
        Path f = file("{\"reply\":\"one\"}\n{\"reply\":\"two\"}\n");
        ReplayGenerator replay = new ReplayGenerator(f);

        GeneratorException e = catchThrowableOfType(GeneratorException.class, () -> replay.generate(attempt(3)));

        assertThat(e.kind()).isEqualTo(GeneratorException.Kind.PERMANENT);
        assertThat(e.getMessage()).startsWith("the replay file " + f + " has only 2 replies");
    }

    @Test
    void aMissingEmptyOrUnsetFileFailsClearly() throws IOException {
        assertThatThrownBy(() -> new ReplayGenerator(dir.resolve("absent.jsonl")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("absent.jsonl does not exist");
        Path empty = file("\n\n");
        assertThatThrownBy(() -> new ReplayGenerator(empty))
                .isInstanceOf(ConfigException.class).hasMessageContaining("has no replies");
        assertThatThrownBy(() -> ReplayGenerator.fromConfig(null))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--replay").hasMessageContaining("generator.replay.file");
    }

    @Test
    void expandsATildeToTheHomeDirectory() {
        assertThat(ReplayGenerator.expandHome("~/runs/demo.jsonl"))
                .isEqualTo(Path.of(System.getProperty("user.home"), "runs", "demo.jsonl"));
        assertThat(ReplayGenerator.expandHome("~")).isEqualTo(Path.of(System.getProperty("user.home")));
        assertThat(ReplayGenerator.expandHome("examples/~x.jsonl")).isEqualTo(Path.of("examples/~x.jsonl"));
    }
}
