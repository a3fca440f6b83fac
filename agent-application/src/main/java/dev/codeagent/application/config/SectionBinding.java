package dev.codeagent.application.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.spi.ConfigSection;
import java.time.Duration;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * One config section's keys bound to its record, with Jackson's binding errors turned into one line that names the
 * full dotted key, the bad value and what is allowed. Split from {@link ConfigLoader}, which builds the tree this
 * binds.
 */
final class SectionBinding {

    private SectionBinding() {
    }

    static Object bind(ObjectMapper json, ConfigSection<?> section, ObjectNode node, String origin) {
        try {
            return json.treeToValue(node, section.type());
        } catch (UnrecognizedPropertyException e) {
            throw new ConfigException("unknown config key '" + key(section, e) + "' in " + origin + "; known keys here: "
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
                throw new ConfigException(key(section, e) + ": " + e.getOriginalMessage());
            }
            throw new ConfigException(key(section, e) + ": '" + e.getValue() + "' is not a valid "
                    + simpleType(e.getTargetType()) + allowed);
        } catch (MismatchedInputException e) {
            throw new ConfigException(key(section, e) + ": expected " + simpleType(e.getTargetType()) + " (" + e.getOriginalMessage() + ")");
        } catch (JsonMappingException e) {
            throw new ConfigException("invalid config in " + origin + " at " + key(section, e) + ": " + e.getOriginalMessage());
        } catch (JsonProcessingException e) {
            throw new ConfigException("invalid config in " + origin + ": " + e.getOriginalMessage());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("invalid config in " + origin + ": " + e.getMessage());
        }
    }

    /** The full dotted key of a binding error inside a section. */
    private static String key(ConfigSection<?> section, JsonMappingException e) {
        String inside = path(e);
        return inside.isEmpty() ? section.path() : inside.startsWith("[") ? section.path() + inside : section.path() + "." + inside;
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
