package dev.codeagent.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.Set;

/**
 * Which module a class belongs to, read from its package alone, so that a new adapter package is
 * covered by every rule the day it appears, without anyone editing the rules.
 *
 * <p>Under the root ({@code dev.codeagent}): {@code domain} and {@code application} are the core;
 * {@code dist}, {@code bench} and {@code example} are composition roots, which may know every adapter;
 * {@code kit.<family>} (and {@code kit.<family>.<name>}) is a kit: code the adapters of one port family share
 * ({@code kit.store.jdbc}: what the SQL stores have in common), which only that family may use;
 * everything else is an adapter. An adapter is the first package below the root
 * ({@code dev.codeagent.http}, {@code dev.codeagent.generator}), or below a port family, the first
 * two ({@code dev.codeagent.sandbox.process}, {@code dev.codeagent.store.sqlite}): the family groups
 * rival technologies for one port, which must not lean on each other.
 *
 * @param root the package everything lies under
 */
record Modules(String root) {

    static final Set<String> CORE = Set.of("domain", "application");
    static final Set<String> COMPOSITION_ROOTS = Set.of("dist", "bench", "example");
    static final Set<String> PORT_FAMILIES = Set.of("sandbox", "store");
    static final String KIT = "kit";

    /** {@code sandbox.process}, {@code http}, {@code domain}; null for a class outside the root. */
    String moduleOf(String packageName) {
        if (!packageName.equals(root) && !packageName.startsWith(root + ".")) {
            return null;
        }
        String[] parts = packageName.substring(Math.min(packageName.length(), root.length() + 1)).split("\\.");
        if (parts[0].isEmpty()) {
            return "";
        }
        if (parts[0].equals(KIT)) {
            return String.join(".", java.util.Arrays.copyOf(parts, Math.min(parts.length, 3)));
        }
        return PORT_FAMILIES.contains(parts[0]) && parts.length > 1 ? parts[0] + "." + parts[1] : parts[0];
    }

    /** The port family a kit serves ({@code store} for {@code kit.store.jdbc}); null when the package is no kit's. */
    String kitFamily(String packageName) {
        String m = moduleOf(packageName);
        if (m == null || !m.startsWith(KIT + ".")) {
            return null;
        }
        return m.split("\\.")[1];
    }

    /** The port family an adapter belongs to ({@code store} for {@code store.sqlite}); null for one in none. */
    String adapterFamily(String packageName) {
        String m = isAdapter(packageName) ? moduleOf(packageName) : null;
        return m != null && m.contains(".") ? m.substring(0, m.indexOf('.')) : null;
    }

    boolean isAdapter(String packageName) {
        String m = moduleOf(packageName);
        if (m == null || m.isEmpty()) {
            return false;
        }
        String top = m.contains(".") ? m.substring(0, m.indexOf('.')) : m;
        return !CORE.contains(top) && !COMPOSITION_ROOTS.contains(top) && !top.equals(KIT);
    }

    String[] corePackages() {
        return CORE.stream().map(c -> root + "." + c + "..").sorted().toArray(String[]::new);
    }

    /** Classes of the core: the domain and the application. */
    DescribedPredicate<JavaClass> core() {
        return DescribedPredicate.describe("the core (" + root + ".domain.., " + root + ".application..)",
                c -> {
                    String m = moduleOf(c.getPackageName());
                    return m != null && CORE.contains(m.split("\\.")[0]);
                });
    }

    /** Classes of any kit. */
    DescribedPredicate<JavaClass> kits() {
        return DescribedPredicate.describe("kits (" + root + ".kit..)", c -> kitFamily(c.getPackageName()) != null);
    }

    /** Classes of any adapter, known today or added tomorrow. */
    DescribedPredicate<JavaClass> adapters() {
        return DescribedPredicate.describe("adapters (any package under " + root + " but the core and the composition roots)",
                c -> isAdapter(c.getPackageName()));
    }

    /** One slice per adapter; the core and the composition roots are in none. */
    SliceAssignment adapterSlices() {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass c) {
                return isAdapter(c.getPackageName()) ? SliceIdentifier.of(moduleOf(c.getPackageName())) : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "adapters under " + root + " (one per package below it, or below a port family " + PORT_FAMILIES + ")";
            }
        };
    }
}
