package dev.codeagent.store.sqlite;

import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.codeagent.domain.solving.Attempt;
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
            .build();

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
