package dev.codeagent.application.execute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.policy.CodePolicy;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ExecuteCodeTest {

    @Test
    void retriesOnlyWhenTheSandboxItselfFailed() {
        AtomicInteger calls = new AtomicInteger();
        var sandbox = new ScriptedSandbox(r -> calls.incrementAndGet() < 3
                ? ScriptedSandbox.ended(Outcome.SANDBOX_ERROR, "engine hiccup") : ScriptedSandbox.exited(0, "1\n", ""));
        Execution e = executor(sandbox, CodePolicy.permissive(), 1 << 20).execute(ExecutionRequest.of(Language.PYTHON, "print(1)"));
        assertThat(e.outcome()).isEqualTo(Outcome.OK);
        assertThat(calls).hasValue(3);
    }

    /** A request that names no compile limits gets the configured ones (limits.compileTimeout, limits.compileMemory). */
    @Test
    void fillsInTheConfiguredCompileLimitsAndKeepsARequestsOwn() {
        var sandbox = new ScriptedSandbox(r -> ScriptedSandbox.exited(0, "", ""));
        ResourceLimits configured = ResourceLimits.compileDefaults().withWallTime(Duration.ofSeconds(5));
        ExecuteCode execute = new ExecuteCode(sandbox, CodePolicy.permissive(), 1 << 20, 2, Duration.ofSeconds(1), configured);
        execute.execute(ExecutionRequest.of(Language.PYTHON, "print(1)"));
        ResourceLimits own = ResourceLimits.compileDefaults().withMemoryBytes(64 * ResourceLimits.MIB);
        execute.execute(ExecutionRequest.of(Language.PYTHON, "print(1)").withCompileLimits(own));
        assertThat(sandbox.requests()).extracting(ExecutionRequest::compileLimits).containsExactly(configured, own);
    }

    @Test
    void neverRetriesTheProgramsOwnFailure() {
        var sandbox = new ScriptedSandbox(r -> ScriptedSandbox.exited(1, "", "Traceback"));
        executor(sandbox, CodePolicy.permissive(), 1 << 20).execute(ExecutionRequest.of(Language.PYTHON, "1/0"));
        assertThat(sandbox.requests()).hasSize(1);
    }

    @Test
    void givesUpAfterThreeSandboxFailuresAndSaysSo() {
        var sandbox = new ScriptedSandbox(r -> ScriptedSandbox.ended(Outcome.SANDBOX_ERROR, "engine down"));
        Execution e = executor(sandbox, CodePolicy.permissive(), 1 << 20).execute(ExecutionRequest.of(Language.PYTHON, "x"));
        assertThat(e.outcome()).isEqualTo(Outcome.SANDBOX_ERROR);
        assertThat(e.detail()).isEqualTo("engine down");
        assertThat(sandbox.requests()).hasSize(3);
    }

    @Test
    void aCancelledExecutionIsNotRunAgain() {
        var sandbox = new ScriptedSandbox(r -> {
            throw new dev.codeagent.domain.execution.ExecutionCancelledException("interrupted");
        });
        assertThatThrownBy(() -> executor(sandbox, CodePolicy.permissive(), 1 << 20).execute(ExecutionRequest.of(Language.PYTHON, "x")))
                .isInstanceOf(dev.codeagent.domain.execution.ExecutionCancelledException.class);
        assertThat(sandbox.requests()).hasSize(1);
    }

    @Test
    void policyViolationsNeverReachTheSandbox() {
        var sandbox = new ScriptedSandbox(r -> ScriptedSandbox.exited(0, "", ""));
        Execution e = executor(sandbox, new CodePolicy(Set.of("socket"), Set.of()), 1 << 20)
                .execute(ExecutionRequest.of(Language.PYTHON, "import socket"));
        assertThat(e.outcome()).isEqualTo(Outcome.POLICY_VIOLATION);
        assertThat(e.detail()).contains("socket");
        assertThat(sandbox.requests()).isEmpty();
    }

    @Test
    void oversizedSourceAndUnsupportedLanguageAreInvalidRequests() {
        var sandbox = new ScriptedSandbox(r -> ScriptedSandbox.exited(0, "", ""));
        ExecuteCode execute = executor(sandbox, CodePolicy.permissive(), 10);
        assertThatThrownBy(() -> execute.execute(ExecutionRequest.of(Language.PYTHON, "print('eleven')")))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("limit is 10")
                .extracting(e -> ((InvalidRequestException) e).field()).isEqualTo("code");
        assertThatThrownBy(() -> execute.execute(ExecutionRequest.of(Language.BASH, "ls")))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("cannot run bash")
                .hasMessageContaining("python");
        assertThat(sandbox.requests()).isEmpty();
    }

    @Test
    void refusesWhenEveryPlaceStaysBusy() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        var sandbox = new ScriptedSandbox(r -> {
            entered.countDown();
            try {
                release.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ScriptedSandbox.exited(0, "", "");
        });
        ExecuteCode execute = new ExecuteCode(sandbox, CodePolicy.permissive(), 1 << 20, 1, Duration.ofMillis(50));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Execution> first = pool.submit(() -> execute.execute(ExecutionRequest.of(Language.PYTHON, "a")));
            assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(execute.running()).isEqualTo(1);
            assertThatThrownBy(() -> execute.execute(ExecutionRequest.of(Language.PYTHON, "b")))
                    .isInstanceOf(OverloadedException.class).hasMessageContaining("busy");
            release.countDown();
            assertThat(first.get(5, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.OK);
        } finally {
            pool.shutdownNow();
        }
    }

    private static ExecuteCode executor(ScriptedSandbox sandbox, CodePolicy policy, long maxSource) {
        return new ExecuteCode(sandbox, policy, maxSource, 4, Duration.ofSeconds(1));
    }
}
