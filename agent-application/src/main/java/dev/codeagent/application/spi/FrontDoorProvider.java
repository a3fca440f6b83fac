package dev.codeagent.application.spi;

/**
 * A front door (the HTTP server, …) that has settings of its own but fills no port: it contributes
 * its config section so that the one config file, {@code CODEAGENT_*} variables and
 * {@code codeagent config --keys} cover it. Found with {@link java.util.ServiceLoader}: list the class
 * in {@code META-INF/services/dev.codeagent.application.spi.FrontDoorProvider}. The front door reads
 * its section with {@code config.section(...)}.
 *
 * @param <C> the type of the front door's config section
 */
public interface FrontDoorProvider<C> {

    /** The front door's config section, e.g. {@code http}. */
    ConfigSection<C> config();
}
