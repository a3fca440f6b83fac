package dev.codeagent.generator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Task;
import org.junit.jupiter.api.Test;

class ChatPromptTest {

    @Test
    void fencesContentWithMoreBackticksThanItHolds() {
        String tests = "assert render() == '```python\\nx\\n```'\n";

        assertThat(ChatPrompt.fenced(tests, "python")).isEqualTo("````python\n" + tests + "````\n");
        assertThat(ChatPrompt.fenced("print(1)", "python")).isEqualTo("```python\nprint(1)\n```\n");
    }

    @Test
    void cutsHugeStdinInThePromptAndSaysSo() {
        Task task = new Task("Sum the numbers on stdin.", Language.PYTHON, null, null, "1\n".repeat(10_000),
                ResourceLimits.defaults(), 1);

        String message = ChatPrompt.taskMessage(task);

        assertThat(message).contains("standard input", "(12000 more characters)");
        assertThat(message.length()).isLessThan(ChatPrompt.MAX_QUOTED_CHARS + 1_000);
    }
}
