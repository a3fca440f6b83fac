package dev.codeagent.mcp;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;

/**
 * The JSON Schemas of the tools' inputs and outputs: what a client shows a model, and what the SDK checks a call
 * against before the door reads it ({@link ToolArguments} reads it again). Inputs allow no other properties, so a
 * misspelt argument is an error rather than silently ignored.
 */
final class Schemas {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Schemas() {
    }

    static final String LIMITS = """
            {"type": "object", "additionalProperties": false,
             "description": "Lower or raise the defaults within this server's caps (mcp.maxTimeout, mcp.maxMemory); the network is never granted.",
             "properties": {
               "timeoutMs": {"type": "integer", "minimum": 1, "description": "wall-clock limit in milliseconds"},
               "cpuTimeMs": {"type": "integer", "minimum": 1},
               "memoryBytes": {"type": "integer", "minimum": 16777216},
               "maxProcesses": {"type": "integer", "minimum": 1},
               "maxOutputBytes": {"type": "integer", "minimum": 1},
               "maxFileBytes": {"type": "integer", "minimum": 0}
             }}""";

    static Map<String, Object> executeCodeInput(long maxCodeBytes) {
        return parse("""
                {"type": "object", "additionalProperties": false, "required": ["language", "code"],
                 "properties": {
                   "language": {"type": "string", "description": "a language id or alias from list_languages, e.g. python, c, java"},
                   "code": {"type": "string", "maxLength": %d, "description": "the whole program's source"},
                   "stdin": {"type": "string", "description": "what the program reads on standard input"},
                   "files": {"type": "object", "additionalProperties": {"type": "string"},
                             "description": "extra files in the program's working directory: relative name to text"},
                   "limits": %s
                 }}""".formatted(maxCodeBytes, LIMITS));
    }

    /** An {@code ExecutionView}: every field, nullable where the view's is. */
    static Map<String, Object> executionOutput() {
        return parse("""
                {"type": "object", "required": ["outcome", "stdout", "stderr", "wallTimeMs", "sandbox"],
                 "properties": {
                   "outcome": {"type": "string", "description": "OK, RUNTIME_ERROR, TIME_LIMIT, MEMORY_LIMIT, COMPILATION_ERROR, POLICY_VIOLATION, ..."},
                   "exitCode": {"type": ["integer", "null"]},
                   "signal": {"type": ["integer", "null"]},
                   "stdout": {"type": "string"},
                   "stderr": {"type": "string"},
                   "stdoutTruncated": {"type": "boolean"},
                   "stderrTruncated": {"type": "boolean"},
                   "wallTimeMs": {"type": "integer"},
                   "cpuTimeMs": {"type": ["integer", "null"]},
                   "peakMemoryBytes": {"type": ["integer", "null"]},
                   "sandbox": {"type": "string"},
                   "isolation": {"type": "array", "items": {"type": "string"}},
                   "detail": {"type": ["string", "null"]},
                   "compile": {"type": ["object", "null"], "description": "a compiled language's compile stage"}
                 }}""");
    }

    static Map<String, Object> listLanguagesInput() {
        return parse("""
                {"type": "object", "additionalProperties": false, "properties": {}}""");
    }

    static Map<String, Object> listLanguagesOutput() {
        return parse("""
                {"type": "object", "required": ["languages"],
                 "properties": {"languages": {"type": "array", "items": {"type": "string"}}}}""");
    }

    static Map<String, Object> runCellInput(long maxCodeBytes) {
        return parse("""
                {"type": "object", "additionalProperties": false, "required": ["code"],
                 "properties": {
                   "code": {"type": "string", "maxLength": %d, "description": "Python source of one cell"},
                   "files": {"type": "object", "additionalProperties": {"type": "string"},
                             "description": "text files to write into the session's working directory before the cell runs"}
                 }}""".formatted(maxCodeBytes));
    }

    static Map<String, Object> readFileInput() {
        return parse("""
                {"type": "object", "additionalProperties": false, "required": ["path"],
                 "properties": {"path": {"type": "string", "maxLength": 4096,
                                         "description": "relative to the kernel's working directory, e.g. out/plot.png"}}}""");
    }

    static Map<String, Object> noArguments() {
        return listLanguagesInput();
    }

    static Map<String, Object> solveTaskInput() {
        return parse("""
                {"type": "object", "additionalProperties": false, "required": ["prompt", "language"],
                 "properties": {
                   "prompt": {"type": "string", "maxLength": %d, "description": "what the program must do"},
                   "language": {"type": "string", "description": "a language id from list_languages"},
                   "tests": {"type": "string", "description": "test code (assertions) the solution must pass"},
                   "expectedOutput": {"type": "string", "description": "the exact standard output wanted, instead of tests"},
                   "stdin": {"type": "string"},
                   "maxAttempts": {"type": "integer", "minimum": 1, "maximum": 20},
                   "limits": %s
                 }}""".formatted(McpConfig.MAX_PROMPT_CHARS, LIMITS));
    }

    private static Map<String, Object> parse(String json) {
        try {
            return JSON.readValue(json, new TypeReference<Map<String, Object>>() { });
        } catch (java.io.IOException e) {
            throw new IllegalStateException("a tool schema of this door is not JSON: " + e.getMessage(), e);
        }
    }
}
