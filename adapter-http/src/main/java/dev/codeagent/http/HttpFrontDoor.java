package dev.codeagent.http;

import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.FrontDoorProvider;

/**
 * Names the {@code http} section among the front doors a distribution ships ({@code Adapters.frontDoors()}); the door
 * itself is composed by {@link HttpModule}, which declares the same section (listed once).
 */
public final class HttpFrontDoor implements FrontDoorProvider<HttpConfig> {

    @Override
    public ConfigSection<HttpConfig> config() {
        return HttpConfig.SECTION;
    }
}
