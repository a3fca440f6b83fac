package dev.codeagent.application.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Reads the {@link CodeAgentConfig}: defaults, then a YAML or JSON file, then environment
 * variables, then explicit overrides (command-line flags), each later one winning.
 *
 * <p>Every key has an environment variable: {@code CODEAGENT_} followed by its dotted path in
 * upper snake case ({@code sandbox.docker.poolSize} is {@code CODEAGENT_SANDBOX_DOCKER_POOL_SIZE}).
 * A few short aliases exist: {@code CODEAGENT_SANDBOX}, {@code CODEAGENT_LLM_BASE_URL},
 * {@code CODEAGENT_LLM_MODEL}, {@code CODEAGENT_LLM_API_KEY}. Overrides use dotted paths.
 * Lists are given as comma-separated text in environment variables and overrides.
 *
 * <p>Every mistake is a {@link ConfigException} naming the key, the bad value and what is allowed.
 */
public final class ConfigLoader {

    /** The environment variable naming a config file. */
    public static final String CONFIG_FILE_ENV = "CODEAGENT_CONFIG";

    private static final Map<String, String> ENV_ALIASES = Map.of(
            "CODEAGENT_SANDBOX", "sandbox.kind",
            "CODEAGENT_LLM_BASE_URL", "generator.openai.baseUrl",
            "CODEAGENT_LLM_MODEL", "generator.openai.model",
            "CODEAGENT_LLM_API_KEY", "generator.openai.apiKey",
            "CODEAGENT_GENERATOR", "generator.kind",
            "CODEAGENT_STORE", "store.kind");

    private final ObjectMapper json = mapper(JsonMapper.builder().build());
    private final ObjectMapper yaml = mapper(new ObjectMapper(new YAMLFactory()));

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
     * Loads the configuration.
     *
     * @param file a config file, or empty to use {@code $CODEAGENT_CONFIG} or, when that is unset,
     *     {@code ~/.codeagent/config.yaml} if it exists
     * @param env the environment (pass {@code System.getenv()})
     * @param overrides dotted key to value, from flags; applied last
     * @throws ConfigException naming what is wrong
     */
    public CodeAgentConfig load(Optional<Path> file, Map<String, String> env, Map<String, String> overrides) {
        ObjectNode tree = json.valueToTree(CodeAgentConfig.defaults());
        Map<String, JsonNode> leaves = new LinkedHashMap<>();
        collectLeaves("", tree, leaves);

        Optional<Path> chosen = file.isPresent() ? file : defaultFile(env);
        if (chosen.isPresent()) {
            merge(tree, readFile(chosen.get(), file.isPresent() || env.containsKey(CONFIG_FILE_ENV)), "");
        }
        Map<String, String> fromEnv = new LinkedHashMap<>();
        Map<String, String> envNames = new LinkedHashMap<>();
        for (String path : leaves.keySet()) {
            envNames.put(envName(path), path);
        }
        ENV_ALIASES.forEach(envNames::put);
        env.forEach((name, value) -> {
            String path = envNames.get(name);
            if (path != null) {
                fromEnv.put(path, value);
            }
        });
        fromEnv.forEach((path, value) -> set(tree, path, value, leaves, "environment variable " + reverse(envNames, path)));
        overrides.forEach((path, value) -> set(tree, path, value, leaves, "override"));
        return bind(tree, chosen.map(Path::toString).orElse("defaults"));
    }

    /** Loads from the process environment with no file override and no flags. */
    public CodeAgentConfig loadFromEnvironment() {
        return load(Optional.empty(), System.getenv(), Map.of());
    }

    /** Reads a config from YAML or JSON text with defaults for the rest, for embedding and tests. */
    public CodeAgentConfig parse(String text) {
        ObjectNode tree = json.valueToTree(CodeAgentConfig.defaults());
        try {
            JsonNode node = yaml.readTree(text);
            if (node != null && !node.isNull() && !node.isMissingNode()) {
                if (!node.isObject()) {
                    throw new ConfigException("config must be a mapping of keys to values");
                }
                merge(tree, node, "");
            }
        } catch (JsonProcessingException e) {
            throw new ConfigException("config is not valid YAML or JSON: " + e.getOriginalMessage());
        }
        return bind(tree, "text");
    }

    /** The config as a JSON tree with the API key masked, for {@code codeagent config} and logs. */
    public JsonNode describe(CodeAgentConfig config) {
        ObjectNode tree = json.valueToTree(config);
        JsonNode openai = tree.path("generator").path("openai");
        if (openai.isObject() && openai.hasNonNull("apiKey")) {
            ((ObjectNode) openai).put("apiKey", "***");
        }
        return tree;
    }

