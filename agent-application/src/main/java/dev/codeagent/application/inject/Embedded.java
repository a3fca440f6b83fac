package dev.codeagent.application.inject;

import jakarta.inject.Qualifier;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the map of adapters an embedding program added through {@link dev.codeagent.application.CodeAgent.Builder}
 * (as {@code SandboxProvider}s …): kept apart from the discovered ones so that one of the same key wins over them.
 */
@Qualifier
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
public @interface Embedded {
}
