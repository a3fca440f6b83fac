package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.policy.CodePolicy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Piston wire mapping on its own; the endpoint itself is driven by a real Piston client in PistonClientIT. */
class PistonMappingTest {

    private final ScriptedSandbox sandbox = new ScriptedSandbox(r -> ScriptedSandbox.exited(0, "3.11.2\n", ""));
    private final PistonApi piston = new PistonApi(new ExecuteCode(sandbox, CodePolicy.permissive(), 1 << 20, 2,
            Duration.ofSeconds(1)), sandbox.languages(), CodeAgentConfig.defaults());

    @Test
    void matchesVersionSelectorsAsPistonClientsSendThem() {
        assertThat(PistonApi.matches("3.11.2", "*")).isTrue();
        assertThat(PistonApi.matches("3.11.2", "3")).isTrue();
        assertThat(PistonApi.matches("3.11.2", "3.x")).isTrue();
        assertThat(PistonApi.matches("3.11.2", "3.11.2")).isTrue();
        assertThat(PistonApi.matches("3.11.2", "3.10")).isFalse();
        assertThat(PistonApi.matches("3.11.2", "2.7.18")).isFalse();
        assertThat(PistonApi.matches("3.11.2", ">=3 || rm -rf")).isFalse();
    }

    @Test
    void runsTheFirstUtf8FileAndAddsANewlineToStdinAsPistonDoes() {
        ExecutionRequest r = piston.request(new PistonApi.ExecuteBody("py", "3", List.of(
                new PistonApi.FileBody("data.txt", "aGVsbG8=", "base64"),
                new PistonApi.FileBody("main.py", "print(open('data.txt').read())", null)),
                "x", List.of("1"), 2500.0, 10000.0, -1.0, -1.0, null, null));
        assertThat(r.program().language()).isEqualTo(Language.PYTHON);
        assertThat(r.program().source()).isEqualTo("print(open('data.txt').read())");
        assertThat(r.program().binaryFiles()).containsEntry("data.txt", "aGVsbG8=");
        assertThat(r.stdin()).isEqualTo("x\n");
        assertThat(r.args()).containsExactly("1");
        assertThat(r.limits().wallTime()).isEqualTo(Duration.ofMillis(2500));
    }

    @Test
    void base64AndHexFilesAreWrittenAsTheirBytesTextOrNot() {
        ExecutionRequest r = piston.request(new PistonApi.ExecuteBody("python", "*", List.of(
                new PistonApi.FileBody("main.py", "print(1)", "utf8"),
                new PistonApi.FileBody("image.png", "iVBORw0K\nGgo=", "base64"),
                new PistonApi.FileBody(null, "00ff80", "hex"),
                new PistonApi.FileBody("notes.txt", "plain", null)),
                null, null, null, null, null, null, null, null));
        assertThat(r.program().mainFileName()).isEqualTo("main.py");
        assertThat(r.program().binaryFiles()).containsOnly(
                java.util.Map.entry("image.png", "iVBORw0KGgo="), java.util.Map.entry("file2.code", "AP+A"));
        assertThat(r.program().files()).containsOnly(java.util.Map.entry("notes.txt", "plain"));
        assertThatThrownBy(() -> piston.request(new PistonApi.ExecuteBody("python", "*", List.of(
                new PistonApi.FileBody("main.py", "print(1)", null), new PistonApi.FileBody("x", "zz", "hex")),
                null, null, null, null, null, null, null, null)))
                .hasMessage("files[1].content is not valid hex");
        assertThatThrownBy(() -> piston.request(new PistonApi.ExecuteBody("python", "*", List.of(
                new PistonApi.FileBody("main.py", "print(1)", null), new PistonApi.FileBody("x", "AA", "latin1")),
                null, null, null, null, null, null, null, null)))
                .hasMessage("files[1].encoding must be one of utf8, base64, hex");
    }

