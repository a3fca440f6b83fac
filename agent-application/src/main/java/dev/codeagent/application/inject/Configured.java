package dev.codeagent.application.inject;

import jakarta.inject.Qualifier;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The adapter the config chose ({@code sandbox.kind}, {@code generator.kind}, {@code store.kind}): the default of the
 * unqualified binding, which an embedder may replace through {@link com.google.inject.multibindings.OptionalBinder}.
 */
@Qualifier
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
public @interface Configured {
}
