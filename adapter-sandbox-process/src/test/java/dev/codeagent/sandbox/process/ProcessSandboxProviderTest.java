package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import org.junit.jupiter.api.Test;

class ProcessSandboxProviderTest {

    @Test
    void isFoundOnTheClasspathAndChosenByTheKeyProcess() {
        try (CodeAgent agent = CodeAgent.create(CodeAgentConfig.defaults())) {
            assertThat(agent.knownKeys("sandbox")).contains(ProcessSandboxProvider.KEY);
            assertThat(agent.sandbox()).isInstanceOf(ProcessSandbox.class);
            assertThat(agent.sandbox().tier()).isEqualTo("process");
            Execution e = agent.executeCode().execute(ExecutionRequest.of(Language.PYTHON, "print(6 * 7)"));
            assertThat(e.outcome()).as(e.detail() + " " + e.stderr().text()).isEqualTo(Outcome.OK);
            assertThat(e.stdout().text()).isEqualTo("42\n");
        }
    }
}
