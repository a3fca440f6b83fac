package dev.codeagent.application.session;

/**
 * How many sessions one process keeps live: each is a kernel and a sandbox of its own for its whole life, so they are
 * counted in total and per owner, so that one caller cannot take every place from the others.
 *
 * @param max sessions live at once, over every owner; 0 turns sessions off
 * @param perOwner sessions one owner may hold at once (more than {@code max} is {@code max})
 * @param pool sessions (with the default limits) started ahead once one has been asked for, so that the next open does
 *     not wait for a kernel to start; they count against no one until handed out; 0 starts none
 */
public record SessionPlaces(int max, int perOwner, int pool) {

    /**
     * For a door with one owner in its process (the command line, the Jupyter kernel): a few places, none started
     * ahead (a kernel started ahead that nobody asks for costs a sandbox for nothing).
     */
    public static final SessionPlaces ONE_OWNER = new SessionPlaces(4, 4, 0);

    public SessionPlaces {
        if (max < 0) {
            throw new IllegalArgumentException("max sessions must not be negative (0 turns sessions off), was " + max);
        }
        if (perOwner < 0) {
            throw new IllegalArgumentException("sessions per owner must not be negative, was " + perOwner);
        }
        if (pool < 0 || pool > 16) {
            throw new IllegalArgumentException("pooled sessions must be between 0 and 16, was " + pool);
        }
    }

    /** Whether any session may be opened at all. */
    public boolean on() {
        return max > 0;
    }
}
