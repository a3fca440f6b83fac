package dev.codeagent.application.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.codeagent.application.spi.Adapters;
import dev.codeagent.application.spi.ConfigSection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Reads the {@link CodeAgentConfig}: defaults, then a YAML or JSON file, then environment
 * variables, then explicit overrides (command-line flags), each later one winning.
 *
 * <p>The keys are those of the application's own sections ({@code sandbox}, {@code limits},
 * {@code policy}, {@code generator}, {@code solve}, {@code store}) and of every adapter's
 * {@link ConfigSection} found on the class path ({@code sandbox.docker}, {@code http}, …), all in one
 * tree: a key of an adapter is listed, set and checked exactly like a core key.
 *
 * <p>Every key has an environment variable: {@code CODEAGENT_} followed by its dotted path in
 * upper snake case ({@code sandbox.docker.poolSize} is {@code CODEAGENT_SANDBOX_DOCKER_POOL_SIZE}).
 * A few short aliases exist: {@code CODEAGENT_SANDBOX}, {@code CODEAGENT_GENERATOR},
 * {@code CODEAGENT_STORE}, and those a section declares ({@code CODEAGENT_LLM_MODEL}, …).
 * Overrides use dotted paths. Lists are given as comma-separated text in environment variables and overrides.
 *
 * <p>Every mistake is a {@link ConfigException} naming the key, the bad value and what is allowed.
 */
public final class ConfigLoader {

    /** The environment variable naming a config file. */
    public static final String CONFIG_FILE_ENV = "CODEAGENT_CONFIG";

    /** How many sections are the application's own (the first of {@code parts}). */
    private static final int CORE_PARTS = 6;

    private final ObjectMapper json = mapper(JsonMapper.builder().build());
    private final ObjectMapper yaml = mapper(new ObjectMapper(new YAMLFactory()));

    /** The application's sections, then the adapters' sorted by path (so a parent comes before its children). */
    private final List<Part> parts = new ArrayList<>();
    /** Every key with its default value, as a tree. */
    private final ObjectNode defaults;
    /** The dotted keys whose values name a file ({@code true}) or a program ({@code false}): see {@link ConfigSection#files}. */
    private final Map<String, Boolean> pathKeys = new HashMap<>();
    /** Keys that were removed, by full dotted path, each to what replaced it ({@link ConfigSection#retired}). */
    private final Map<String, String> retired = new HashMap<>();

    /** A section and how to read its value back out of a config. */
    private record Part(ConfigSection<?> section, Function<CodeAgentConfig, Object> read) {
    }

    /** A loader for the application's keys and those of every adapter on the class path. */
    public ConfigLoader() {
        this(Adapters.discover().sections());
    }

    private static final java.util.Map<ClassLoader, ConfigLoader> SHARED = new java.util.WeakHashMap<>();

