package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.command.FieldErrors;
import dev.codeagent.application.command.InputPolicy;
import dev.codeagent.application.command.TaskRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Task;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * The task file as {@code codeagent solve --task-file} reads it: the repository's example, unchanged,
 * is the same task here as over {@code POST /v1/runs} (ExampleTaskIT in adapter-http).
 */
class TaskFileTest {

    @Test
    void readsTheExampleTaskWithItsUnits() throws IOException {
        Path example = Path.of("..", "examples", "middle-task.json");
        TaskRequest request = TaskFile.parse(example.toString(), Files.readString(example));
        FieldErrors errors = new FieldErrors();
        Task task = request.toTask(new TaskRequest.Defaults(ResourceLimits.defaults(), 1), EnumSet.allOf(Language.class),
                InputPolicy.local(), errors);
        assertThat(errors.list()).isEmpty();
        assertThat(task.prompt()).startsWith("Write a Python function middle(xs)");
        assertThat(task.language()).isEqualTo(Language.PYTHON);
        assertThat(task.tests()).contains("assert middle([5, 7]) == 6");
        assertThat(task.limits().wallTime()).isEqualTo(Duration.ofSeconds(5));
        assertThat(task.limits().cpuTime()).isEqualTo(Duration.ofSeconds(5));
        assertThat(task.limits().memoryBytes()).isEqualTo(256L * 1024 * 1024);
        assertThat(task.maxAttempts()).isEqualTo(3);
    }

    @Test
    void namesTheFileAndTheFieldInOneLine() {
        assertThatThrownBy(() -> TaskFile.parse("t.json", "{\"prompt\": \"x\", \"limits\": {\"memoryBytes\": 1.5, \"timeoutMs\": \"5\"}}"))
                .isInstanceOf(UsageException.class)
                .hasMessage("t.json: limits.memoryBytes: expected a whole number of bytes or a size like \"256m\", got number 1.5 (and 1 more)");
        assertThatThrownBy(() -> TaskFile.parse("t.json", ""))
                .isInstanceOf(UsageException.class)
                .hasMessageStartingWith("t.json: not valid JSON");
    }
}
