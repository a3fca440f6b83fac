package dev.codeagent.application.spi;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The adapters a distribution contains: whatever {@link ServiceLoader} finds on the class path. The config loader
 * reads their sections from here (before any injector exists), the composition root installs their modules.
 *
 * @param modules the adapter modules (sandbox tiers, generators, stores), each registering under its keys
 * @param frontDoors the front doors that own a config section but fill no port
 */
public record Adapters(List<AdapterModule> modules, List<FrontDoorProvider<?>> frontDoors) {

    public Adapters {
        modules = List.copyOf(modules);
        frontDoors = List.copyOf(frontDoors);
    }

    /** What the thread's context class loader can see. */
    public static Adapters discover() {
        return discover(Thread.currentThread().getContextClassLoader());
    }

    /**
     * What the given class loader can see. Looked up once per class loader: a class path does not change under a
     * running JVM, the modules hold no state of their own (a composition's state is in its injector), and a
     * background process serving many commands would otherwise scan every jar's service files for each of them.
     */
    public static Adapters discover(ClassLoader loader) {
        synchronized (DISCOVERED) {
            return DISCOVERED.computeIfAbsent(loader, l -> new Adapters(load(AdapterModule.class, l), load(FrontDoorProvider.class, l)));
        }
    }

    private static final Map<ClassLoader, Adapters> DISCOVERED = new java.util.WeakHashMap<>();

    /** Every config section the adapters own, sorted by path; none for adapters without settings. */
    public List<ConfigSection<?>> sections() {
        List<ConfigSection<?>> all = new ArrayList<>();
        modules.forEach(m -> all.addAll(m.sections()));
        frontDoors.forEach(p -> all.add(p.config()));
        all.removeIf(ConfigSection::isNone);
        all.sort(Comparator.comparing(ConfigSection::path));
        // a front door composed by a module of its own names its section in both roles: the same section, listed once
        return all.stream().distinct().toList();
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
}
