package dev.codeagent.jupyter;

import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.FrontDoorProvider;

/** Contributes the {@code jupyter.*} keys to the one config, wherever the kernel is on the class path. */
public final class JupyterFrontDoor implements FrontDoorProvider<JupyterConfig> {

    @Override
    public ConfigSection<JupyterConfig> config() {
        return JupyterConfig.SECTION;
    }
}
