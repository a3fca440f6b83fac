package dev.codeagent.domain.solving;

/**
 * Writes code for a task: an LLM behind an API, or a replay of recorded replies.
 */
@FunctionalInterface
public interface CodeGenerator {

    /**
     * Returns the model's whole reply for the task, given the attempts so far and the feedback
     * each earned. Code is extracted from the reply by the caller (see {@link CodeExtractor}).
     *
     * @throws GeneratorException when no reply could be had; its {@link GeneratorException#kind()}
     *     says whether trying again may help
     */
    String generate(GenerationRequest request);

    /** A short name for logs and run records ({@code "openai:gpt-4o-mini"}, {@code "replay:demo.jsonl"}). */
    default String describe() {
        return getClass().getSimpleName();
    }
}
