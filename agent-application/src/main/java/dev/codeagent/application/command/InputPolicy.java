package dev.codeagent.application.command;

import java.util.EnumMap;
import java.util.Map;

/**
 * What one front door lets its users ask for: the most each limit may be, whether a request may turn
 * the network on, and how long a prompt may be. The rules themselves are the same on every door; only
 * these numbers differ (the command line trusts its user with the network, HTTP never does).
 *
 * @param caps the most a limit may be on this door, below the sandbox's own maximum
 * @param networkGrantable whether a request may ask for network access; when not, no task or execution
 *     from this door gets it, whatever the configured default
 * @param maxPromptChars the longest prompt accepted
 */
public record InputPolicy(Map<LimitField, Cap> caps, boolean networkGrantable, int maxPromptChars) {

    /**
     * A door's maximum for one limit.
     *
     * @param max in milliseconds, bytes or a count
     * @param key the config key that sets it, named in the error; null when it is fixed
     */
    public record Cap(long max, String key) {
    }

    public InputPolicy {
        EnumMap<LimitField, Cap> copy = new EnumMap<>(LimitField.class);
        copy.putAll(caps);
        caps = Map.copyOf(copy);
        if (maxPromptChars < 1) {
            throw new IllegalArgumentException("maxPromptChars must be at least 1, was " + maxPromptChars);
        }
    }

    /**
     * The sandbox's own ranges and the default time ceiling ({@code limits.maxWallTime}, an hour), network grantable:
     * for a user on their own machine. A door that reads the configured ceiling caps with it instead
     * ({@link #cap}); the key is left unnamed here since this policy does not know the config.
     */
    public static InputPolicy local() {
        long hour = dev.codeagent.application.config.LimitsConfig.DEFAULT_MAX_WALL.toMillis();
        return new InputPolicy(Map.of(LimitField.TIMEOUT, new Cap(hour, null), LimitField.CPU_TIME, new Cap(hour, null)),
                true, Integer.MAX_VALUE);
    }

    /** This policy with {@code field} capped at {@code max}; {@code key} is the config key that sets it, or null. */
    public InputPolicy cap(LimitField field, long max, String key) {
        Map<LimitField, Cap> more = new EnumMap<>(LimitField.class);
        more.putAll(caps);
        more.put(field, new Cap(max, key));
        return new InputPolicy(more, networkGrantable, maxPromptChars);
    }

    /** This policy with the network never granted. */
    public InputPolicy withoutNetwork() {
        return new InputPolicy(caps, false, maxPromptChars);
    }

    public InputPolicy withMaxPromptChars(int chars) {
        return new InputPolicy(caps, networkGrantable, chars);
    }

    /** The most {@code field} may be here: the door's cap or the sandbox's maximum, whichever is lower. */
    public long max(LimitField field) {
        Cap cap = caps.get(field);
        return cap == null ? field.max() : Math.min(cap.max(), field.max());
    }

    /** The config key behind this door's maximum for {@code field}, or null. */
    String key(LimitField field) {
        Cap cap = caps.get(field);
        return cap == null || cap.max() > field.max() ? null : cap.key();
    }
}
