package dev.codeagent.http;

import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.FrontDoorProvider;

/** Contributes the {@code http.*} keys to the one config, wherever this front door is on the class path. */
public final class HttpFrontDoor implements FrontDoorProvider<HttpConfig> {

    @Override
    public ConfigSection<HttpConfig> config() {
        return HttpConfig.SECTION;
    }
}