    @Test
    void refusesWithPistonsWording() {
        assertThatThrownBy(() -> piston.request(new PistonApi.ExecuteBody("cobol", "*", List.of(new PistonApi.FileBody(null, "x", null)),
                null, null, null, null, null, null, null, null)))
                .hasMessage("cobol-* runtime is unknown");
        assertThatThrownBy(() -> piston.request(new PistonApi.ExecuteBody("python", "*", null,
                null, null, null, null, null, null, null, null)))
                .hasMessage("files is required as an array");
        assertThatThrownBy(() -> piston.request(new PistonApi.ExecuteBody("python", "*", List.of(new PistonApi.FileBody(null, "x", null)),
                null, null, 999_999_999.0, null, null, null, null, null)))
                .hasMessage("run_timeout cannot exceed the configured limit of 60000");
    }

    @Test
    void reportsLimitsWithPistonStatusCodes() {
        Execution timeout = new Execution(Outcome.TIME_LIMIT, null, 9, new CapturedOutput("partial", false), CapturedOutput.EMPTY,
                Duration.ofMillis(3000), null, null, "wall time", ScriptedSandbox.ISOLATION);
        ObjectNode run = (ObjectNode) piston.response(Language.PYTHON, timeout).get("run");
        assertThat(run.get("status").asText()).isEqualTo("TO");
        assertThat(run.get("signal").asText()).isEqualTo("SIGKILL");
        assertThat(run.get("code").isNull()).isTrue();
        assertThat(run.get("output").asText()).isEqualTo("partial");

        ObjectNode failed = (ObjectNode) piston.response(Language.PYTHON, ScriptedSandbox.exited(3, "", "err")).get("run");
        assertThat(failed.get("status").asText()).isEqualTo("RE");
        assertThat(failed.get("code").asInt()).isEqualTo(3);
        assertThat(failed.get("signal").isNull()).isTrue();

        ObjectNode ok = (ObjectNode) piston.response(Language.PYTHON, ScriptedSandbox.exited(0, "hi\n", "")).get("run");
        assertThat(ok.get("status").isNull()).isTrue();
        assertThat(ok.get("code").asInt()).isZero();
    }

    @Test
    void reportsTheWaitStatusAsTheSandboxGaveItNotAGuessFromTheNumber() {
        // `exit 137` is an exit status that happens to be 128 + 9; a death by SIGKILL has no exit status
        Execution exited137 = ScriptedSandbox.exited(137, "", "");
        Execution killed = new Execution(Outcome.RUNTIME_ERROR, null, 9, CapturedOutput.EMPTY, CapturedOutput.EMPTY,
                Duration.ofMillis(5), null, null, null, ScriptedSandbox.ISOLATION);

        ObjectNode byExit = (ObjectNode) piston.response(Language.PYTHON, exited137).get("run");
        assertThat(byExit.get("code").asInt()).isEqualTo(137);
        assertThat(byExit.get("signal").isNull()).isTrue();
        assertThat(byExit.get("status").asText()).isEqualTo("RE");
        assertThat(byExit.get("message").asText()).isEqualTo("Exited with error status 137");
        assertThat(Views.execution(exited137).get("exitCode").asInt()).isEqualTo(137);
        assertThat(Views.execution(exited137).get("signal").isNull()).isTrue();

        ObjectNode bySignal = (ObjectNode) piston.response(Language.PYTHON, killed).get("run");
        assertThat(bySignal.get("code").isNull()).isTrue();
        assertThat(bySignal.get("signal").asText()).isEqualTo("SIGKILL");
        assertThat(bySignal.get("status").asText()).isEqualTo("SG");
        assertThat(bySignal.get("message").asText()).isEqualTo("Caught fatal signal 9");
        assertThat(Views.execution(killed).get("exitCode").isNull()).isTrue();
        assertThat(Views.execution(killed).get("signal").asInt()).isEqualTo(9);
    }
}
