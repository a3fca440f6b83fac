package dev.codeagent.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.codeagent.application.spi.AdapterModule;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.Set;
import java.util.TreeSet;

/** The rules of composition: where Guice may appear, and that every adapter module can be found. */
final class Composition {

    static final String SERVICES_FILE = "META-INF/services/" + AdapterModule.class.getName();

    private Composition() {
    }

    /** Guice is the composition root's business: adapter modules, the application's inject package, entry points. */
    static ArchRule guiceOnlyAtTheRoot(String root) {
        return noClasses()
                .that().resideOutsideOfPackage(root + ".application.inject..")
                .and().haveSimpleNameNotEndingWith("Module")
                .and(DescribedPredicate.not(entryPoints()))
                .should().dependOnClassesThat().resideInAPackage("com.google.inject..")
                .because("composition happens in one place; a use case or a door that reaches for the injector hides its"
                        + " dependencies and can no longer be built by hand in a test or an embedding program");
    }

    /** The domain names no injection framework, not even the JSR-330 annotations. */
    static ArchRule domainKnowsNoInjection(String root) {
        return noClasses().that().resideInAPackage(root + ".domain..")
                .should().dependOnClassesThat().resideInAnyPackage("com.google.inject..", "jakarta.inject..", "javax.inject..")
                .because("the domain is the vocabulary every module shares; how objects are wired is not part of it");
    }

    /** An adapter module ServiceLoader cannot find is an adapter no config can choose. */
    /**
     * Doors ask the composition for what they need; they never take a port out of a use case ({@code
     * ExecuteCode.sandbox()}) nor use the root's own workings (its modules' internals, the choice, the scopes' classes):
     * from the {@code inject} package an adapter sees only what it needs to be composed and to compose at an entry point.
     */
    static ArchRule doorsUseTheRootsPublicFace(String root) {
        Modules modules = new Modules(root);
        Set<String> publicFace = Set.of("Composition", "Closer", "LazySingleton", "CodeAgentModules", "EmbeddingModule",
                "EmbeddingModule$Embedding");
        ArchRule noPortThroughAUseCase = noClasses().that(modules.adapters())
                .should().callMethod(dev.codeagent.application.execute.ExecuteCode.class, "sandbox");
        ArchRule noRootInternals = noClasses().that(modules.adapters())
                .should().dependOnClassesThat(DescribedPredicate.describe("the root's internals (" + ROOT_INJECT + ", but "
                        + publicFace + ")", c -> c.getPackageName().equals(ROOT_INJECT) && !publicFace.contains(c.getSimpleName())
                        && !publicFace.contains(c.getName().substring(ROOT_INJECT.length() + 1))));
        return com.tngtech.archunit.lang.CompositeArchRule.of(noPortThroughAUseCase).and(noRootInternals)
                .because("a door maps and renders: what it needs comes from the composition, so that the root can change"
                        + " how it builds things without a door noticing");
    }

    private static final String ROOT_INJECT = "dev.codeagent.application.inject";

    static ArchRule adapterModulesAreListed() {
        return classes().that().areAssignableTo(AdapterModule.class)
                .and().doNotHaveModifier(JavaModifier.ABSTRACT)
                .should(beListedIn(listedModules()))
                .because("adapters are found with ServiceLoader; a module missing from " + SERVICES_FILE
                        + " is never installed and its key is reported as unknown");
    }

    private static DescribedPredicate<JavaClass> entryPoints() {
        return DescribedPredicate.describe("are entry points (have a main method)",
                c -> c.getMethods().stream().anyMatch(m -> m.getName().equals("main")
                        && m.getModifiers().contains(JavaModifier.STATIC)));
    }

    private static ArchCondition<JavaClass> beListedIn(Set<String> listed) {
        return new ArchCondition<>("be listed in " + SERVICES_FILE) {
            @Override
            public void check(JavaClass module, ConditionEvents events) {
                boolean ok = listed.contains(module.getName());
                events.add(new SimpleConditionEvent(module, ok, module.getName()
                        + (ok ? " is listed" : " is not listed in its module's " + SERVICES_FILE)));
            }
        };
    }

    /** Every class named in a services file for adapter modules on the class path. */
    static Set<String> listedModules() {
        Set<String> names = new TreeSet<>();
        try {
            Enumeration<URL> files = Composition.class.getClassLoader().getResources(SERVICES_FILE);
            while (files.hasMoreElements()) {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(files.nextElement().openStream(), StandardCharsets.UTF_8))) {
                    in.lines().map(l -> l.replaceFirst("#.*", "").trim()).filter(l -> !l.isEmpty()).forEach(names::add);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return names;
    }
}
