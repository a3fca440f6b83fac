package dev.codeagent.application.spi;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * The adapters a distribution contains: whatever {@link ServiceLoader} finds on the class path. The
 * config loader reads their sections from here, the composed application their factories.
 */
public record Adapters(
        List<SandboxProvider<?>> sandboxes,
        List<GeneratorProvider<?>> generators,
        List<RunLogProvider<?>> runLogs,
        List<FrontDoorProvider<?>> frontDoors) {

    public Adapters {
        sandboxes = List.copyOf(sandboxes);
        generators = List.copyOf(generators);
        runLogs = List.copyOf(runLogs);
        frontDoors = List.copyOf(frontDoors);
        unique("sandbox", sandboxes, SandboxProvider::key);
        unique("generator", generators, GeneratorProvider::key);
        unique("store", runLogs, RunLogProvider::key);
    }

    /**
     * What the thread's context class loader can see.
     *
     * @throws IllegalStateException when two adapters of one port claim the same key (a packaging mistake)
     */
    public static Adapters discover() {
        return discover(Thread.currentThread().getContextClassLoader());
    }

    /**
     * What the given class loader can see. Looked up once per class loader: a class path does not change under a
     * running JVM, the providers are stateless, and a background process serving many commands would otherwise scan
     * every jar's service files for each of them.
     */
    public static Adapters discover(ClassLoader loader) {
        synchronized (DISCOVERED) {
            return DISCOVERED.computeIfAbsent(loader, l -> new Adapters(load(SandboxProvider.class, l),
                    load(GeneratorProvider.class, l), load(RunLogProvider.class, l), load(FrontDoorProvider.class, l)));
        }
    }

    private static final Map<ClassLoader, Adapters> DISCOVERED = new java.util.WeakHashMap<>();

    /** Every config section the adapters own, sorted by path; none for adapters without settings. */
    public List<ConfigSection<?>> sections() {
        List<ConfigSection<?>> all = new ArrayList<>();
        sandboxes.forEach(p -> all.add(p.config()));
        generators.forEach(p -> all.add(p.config()));
        runLogs.forEach(p -> all.add(p.config()));
        frontDoors.forEach(p -> all.add(p.config()));
        all.removeIf(ConfigSection::isNone);
        all.sort(Comparator.comparing(ConfigSection::path));
        return all;
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static <T> List<T> load(Class<?> service, ClassLoader loader) {
        List<T> found = new ArrayList<>();
        for (Object provider : ServiceLoader.load((Class) service, loader)) {
            // the same jar twice on a class path must not read as two adapters
            if (found.stream().noneMatch(p -> p.getClass() == provider.getClass())) {
                found.add((T) provider);
            }
        }
        found.sort(Comparator.comparing(p -> p.getClass().getName()));
        return found;
    }

    private static <T> void unique(String port, List<T> providers, Function<T, String> key) {
        Map<String, T> seen = new LinkedHashMap<>();
        for (T p : providers) {
            T before = seen.putIfAbsent(key.apply(p), p);
            if (before != null && before.getClass() != p.getClass()) {
                throw new IllegalStateException("two " + port + " adapters claim the key '" + key.apply(p) + "': "
                        + before.getClass().getName() + " and " + p.getClass().getName());
            }
        }
    }
}
