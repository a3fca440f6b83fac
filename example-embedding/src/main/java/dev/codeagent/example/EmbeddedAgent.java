package dev.codeagent.example;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunListener;
import dev.codeagent.domain.solving.Task;
import java.util.ArrayList;
import java.util.List;

/**
 * What the README shows an embedding program doing: a sandboxed executor, a session and an agent, each from a
 * few lines of public API, the sandbox picked by config. Compiled and tested so the README cannot rot.
 */
public final class EmbeddedAgent {

    private EmbeddedAgent() {
    }

    /** Runs Python code in the sandbox the config names ("process" or "docker"). */
    public static Execution run(String sandboxKind, String python) {
        try (CodeAgent agent = CodeAgent.create(new ConfigLoader().parse("sandbox: {kind: " + sandboxKind + "}"))) {
            return agent.executeCode().execute(ExecutionRequest.of(Language.PYTHON, python));
        }
    }

    /**
     * Runs cells one after another in one session of the configured sandbox (a real kernel: state persists
     * between cells) and returns what each gave.
     */
    public static List<CellResult> session(String sandboxKind, String... cells) {
        try (CodeAgent agent = CodeAgent.create(new ConfigLoader().parse("sandbox: {kind: " + sandboxKind + "}"));
             Session session = agent.openSession(SessionLimits.defaults())) {
            List<CellResult> results = new ArrayList<>();
            for (String code : cells) {
                results.add(session.execute(new Cell(code)));
            }
            return results;
        }
    }

    /** Solves a task with the caller's own generator (any LLM client), keeping runs in memory. */
    public static Run solve(CodeGenerator generator, Task task) {
        try (CodeAgent agent = CodeAgent.builder(new ConfigLoader().parse("store: {kind: memory}"))
                .generator(generator)
                .build()) {
            return agent.solveTask().solve(task, RunListener.NONE);
        }
    }
}
