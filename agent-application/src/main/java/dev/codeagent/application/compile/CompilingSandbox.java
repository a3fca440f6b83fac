package dev.codeagent.application.compile;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.execution.LiveExecution;
import dev.codeagent.domain.execution.Sandbox;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Function;

/**
 * The one place compiled languages are compiled: over any tier, a {@linkplain LanguageProfile#compiled() compiled}
 * language's program runs as its compile stage and then its run stage ({@link CompileStages}), each an execution of
 * the tier; every other program (and every judged one: only Python is judged) goes to the tier as it is. The
 * composition puts it once over the configured sandbox, so every door and embedder that runs programs through
 * {@code ExecuteCode} gets it; a tier given a compiled language's program directly refuses it
 * ({@link #refusal}) rather than run its source.
 */
public final class CompilingSandbox implements Sandbox {

    private final Sandbox tier;

    private CompilingSandbox(Sandbox tier) {
        this.tier = Objects.requireNonNull(tier, "tier");
    }

    /**
     * A sandbox that hands each program whole to another composition's sandbox, which compiles it there (the
     * workers' queue: a worker's composition puts this decorator over its own tier).
     */
    public interface CompiledElsewhere extends Sandbox {
    }

    /**
     * {@code sandbox} compiling compiled languages; the sandbox itself when it already does (never twice) or when it
     * is {@link CompiledElsewhere} (then the source crosses once and nothing built crosses back and forth).
     */
    public static Sandbox over(Sandbox sandbox) {
        return sandbox instanceof CompilingSandbox || sandbox instanceof CompiledElsewhere ? sandbox
                : new CompilingSandbox(sandbox);
    }

    /**
     * What a tier throws when a compiled language's program reaches it without this decorator: it runs stages only.
     */
    public static IllegalArgumentException refusal(Language language, String tier) {
        return new IllegalArgumentException(language.id() + " is compiled: the " + tier + " sandbox runs only its compile "
                + "and run stages; compile it first through " + CompilingSandbox.class.getSimpleName()
                + " (the composition puts it over the configured sandbox: run programs through ExecuteCode)");
    }

    /** The tier under this decorator. */
    public Sandbox wrapped() {
        return tier;
    }

    @Override
    public String tier() {
        return tier.tier();
    }

    @Override
    public java.util.Set<Language> languages() {
        return tier.languages();
    }

    @Override
    public Isolation isolation() {
        return tier.isolation();
    }

    /**
     * Runs the request; a compiled language's program as its two stages.
     *
     * @return for a compiled language, what {@link CompileStages#execute} returns
     */
    @Override
    public Execution execute(ExecutionRequest request) {
        if (!compiles(request)) {
            return tier.execute(request);
        }
        return CompileStages.execute(request, tier::execute, tier.isolation());
    }

    /**
     * Starts the request live; a compiled language's program is compiled first (this call waits for its compile
     * stage), the listener hears {@link LiveExecution.Listener#compiled} before any of its output, and then what was
     * built starts live in the tier. When nothing was built the returned execution has already ended with the
     * failure.
     */
    @Override
    public LiveExecution start(ExecutionRequest request, LiveExecution.Listener listener) {
        if (!compiles(request)) {
            return tier.start(request, listener);
        }
        CompileStages.Built built = CompileStages.compile(request, tier::execute, tier.isolation());
        boolean ok = built.failure() == null;
        listener.compiled(built.compileStage() != null ? built.compileStage() : built.failure(), ok);
        if (!ok) {
            return ended(built.failure());
        }
        LiveExecution run = tier.start(new ExecutionRequest(built.runProgram(), request.stdin(), request.args(),
                request.limits()), listener);
        return new LiveExecution() {
            @Override
            public void write(String text) {
                run.write(text);
            }

            @Override
            public void closeStdin() {
                run.closeStdin();
            }

            @Override
            public boolean signal(int signal) {
                return run.signal(signal);
            }

            @Override
            public void cancel() {
                run.cancel();
            }

            @Override
            public Execution await() {
                return run.await().withCompile(built.compileStage());
            }
        };
    }

    /**
     * Runs {@code request}'s program once per input (as its stdin), lazily, each execution through {@code executor}
     * (which reaches this sandbox: an executor's places and retries apply to each stage): a compiled language's program
     * is compiled once, before the first run, and what it built runs with every input; when it did not build, every
     * input gets the failure.
     */
    public Iterator<Execution> eachInput(ExecutionRequest request, List<String> inputs,
            Function<ExecutionRequest, Execution> executor) {
        boolean compiles = compiles(request);
        Iterator<String> each = List.copyOf(inputs).iterator();
        return new Iterator<>() {
            private CompileStages.Built built;

            @Override
            public boolean hasNext() {
                return each.hasNext();
            }

            @Override
            public Execution next() {
                if (!each.hasNext()) {
                    throw new NoSuchElementException();
                }
                String input = each.next();
                if (!compiles) {
                    return executor.apply(new ExecutionRequest(request.program(), input, request.args(), request.limits(),
                            request.judging(), request.compileLimits()));
                }
                if (built == null) {
                    built = CompileStages.compile(request, executor::apply, tier.isolation());
                }
                return built.failure() != null ? built.failure() : CompileStages.run(built, input, executor::apply);
            }
        };
    }

    @Override
    public void close() {
        tier.close();
    }

    private static boolean compiles(ExecutionRequest request) {
        return LanguageProfile.of(request.program().language()).compiled();
    }

    /** A live execution that ended before it started: a compiled program that did not build. */
    static LiveExecution ended(Execution failure) {
        return new LiveExecution() {
            @Override
            public void write(String text) {
                // nothing reads it, as a pipe with no reader drops it
            }

            @Override
            public void closeStdin() {
            }

            @Override
            public boolean signal(int signal) {
                return false;
            }

            @Override
            public void cancel() {
            }

            @Override
            public Execution await() {
                return failure;
            }
        };
    }
}
