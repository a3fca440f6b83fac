package dev.codeagent.generator;

import dev.codeagent.application.spi.ConfigSection;
import java.time.Duration;

/**
 * An OpenAI-compatible chat-completions endpoint: config section {@code generator.openai}
 * ({@code CODEAGENT_LLM_BASE_URL}, {@code CODEAGENT_LLM_MODEL}, {@code CODEAGENT_LLM_API_KEY} are short
 * names for its keys).
 *
 * @param baseUrl the API base, up to and including {@code /v1} ({@code http://localhost:11434/v1} for Ollama)
 * @param model the model name
 * @param apiKey sent as {@code Authorization: Bearer}; null sends none (local servers)
 * @param timeout how long one request may take
 * @param temperature sampling temperature
 * @param maxTokens the cap on a reply's length
 */
public record OpenAiConfig(String baseUrl, String model, String apiKey, Duration timeout, double temperature, int maxTokens) {

    /** Where these settings live in the config; the API key is never shown. */
    public static final ConfigSection<OpenAiConfig> SECTION =
            new ConfigSection<>("generator.openai", OpenAiConfig.class, defaults())
                    .withEnvAlias("CODEAGENT_LLM_BASE_URL", "baseUrl")
                    .withEnvAlias("CODEAGENT_LLM_MODEL", "model")
                    .withEnvAlias("CODEAGENT_LLM_API_KEY", "apiKey")
                    .withSecret("apiKey");

    public static OpenAiConfig defaults() {
        return new OpenAiConfig("http://localhost:11434/v1", "qwen2.5-coder:7b", null, Duration.ofSeconds(120), 0.2, 2048);
    }

    @Override
    public String toString() {
        // never print the key
        return "OpenAi[baseUrl=" + baseUrl + ", model=" + model + ", apiKey=" + (apiKey == null ? "none" : "***")
                + ", timeout=" + timeout + ", temperature=" + temperature + ", maxTokens=" + maxTokens + "]";
    }
}
