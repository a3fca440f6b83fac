package dev.codeagent.store.sqlite;

import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.solving.Attempt;
import java.io.IOException;
import dev.codeagent.domain.solving.Task;

/**
 * The JSON form of the domain records kept in the database.
 *
 * <p>Only record components are written (fields, not getter-like methods such as
 * {@code Verdict.isAccepted()}), durations and instants as ISO-8601 text, which keeps nanoseconds.
 */
final class RunJson {

    private final ObjectMapper mapper = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .visibility(PropertyAccessor.GETTER, Visibility.NONE)
            .visibility(PropertyAccessor.IS_GETTER, Visibility.NONE)
            .visibility(PropertyAccessor.FIELD, Visibility.ANY)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
            // a newer version may add components; an older one reading its rows ignores them
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .addModule(isolationFeatures())
            .build();

    /**
     * Isolation features as their wire names (the same strings the JSON reports show); rows written before
     * the names were unified ({@code net-ns}, {@code non-root}...) read as the feature they meant.
     */
    private static SimpleModule isolationFeatures() {
        SimpleModule m = new SimpleModule("isolation-features");
        m.addSerializer(IsolationFeature.class, new JsonSerializer<>() {
            @Override
            public void serialize(IsolationFeature f, JsonGenerator gen, SerializerProvider p) throws IOException {
                gen.writeString(f.wireName());
            }
        });
        m.addDeserializer(IsolationFeature.class, new JsonDeserializer<>() {
            @Override
            public IsolationFeature deserialize(JsonParser parser, DeserializationContext ctx) throws IOException {
                String name = parser.getValueAsString();
                return IsolationFeature.fromWireName(name).orElseThrow(() -> new JsonParseException(parser,
                        "unknown isolation feature '" + name + "'"));
            }
        });
        return m;
    }

    String write(Object value) {
        try {
            return mapper.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            // domain records are plain data: failing here is a bug, not a state of the file
            throw new IllegalArgumentException("cannot write " + value.getClass().getSimpleName() + " as JSON: "
                    + e.getOriginalMessage(), e);
        }
    }

    Task task(String json) throws JsonProcessingException {
        return mapper.readValue(json, Task.class);
    }

    Attempt attempt(String json) throws JsonProcessingException {
        return mapper.readValue(json, Attempt.class);
    }
}
