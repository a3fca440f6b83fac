package dev.codeagent.application.inject;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one composition opened (sandbox pools, store connections), closed newest first when it is closed: what was
 * made later may use what was made earlier. A provider that makes something closeable registers it here itself, so
 * nothing is closed that the composition did not make (an embedder's own generator or run log stays open).
 */
public final class Closer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Closer.class);

    private final List<AutoCloseable> opened = new ArrayList<>();

    /** Registers {@code made} when it is closeable, and returns it. */
    public <T> T register(T made) {
        if (made instanceof AutoCloseable closeable) {
            synchronized (opened) {
                opened.add(closeable);
            }
        }
        return made;
    }

    /** Closes everything registered, newest first; a failure to close one is logged and the rest are still closed. */
    @Override
    public void close() {
        List<AutoCloseable> toClose;
        synchronized (opened) {
            toClose = new ArrayList<>(opened);
            opened.clear();
        }
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (Exception e) {
                log.warn("closing {} failed: {}", toClose.get(i).getClass().getSimpleName(), e.toString());
            }
        }
    }
}
