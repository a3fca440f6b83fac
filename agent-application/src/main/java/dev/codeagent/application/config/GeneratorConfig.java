package dev.codeagent.application.config;

import java.time.Duration;

/**
 * Which code generator writes code.
 *
 * @param kind the generator adapter's key ({@code openai}, {@code replay})
 * @param openai an OpenAI-compatible chat-completions endpoint
 * @param replay recorded replies played back in order
 */
public record GeneratorConfig(String kind, OpenAi openai, Replay replay) {

    /**
     * @param baseUrl the API base, up to and including {@code /v1} ({@code http://localhost:11434/v1} for Ollama)
     * @param model the model name
     * @param apiKey sent as {@code Authorization: Bearer}; null sends none (local servers)
     * @param timeout how long one request may take
     * @param temperature sampling temperature
     * @param maxTokens the cap on a reply's length
     */
    public record OpenAi(String baseUrl, String model, String apiKey, Duration timeout, double temperature, int maxTokens) {
        @Override
        public String toString() {
            // never print the key
            return "OpenAi[baseUrl=" + baseUrl + ", model=" + model + ", apiKey=" + (apiKey == null ? "none" : "***")
                    + ", timeout=" + timeout + ", temperature=" + temperature + ", maxTokens=" + maxTokens + "]";
        }
    }

    /** @param file a JSONL file of recorded replies, or null */
    public record Replay(String file) {
    }

    public static GeneratorConfig defaults() {
        return new GeneratorConfig("openai",
                new OpenAi("http://localhost:11434/v1", "qwen2.5-coder:7b", null, Duration.ofSeconds(120), 0.2, 2048),
                new Replay(null));
    }
}
