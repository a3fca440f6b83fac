package dev.codeagent.generator;

import dev.codeagent.application.spi.ConfigSection;

/**
 * Recorded replies played back in order: config section {@code generator.replay}.
 *
 * @param file a JSONL file of recorded replies, or null (then the replay generator cannot be chosen)
 */
public record ReplayConfig(String file) {

    /** Where these settings live in the config. */
    public static final ConfigSection<ReplayConfig> SECTION = new ConfigSection<>("generator.replay", ReplayConfig.class, defaults())
            .withFile("file");

    public static ReplayConfig defaults() {
        return new ReplayConfig(null);
    }
}
