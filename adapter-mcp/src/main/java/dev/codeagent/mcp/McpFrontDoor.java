package dev.codeagent.mcp;

import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.FrontDoorProvider;

/** Contributes the {@code mcp.*} keys to the one config, wherever the MCP server is on the class path. */
public final class McpFrontDoor implements FrontDoorProvider<McpConfig> {

    @Override
    public ConfigSection<McpConfig> config() {
        return McpConfig.SECTION;
    }
}
