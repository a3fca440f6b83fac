package dev.codeagent.application.spi;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A part of the configuration one adapter or front door owns: where it lives, the record it binds
 * to and its defaults. The config loader puts every discovered section into the same tree as the
 * core settings, so each key of a section is listed by {@code codeagent config --keys}, has an
 * environment variable ({@code sandbox.docker.poolSize} is {@code CODEAGENT_SANDBOX_DOCKER_POOL_SIZE}),
 * can be set with {@code --set}, and is refused when misspelled — exactly like a core key.
 *
 * <p>The record's compact constructor is where bad values are refused: throw an
 * {@link IllegalArgumentException} whose message names the full key ({@code sandbox.docker.cpus must be
 * positive, was 0}); the loader turns it into the one-line error the user sees at start.
 *
 * @param path the dotted path of the section, e.g. {@code sandbox.docker}; every key below it is the owner's
 * @param type the record the section binds to (with Jackson, durations and sizes in human units)
 * @param defaults the values when nothing is configured, so that an empty file works
 * @param envAliases extra environment variable names, each to a key relative to the section
 *     (e.g. {@code CODEAGENT_LLM_MODEL} to {@code model})
 * @param secrets keys relative to the section whose values are masked when the config is shown
 * @param files keys relative to the section whose values name a file or directory: the loader makes a relative one
 *     absolute, against the config file's directory for a value from the file, else against the caller's working
 *     directory (a background process serving the command line runs elsewhere, so "relative" must be decided here)
 * @param commands keys relative to the section whose values name a program: one with a {@code /} is a path and is
 *     made absolute as {@code files} are; a bare name is looked up on the PATH and left as it is
 * @param retired keys relative to the section that no longer exist, each to what replaced it (e.g. {@code runsOn} to
 *     {@code sandbox.kind: queue}): setting one, in a file, a variable or a flag, fails naming the replacement, where
 *     an unknown key's list of known ones would leave the user guessing (and an old variable would be ignored)
 * @param <T> the section's record type
 */
public record ConfigSection<T>(String path, Class<T> type, T defaults, Map<String, String> envAliases, Set<String> secrets,
                               Set<String> files, Set<String> commands, Map<String, String> retired) {

    /** For an adapter with nothing to configure (the in-memory run log). */
    public static final ConfigSection<Void> NONE = new ConfigSection<>("", Void.class, null, Map.of(), Set.of(), Set.of(), Set.of());

    private static final Pattern PATH = Pattern.compile("[a-z][A-Za-z0-9]*(\\.[a-z][A-Za-z0-9]*)*");

    public ConfigSection {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(type, "type");
        if (type != Void.class) {
            if (!PATH.matcher(path).matches()) {
                throw new IllegalArgumentException("a config section path is dotted camelCase names, was '" + path + "'");
            }
            if (!type.isInstance(defaults)) {
                throw new IllegalArgumentException("config section " + path + " needs defaults of type " + type.getName());
            }
        }
        envAliases = Map.copyOf(envAliases);
        secrets = Set.copyOf(secrets);
        files = Set.copyOf(files);
        commands = Set.copyOf(commands);
        retired = Map.copyOf(retired);
    }

    /** A section with every kind of key and none retired. */
    public ConfigSection(String path, Class<T> type, T defaults, Map<String, String> envAliases, Set<String> secrets,
            Set<String> files, Set<String> commands) {
        this(path, type, defaults, envAliases, secrets, files, commands, Map.of());
    }

    /** A section with aliases and secrets and no keys naming files. */
    public ConfigSection(String path, Class<T> type, T defaults, Map<String, String> envAliases, Set<String> secrets) {
        this(path, type, defaults, envAliases, secrets, Set.of(), Set.of());
    }

    /** A section with no aliases and no secrets. */
    public ConfigSection(String path, Class<T> type, T defaults) {
        this(path, type, defaults, Map.of(), Set.of(), Set.of(), Set.of());
    }

    /** This section with one more environment variable name for one of its keys. */
    public ConfigSection<T> withEnvAlias(String envName, String key) {
        Map<String, String> aliases = new LinkedHashMap<>(envAliases);
        aliases.put(envName, key);
        return new ConfigSection<>(path, type, defaults, aliases, secrets, files, commands, retired);
    }

    /** This section with one of its keys masked when the config is shown ({@code codeagent config}). */
    public ConfigSection<T> withSecret(String key) {
        Set<String> all = new TreeSet<>(secrets);
        all.add(key);
        return new ConfigSection<>(path, type, defaults, envAliases, all, files, commands, retired);
    }

    /** This section with one of its keys naming a file or directory (see {@link #files}). */
    public ConfigSection<T> withFile(String key) {
        Set<String> all = new TreeSet<>(files);
        all.add(key);
        return new ConfigSection<>(path, type, defaults, envAliases, secrets, all, commands, retired);
    }

    /** This section with one of its keys naming a program (see {@link #commands}). */
    public ConfigSection<T> withCommand(String key) {
        Set<String> all = new TreeSet<>(commands);
        all.add(key);
        return new ConfigSection<>(path, type, defaults, envAliases, secrets, files, all, retired);
    }

    /** This section with {@code key} (relative to it) refused as replaced by {@code replacement} (see {@link #retired}). */
    public ConfigSection<T> withRetired(String key, String replacement) {
        Map<String, String> all = new LinkedHashMap<>(retired);
        all.put(key, replacement);
        return new ConfigSection<>(path, type, defaults, envAliases, secrets, files, commands, all);
    }

    /** Whether this is {@link #NONE}. */
    public boolean isNone() {
        return type == Void.class;
    }
}
