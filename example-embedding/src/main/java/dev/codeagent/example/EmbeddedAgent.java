package dev.codeagent.example;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.multibindings.OptionalBinder;
import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.inject.Closer;
import dev.codeagent.application.inject.CodeAgentModules;
import dev.codeagent.application.solve.SolveTask;
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
 * few lines of public API, the sandbox picked by config; and the agent again for a program that composes with Guice. Compiled and tested so the README cannot rot.
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

    /**
     * The same, for a program that composes with Guice itself: install codeagent's modules into your injector,
     * give it your generator through an {@code OptionalBinder} (the default is {@code generator.kind}'s), ask for the
     * use case, and close what codeagent opened.
     */
    public static Run solveInYourInjector(CodeGenerator generator, Task task) {
        Injector injector = Guice.createInjector(
                CodeAgentModules.of(new ConfigLoader().parse("store: {kind: memory}")),
                new AbstractModule() {
                    @Override
                    protected void configure() {
                        OptionalBinder.newOptionalBinder(binder(), CodeGenerator.class).setBinding().toInstance(generator);
                    }
                });
        try {
            return injector.getInstance(SolveTask.class).solve(task, RunListener.NONE);
        } finally {
            injector.getInstance(Closer.class).close();
        }
    }
}