    /** Every config key's dotted path, sorted. */
    public List<String> keys() {
        Map<String, JsonNode> leaves = new LinkedHashMap<>();
        collectLeaves("", json.valueToTree(CodeAgentConfig.defaults()), leaves);
        return new ArrayList<>(new TreeSet<>(leaves.keySet()));
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

    /** Merges {@code from} into {@code into}, failing on keys the defaults do not have. */
    private static void merge(ObjectNode into, JsonNode from, String prefix) {
        Iterator<Map.Entry<String, JsonNode>> fields = from.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            String path = prefix.isEmpty() ? f.getKey() : prefix + "." + f.getKey();
            JsonNode existing = into.get(f.getKey());
            if (existing == null) {
                throw unknownKey(path, into);
            }
            if (existing.isObject() && f.getValue().isObject()) {
                merge((ObjectNode) existing, f.getValue(), path);
            } else if (existing.isObject() && !f.getValue().isNull()) {
                throw new ConfigException(path + ": expected a section with keys " + keysOf(existing) + ", got a value");
            } else {
                into.set(f.getKey(), f.getValue());
            }
        }
    }

    private static ConfigException unknownKey(String path, JsonNode parent) {
        return new ConfigException("unknown config key '" + path + "'; known keys here: " + keysOf(parent));
    }

    private static String keysOf(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return String.join(", ", names);
    }

    private static void collectLeaves(String prefix, JsonNode node, Map<String, JsonNode> out) {
        Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            String path = prefix.isEmpty() ? f.getKey() : prefix + "." + f.getKey();
            if (f.getValue().isObject()) {
                collectLeaves(path, f.getValue(), out);
            } else {
                out.put(path, f.getValue());
            }
        }
    }

    private static void set(ObjectNode tree, String path, String value, Map<String, JsonNode> leaves, String source) {
        JsonNode defaultValue = leaves.get(path);
        if (defaultValue == null) {
            List<String> near = leaves.keySet().stream()
                    .filter(k -> k.startsWith(path.contains(".") ? path.substring(0, path.lastIndexOf('.') + 1) : ""))
                    .collect(Collectors.toList());
            throw new ConfigException("unknown config key '" + path + "' (from " + source + "); known keys: "
                    + String.join(", ", near.isEmpty() ? leaves.keySet() : near));
        }
        String[] parts = path.split("\\.");
        ObjectNode node = tree;
        for (int i = 0; i < parts.length - 1; i++) {
            node = (ObjectNode) node.get(parts[i]);
        }
        String last = parts[parts.length - 1];
        if (defaultValue.isArray()) {
            var array = node.putArray(last);
            for (String item : value.split(",")) {
                if (!item.isBlank()) {
                    array.add(item.trim());
                }
            }
        } else if (value.isEmpty() && !defaultValue.isTextual()) {
            node.putNull(last);
        } else {
            // Jackson coerces text to numbers and booleans, and reports what it cannot coerce
            node.set(last, TextNode.valueOf(value));
        }
    }

    private CodeAgentConfig bind(ObjectNode tree, String origin) {
        try {
            return json.treeToValue(tree, CodeAgentConfig.class);
        } catch (UnrecognizedPropertyException e) {
            throw new ConfigException("unknown config key '" + path(e) + "' in " + origin + "; known keys here: "
                    + e.getKnownPropertyIds().stream().map(Object::toString).sorted().collect(Collectors.joining(", ")));
        } catch (ValueInstantiationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new ConfigException("invalid config in " + origin + ": " + cause.getMessage());
        } catch (InvalidFormatException e) {
            String allowed = "";
            if (e.getTargetType() != null && e.getTargetType().isEnum()) {
                allowed = "; allowed: " + java.util.Arrays.stream(e.getTargetType().getEnumConstants())
                        .map(c -> enumName((Enum<?>) c)).collect(Collectors.joining(", "));
            } else if (e.getTargetType() == Duration.class || e.getTargetType() == ByteSize.class) {
                throw new ConfigException(path(e) + ": " + e.getOriginalMessage());
            }
            throw new ConfigException(path(e) + ": '" + e.getValue() + "' is not a valid "
                    + simpleType(e.getTargetType()) + allowed);
        } catch (MismatchedInputException e) {
            throw new ConfigException(path(e) + ": expected " + simpleType(e.getTargetType()) + " (" + e.getOriginalMessage() + ")");
        } catch (JsonMappingException e) {
            throw new ConfigException("invalid config in " + origin + " at " + path(e) + ": " + e.getOriginalMessage());
        } catch (JsonProcessingException e) {
            throw new ConfigException("invalid config in " + origin + ": " + e.getOriginalMessage());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("invalid config in " + origin + ": " + e.getMessage());
        }
    }

    private static String enumName(Enum<?> c) {
        try {
            var annotation = c.getDeclaringClass().getField(c.name()).getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
            return annotation != null ? annotation.value() : c.name().toLowerCase(Locale.ROOT);
        } catch (NoSuchFieldException e) {
            return c.name().toLowerCase(Locale.ROOT);
        }
    }

    private static String simpleType(Class<?> type) {
        if (type == null) {
            return "value";
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            return "whole number";
        }
        if (type == double.class || type == Double.class) {
            return "number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        return type.getSimpleName();
    }

    private static String path(JsonMappingException e) {
        return e.getPath().stream().map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining(".")).replace(".[", "[");
    }
}
