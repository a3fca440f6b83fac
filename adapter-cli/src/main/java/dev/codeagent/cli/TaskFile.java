package dev.codeagent.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.codeagent.application.command.FieldErrors;
import dev.codeagent.application.command.TaskRequest;

/**
 * A task as a JSON file ({@code codeagent solve --task-file}): the fields of {@link TaskRequest}, the
 * same as the body of {@code POST /v1/runs}. Every field is optional here (flags may supply or override
 * them); unknown fields are refused so that a typo is not silently ignored. Limits are whole numbers
 * (milliseconds, bytes) or strings with a unit ({@code "memoryBytes": "256m"}, {@code "timeoutMs": "5s"}).
 */
final class TaskFile {

    private TaskFile() {
    }

    /** @throws UsageException naming the file and what is wrong in it */
    static TaskRequest parse(String name, String text) {
        Object root;
        try {
            root = Json.MAPPER.readValue(text, Object.class);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr();
            throw new UsageException(name + ": not valid JSON" + where + ": " + e.getOriginalMessage());
        }
        FieldErrors errors = new FieldErrors();
        TaskRequest request = TaskRequest.fromTree(root, errors);
        if (request == null) {
            throw new UsageException(name + ": " + errors.firstLine());
        }
        return request;
    }
}