    /**
     * The loader of {@link #ConfigLoader()}, made once per class loader and shared: loading never changes it (every
     * load starts from a copy of the defaults), and making one (its mappers, the adapters' sections) costs more than
     * a load — which a background process serving many commands would pay for each.
     */
    public static ConfigLoader shared() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        synchronized (SHARED) {
            return SHARED.computeIfAbsent(loader, l -> new ConfigLoader());
        }
    }

    /**
     * A loader for the application's keys and those of the given adapter sections.
     *
     * @throws IllegalStateException when two sections claim one path or a section's path is a key already
     */
    public ConfigLoader(Collection<? extends ConfigSection<?>> adapterSections) {
        parts.add(new Part(new ConfigSection<>("sandbox", SandboxConfig.class, SandboxConfig.defaults())
                .withEnvAlias("CODEAGENT_SANDBOX", "kind"), CodeAgentConfig::sandbox));
        parts.add(new Part(new ConfigSection<>("limits", LimitsConfig.class, LimitsConfig.defaults()), CodeAgentConfig::limits));
        parts.add(new Part(new ConfigSection<>("policy", PolicyConfig.class, PolicyConfig.defaults()), CodeAgentConfig::policy));
        parts.add(new Part(new ConfigSection<>("generator", GeneratorConfig.class, GeneratorConfig.defaults())
                .withEnvAlias("CODEAGENT_GENERATOR", "kind"), CodeAgentConfig::generator));
        parts.add(new Part(new ConfigSection<>("solve", SolveConfig.class, SolveConfig.defaults()), CodeAgentConfig::solve));
        parts.add(new Part(new ConfigSection<>("store", StoreConfig.class, StoreConfig.defaults())
                .withEnvAlias("CODEAGENT_STORE", "kind"), CodeAgentConfig::store));
        // the application's own settings that are not part of the record: kept in its sections map like an adapter's
        java.util.stream.Stream.concat(java.util.stream.Stream.of(ResilienceConfig.SECTION), adapterSections.stream())
                .filter(s -> !s.isNone())
                .sorted(java.util.Comparator.comparing(ConfigSection::path))
                .forEach(s -> parts.add(new Part(s, c -> c.section(s))));
        this.defaults = JsonNodeFactory.instance.objectNode();
        for (Part p : parts) {
            ConfigTree.place(defaults, p.section().path(), json.valueToTree(p.section().defaults()));
        }
        Map<String, JsonNode> leaves = ConfigTree.leaves(defaults);
        for (Part p : parts) {
            p.section().files().forEach(k -> pathKeys.put(p.section().path() + "." + k, true));
            p.section().commands().forEach(k -> pathKeys.put(p.section().path() + "." + k, false));
            p.section().retired().forEach((k, replacement) -> retired.put(p.section().path() + "." + k, replacement));
        }
        for (Part p : parts) {
            p.section().envAliases().forEach((env, key) -> {
                if (!leaves.containsKey(p.section().path() + "." + key)) {
                    throw new IllegalStateException("config section " + p.section().path() + ": alias " + env + " names no key " + key);
                }
            });
        }
    }

    /** An object mapper that reads and writes config values (durations and sizes in human units). */
    public static ObjectMapper mapper(ObjectMapper base) {
        SimpleModule units = new SimpleModule("codeagent-units");
        units.addSerializer(Duration.class, new JsonSerializer<>() {
            @Override
            public void serialize(Duration value, JsonGenerator gen, SerializerProvider p) throws IOException {
                gen.writeString(Units.formatDuration(value));
            }
        });
        units.addDeserializer(Duration.class, new JsonDeserializer<>() {
            @Override
            public Duration deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
                try {
                    return Units.parseDuration(p.getValueAsString());
                } catch (IllegalArgumentException e) {
                    throw InvalidFormatException.from(p, e.getMessage(), p.getValueAsString(), Duration.class);
                }
            }
        });
        units.addSerializer(ByteSize.class, new JsonSerializer<>() {
            @Override
            public void serialize(ByteSize value, JsonGenerator gen, SerializerProvider p) throws IOException {
                gen.writeString(value.toString());
            }
        });
        units.addDeserializer(ByteSize.class, new JsonDeserializer<>() {
            @Override
            public ByteSize deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
                try {
                    return ByteSize.parse(p.getValueAsString());
                } catch (IllegalArgumentException e) {
                    throw InvalidFormatException.from(p, e.getMessage(), p.getValueAsString(), ByteSize.class);
                }
            }
        });
        return base.registerModule(units)
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true)
                .configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, true)
                .configure(MapperFeature.ALLOW_COERCION_OF_SCALARS, true);
    }

    /**
     * Loads the configuration with relative paths meaning what they mean in this process's working directory.
     *
     * @see #load(Optional, Map, Map, Path)
     */
    public CodeAgentConfig load(Optional<Path> file, Map<String, String> env, Map<String, String> overrides) {
        return load(file, env, overrides, Path.of("").toAbsolutePath());
    }

    /**
     * Loads the configuration.
     *
     * <p>Every relative path a user gives is made absolute here, once, for every door: the config file's own name and
     * the values of keys that name files ({@link ConfigSection#files}) from an environment variable or an override
     * against {@code base}; those inside the config file against the file's directory (as a Makefile's or a
     * docker-compose file's do). A value starting with {@code ~} is left to the adapter, which reads it as the home.
     *
     * @param file a config file, or empty to use {@code $CODEAGENT_CONFIG} or, when that is unset,
     *     {@code ~/.codeagent/config.yaml} if it exists
     * @param env the environment (pass {@code System.getenv()})
     * @param overrides dotted key to value, from flags; applied last
     * @param base the directory relative paths are relative to: the caller's working directory (a background
     *     process serving callers in many directories passes each caller's own)
     * @throws ConfigException naming what is wrong
     */
    public CodeAgentConfig load(Optional<Path> file, Map<String, String> env, Map<String, String> overrides, Path base) {
        return load(file, env, overrides, base, Map.of());
    }

    /**
     * The defaults of a door that serves others ({@code serve}, {@code worker}, the Jupyter kernel): strict isolation,
     * so a host that cannot give every guarantee refuses to start instead of running other people's code with less.
     * The command line keeps best-effort and warns on every run that lacks one.
     */
    public static final Map<String, String> SERVICE_DEFAULTS = Map.of("sandbox.isolation", "strict");

    /** Loads the configuration with a door's own defaults, relative paths against this process's directory. */
    public CodeAgentConfig load(Optional<Path> file, Map<String, String> env, Map<String, String> overrides,
            Map<String, String> doorDefaults) {
        return load(file, env, overrides, Path.of("").toAbsolutePath(), doorDefaults);
    }

    /**
     * Loads the configuration with a door's own defaults.
     *
     * @param base as in {@link #load(Optional, Map, Map, Path)}
     * @param doorDefaults dotted key to value: the door's defaults, in place of the built-in ones; the config file,
     *     the environment and {@code overrides} still win over them
     * @throws ConfigException naming what is wrong
     */
    public CodeAgentConfig load(Optional<Path> file, Map<String, String> env, Map<String, String> overrides, Path base,
            Map<String, String> doorDefaults) {
        Path dir = base.toAbsolutePath();
        ObjectNode tree = defaults.deepCopy();
        Map<String, JsonNode> leaves = ConfigTree.leaves(tree);
        doorDefaults.forEach((path, value) -> ConfigTree.set(tree, path, value, leaves, "default"));
        overrides.keySet().stream().filter(retired::containsKey).findFirst().ifPresent(path -> {
            throw ConfigTree.replaced(path, retired.get(path));
        });

        Optional<Path> chosen = (file.isPresent() ? file : defaultFile(env)).map(f -> dir.resolve(f).normalize());
        if (chosen.isPresent()) {
            JsonNode fromFile = readFile(chosen.get(), file.isPresent() || env.containsKey(CONFIG_FILE_ENV));
            Path fileDir = chosen.get().getParent() != null ? chosen.get().getParent() : dir;
            absolutePaths(fromFile, "", fileDir);
            ConfigTree.merge(tree, fromFile, "", retired);
        }
        Map<String, String> fromEnv = new LinkedHashMap<>();
        Map<String, String> envNames = new LinkedHashMap<>();
        for (String path : leaves.keySet()) {
            envNames.put(envName(path), path);
        }
        for (Part p : parts) {
            p.section().envAliases().forEach((alias, key) -> envNames.put(alias, p.section().path() + "." + key));
        }
        retired.keySet().forEach(path -> {
            if (env.containsKey(envName(path))) {
                // an old variable would otherwise be ignored, and the process would silently work another way
                throw ConfigTree.replaced(path + " (environment variable " + envName(path) + ")", retired.get(path));
            }
        });
        env.forEach((name, value) -> {
            String path = envNames.get(name);
            if (path != null) {
                fromEnv.put(path, value);
            }
        });
        fromEnv.forEach((path, value) -> ConfigTree.set(tree, path, absolute(path, value, dir), leaves,
                "environment variable " + reverse(envNames, path)));
        overrides.forEach((path, value) -> ConfigTree.set(tree, path, absolute(path, value, dir), leaves, "override"));
        return bind(tree, chosen.map(Path::toString).orElse("defaults"));
    }

    /** The values of path keys in a config file's tree, made absolute against {@code dir} in place. */
    private void absolutePaths(JsonNode node, String prefix, Path dir) {
        if (!(node instanceof ObjectNode object)) {
            return;
        }
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        for (String name : names) {
            String path = prefix.isEmpty() ? name : prefix + "." + name;
            JsonNode value = object.get(name);
            if (value.isObject()) {
                absolutePaths(value, path, dir);
            } else if (value.isTextual()) {
                object.put(name, absolute(path, value.asText(), dir));
            }
        }
    }

    /** {@code value} made absolute against {@code dir} when {@code key} names a file (or a program given as a path). */
    private String absolute(String key, String value, Path dir) {
        Boolean isFile = pathKeys.get(key);
        if (isFile == null || value == null || value.isBlank() || value.startsWith("~")
                || !isFile && !value.contains("/")) {
            return value;
        }
        try {
            Path p = Path.of(value);
            return p.isAbsolute() ? value : dir.resolve(p).normalize().toString();
        } catch (java.nio.file.InvalidPathException e) {
            // the adapter's own check says what is wrong with it
            return value;
        }
    }

    /** Loads from the process environment with no file override and no flags. */
    public CodeAgentConfig loadFromEnvironment() {
        return load(Optional.empty(), System.getenv(), Map.of());
    }

    /** Reads a config from YAML or JSON text with defaults for the rest, for embedding and tests. */
    public CodeAgentConfig parse(String text) {
        ObjectNode tree = defaults.deepCopy();
        try {
            JsonNode node = yaml.readTree(text);
            if (node != null && !node.isNull() && !node.isMissingNode()) {
                if (!node.isObject()) {
                    throw new ConfigException("config must be a mapping of keys to values");
                }
                ConfigTree.merge(tree, node, "", retired);
            }
        } catch (JsonProcessingException e) {
            throw new ConfigException("config is not valid YAML or JSON: " + e.getOriginalMessage());
        }
        return bind(tree, "text");
    }

    /** The config as a JSON tree with secrets (the API key) masked, for {@code codeagent config} and logs. */
    public JsonNode describe(CodeAgentConfig config) {
        ObjectNode tree = JsonNodeFactory.instance.objectNode();
        for (Part p : parts) {
            JsonNode node = json.valueToTree(p.read().apply(config));
            for (String secret : p.section().secrets()) {
                if (node.hasNonNull(secret)) {
                    ((ObjectNode) node).put(secret, "***");
                }
            }
            ConfigTree.place(tree, p.section().path(), node);
        }
        return tree;
    }

    /** The dotted paths of the keys that hold secrets (an API key, a password): masked when shown, never written out. */
    public java.util.Set<String> secretKeys() {
        java.util.Set<String> keys = new TreeSet<>();
        for (Part p : parts) {
            for (String secret : p.section().secrets()) {
                keys.add(p.section().path().isEmpty() ? secret : p.section().path() + "." + secret);
            }
        }
        return keys;
    }

    /** Every config key's default as it would be written in a config file ({@code 10s}, {@code batch}), "" when unset. */
    public Map<String, String> defaultsByKey() {
        Map<String, String> out = new java.util.TreeMap<>();
        ConfigTree.leaves(defaults).forEach((path, node) -> out.put(path, node.isNull() ? ""
                : node.isArray() ? String.join(",", () -> java.util.stream.StreamSupport.stream(node.spliterator(), false)
                        .map(n -> (CharSequence) n.asText()).iterator())
                : node.asText()));
        return out;
    }

    /** Every config key's dotted path, sorted. */
    public List<String> keys() {
        return new ArrayList<>(new TreeSet<>(ConfigTree.leaves(defaults).keySet()));
    }

    /** {@code sandbox.docker.poolSize} → {@code CODEAGENT_SANDBOX_DOCKER_POOL_SIZE}. */
    public static String envName(String path) {
        return "CODEAGENT_" + path.replace('.', '_').replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
    }

    private static String reverse(Map<String, String> envNames, String path) {
        return envNames.entrySet().stream().filter(e -> e.getValue().equals(path)).map(Map.Entry::getKey)
                .findFirst().orElse(path);
    }

    private static Optional<Path> defaultFile(Map<String, String> env) {
        String named = env.get(CONFIG_FILE_ENV);
        if (named != null && !named.isBlank()) {
            return Optional.of(Path.of(named));
        }
        String home = System.getProperty("user.home");
        if (home == null) {
            return Optional.empty();
        }
        Path p = Path.of(home, ".codeagent", "config.yaml");
        return Files.isRegularFile(p) ? Optional.of(p) : Optional.empty();
    }

    private JsonNode readFile(Path path, boolean mustExist) {
        try {
            String text = Files.readString(path);
            JsonNode node = (path.toString().endsWith(".json") ? json : yaml).readTree(text);
            if (node == null || node.isNull() || node.isMissingNode()) {
                return JsonNodeFactory.instance.objectNode();
            }
            if (!node.isObject()) {
                throw new ConfigException(path + ": the config must be a mapping of keys to values");
            }
            return node;
        } catch (NoSuchFileException e) {
            if (!mustExist) {
                return JsonNodeFactory.instance.objectNode();
            }
            throw new ConfigException("config file " + path + " does not exist");
        } catch (JsonProcessingException e) {
            throw new ConfigException(path + ": not valid " + (path.toString().endsWith(".json") ? "JSON" : "YAML")
                    + " at line " + e.getLocation().getLineNr() + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + path + ": " + e.getMessage(), e);
        }
    }

    private CodeAgentConfig bind(ObjectNode tree, String origin) {
        Map<String, Object> values = new HashMap<>();
        Map<String, Object> adapters = new HashMap<>();
        for (Part p : parts) {
            String path = p.section().path();
            JsonNode node = tree;
            for (String name : path.split("\\.")) {
                node = node.path(name);
            }
            if (!node.isObject()) {
                JsonNode expected = defaults;
                for (String name : path.split("\\.")) {
                    expected = expected.path(name);
                }
                throw new ConfigException(path + ": expected a section with keys " + ConfigTree.keysOf(expected) + ", got "
                        + (node.isMissingNode() || node.isNull() ? "nothing" : "a value"));
            }
            // the section's own keys only: the sections below it are bound by their owners
            ObjectNode own = ((ObjectNode) node).deepCopy();
            for (Part q : parts) {
                if (q.section().path().startsWith(path + ".")) {
                    own.remove(q.section().path().substring(path.length() + 1).split("\\.")[0]);
                }
            }
            Object value = SectionBinding.bind(json, p.section(), own, origin);
            values.put(path, value);
            if (parts.indexOf(p) >= CORE_PARTS && !value.equals(p.section().defaults())) {
                adapters.put(path, value);
            }
        }
        return new CodeAgentConfig((SandboxConfig) values.get("sandbox"), (LimitsConfig) values.get("limits"),
                (PolicyConfig) values.get("policy"), (GeneratorConfig) values.get("generator"), (SolveConfig) values.get("solve"),
                (StoreConfig) values.get("store"), adapters);
    }
}
