package dev.codeagent.cli;

import dev.codeagent.application.config.Units;
import dev.codeagent.application.eval.ProblemFormat;
import dev.codeagent.domain.execution.Language;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Option converters whose failures read as one clear line ("'5x' is not a duration (use e.g. …)"). */
final class Converters {

    private Converters() {
    }

    /** {@code 500ms}, {@code 5s}, {@code 2m}; a bare number is milliseconds. */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                Duration d = Units.parseDuration(value);
                if (d.isZero()) {
                    throw new TypeConversionException("'" + value + "' is no time at all; give at least 1ms");
                }
                return d;
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code 256m}, {@code 64k}, {@code 1g}; a bare number is bytes. */
    static final class SizeConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return Units.parseBytes(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** A language id or alias ({@code python}, {@code py}, {@code js}, {@code bash}). */
    static final class LanguageConverter implements ITypeConverter<Language> {
        @Override
        public Language convert(String value) {
            return Language.fromId(value).orElseThrow(() -> new TypeConversionException(
                    "unknown language '" + value + "'; known: " + Language.knownIds()));
        }
    }

    /** {@code humaneval}, {@code mbpp}, {@code io} ({@code eval --format}). */
    static final class FormatConverter implements ITypeConverter<ProblemFormat> {
        @Override
        public ProblemFormat convert(String value) {
            try {
                return ProblemFormat.fromId(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
