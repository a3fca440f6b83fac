package dev.codeagent.application.inject;

import com.google.inject.ScopeAnnotation;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * One instance per injector, made when first asked for, in every {@link com.google.inject.Stage}. Guice's own
 * {@code @Singleton} is built eagerly in {@code Stage.PRODUCTION}: that would start a docker client for a command
 * that only lists runs, and fail an executor for want of a generator's API key. Every adapter binding uses this.
 */
@ScopeAnnotation
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
public @interface LazySingleton {
}
