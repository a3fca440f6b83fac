package dev.codeagent.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.lang.CompositeArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.library.GeneralCodingRules;
import dev.codeagent.architecture.fixture.application.CountWidgets;
import dev.codeagent.architecture.fixture.application.LeakyUseCase;
import dev.codeagent.architecture.fixture.application.InjectorInAUseCase;
import dev.codeagent.architecture.fixture.domain.Widgets;
import dev.codeagent.architecture.fixture.unlisted.UnlistedSandboxModule;
import dev.codeagent.architecture.fixture.console.ConsoleWidgets;
import dev.codeagent.architecture.fixture.grpc.GrpcFrontDoor;
import dev.codeagent.architecture.fixture.kit.sandbox.wire.WidgetWire;
import dev.codeagent.architecture.fixture.kit.store.rows.LeakyRows;
import dev.codeagent.architecture.fixture.kit.store.rows.WidgetRows;
import dev.codeagent.architecture.fixture.sandbox.firecracker.FirecrackerWidgets;
import dev.codeagent.architecture.fixture.sandbox.gvisor.GvisorWidgets;
import dev.codeagent.architecture.fixture.store.postgres.PostgresWidgets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shape of codeagent, enforced: a failing rule says which dependency broke it and why it matters.
 * Modules are derived from package names ({@link Modules}), never listed, so a new adapter package is
 * judged by every rule from its first class; the fixture tests below prove that on packages no rule names.
 */
@AnalyzeClasses(packages = ArchitectureTest.ROOT, importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    static final String ROOT = "dev.codeagent";
    private static final String FIXTURE_ROOT = "dev.codeagent.architecture.fixture";

    /** Modules of this repository that are not on this module's test classpath, and why that is right. */
    private static final Set<String> NOT_ANALYSED = Set.of(
            "benchmarks",          // measures the product from outside; uses the CLI's stdout on purpose
            "example-embedding");  // shows a user's code embedding the application; not part of the product

    @ArchTest
    static final ArchRule domainDependsOnTheJdkOnly = domainDependsOnTheJdkOnly(ROOT);

    @ArchTest
    static final ArchRule dependenciesPointInward = dependenciesPointInward(ROOT);

    @ArchTest
    static final ArchRule guiceOnlyAtTheRoot = Composition.guiceOnlyAtTheRoot(ROOT);

    @ArchTest
    static final ArchRule domainKnowsNoInjection = Composition.domainKnowsNoInjection(ROOT);

    @ArchTest
    static final ArchRule adapterModulesAreListed = Composition.adapterModulesAreListed();

    @ArchTest
    static final ArchRule doorsUseTheRootsPublicFace = Composition.doorsUseTheRootsPublicFace(ROOT);

    @ArchTest
    static final ArchRule noPackageCycles = slices().matching(ROOT + ".(**)")
            .should().beFreeOfCycles()
            .because("a cycle makes two packages one unit that can only be understood and changed together");

    @ArchTest
    static final ArchRule noFieldInjection = GeneralCodingRules.NO_CLASSES_SHOULD_USE_FIELD_INJECTION
            .because("constructor injection keeps every dependency visible and every object complete once built");

    @ArchTest
    static final ArchRule noJavaUtilLogging = GeneralCodingRules.NO_CLASSES_SHOULD_USE_JAVA_UTIL_LOGGING
            .because("all logging goes through SLF4J so the front doors can route and silence it in one place");

    @ArchTest
    static final ArchRule noGenericExceptions = GeneralCodingRules.NO_CLASSES_SHOULD_THROW_GENERIC_EXCEPTIONS
            .because("callers decide what to do by the exception's type; a bare RuntimeException tells them nothing");

    @ArchTest
    static final ArchRule standardStreamsOnlyInTheCli = noClasses()
            .that().resideOutsideOfPackages(ROOT + ".cli..", ROOT + ".bench..")
            // `codeagent jupyter install` answers its user like the CLI does; the kernel it starts logs
            .and().doNotHaveFullyQualifiedName(ROOT + ".jupyter.JupyterMain")
            // `codeagent mcp` speaks the protocol on stdin/stdout (handed to the SDK's transport) and answers a mistyped
            // command line on stderr; everything else it logs
            .and().doNotHaveFullyQualifiedName(ROOT + ".mcp.McpMain")
            // nor does `codeagent serve` before it serves: its usage and start-up errors answer the user who typed it
            .and().doNotHaveFullyQualifiedName(ROOT + ".http.HttpServerMain")
            .should(GeneralCodingRules.ACCESS_STANDARD_STREAMS)
            .because("the user's program output and the CLI's own output are the only things on stdout/stderr;"
                    + " everything else logs through SLF4J");

    @ArchTest
    static final ArchRule portsAreInterfacesInTheDomain = classes()
            .that().haveSimpleName("Sandbox").or().haveSimpleName("CodeGenerator").or().haveSimpleName("RunLog")
            .or().haveSimpleName("RunListener")
            .should().beInterfaces().andShould().resideInAPackage(ROOT + ".domain..")
            .because("ports are domain nouns the adapters implement");

    @ArchTest
    static final ArchRule adaptersAreNamedForTheirTechnology = classes()
            .that(new Modules(ROOT).adapters())
            .and(implementAPort())
            .should().haveSimpleNameEndingWith("Sandbox").orShould().haveSimpleNameEndingWith("Generator")
            .orShould().haveSimpleNameEndingWith("RunLog")
            .allowEmptyShould(true)
            .because("an adapter says its technology and the port it serves: DockerSandbox, SqliteRunLog");

    static ArchRule domainDependsOnTheJdkOnly(String root) {
        return classes()
                .that().resideInAPackage(root + ".domain..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(root + ".domain..", "java..")
                .because("the domain is the vocabulary every module shares; a framework in it would tie every adapter to that framework");
    }

    /**
     * The onion, with adapters found by package: the core knows no adapter and no kit, no adapter knows another, a kit
     * knows the core only, and a kit is used by its own port family alone.
     */
    static ArchRule dependenciesPointInward(String root) {
        Modules modules = new Modules(root);
        ArchRule domainKnowsNoApplication = noClasses().that().resideInAPackage(root + ".domain..")
                .should().dependOnClassesThat().resideInAPackage(root + ".application..");
        ArchRule coreKnowsNoAdapter = noClasses().that(modules.core())
                .should().dependOnClassesThat(modules.adapters().or(modules.kits()));
        ArchRule adaptersKnowNoOtherAdapter = slices().assignedFrom(modules.adapterSlices())
                .should().notDependOnEachOther();
        ArchRule kitsKnowOnlyTheCore = noClasses().that(modules.kits())
                .should().dependOnClassesThat(modules.adapters());
        ArchRule kitsServeTheirFamily = classes().that(modules.adapters().or(modules.kits()))
                .should(useKitsOfTheirOwnFamilyOnly(modules)).allowEmptyShould(true);
        return CompositeArchRule.of(domainKnowsNoApplication).and(coreKnowsNoAdapter).and(adaptersKnowNoOtherAdapter)
                .and(kitsKnowOnlyTheCore).and(kitsServeTheirFamily)
                .because("adapters are chosen by config at run time; one adapter reaching into another, or the core into an adapter,"
                        + " would make that choice a compile-time one");
    }

    /** A class that uses a kit is an adapter of the kit's family, or a kit of that family. */
    private static ArchCondition<JavaClass> useKitsOfTheirOwnFamilyOnly(Modules modules) {
        return new ArchCondition<>("use kits of their own port family only") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                String own = modules.kitFamily(c.getPackageName());
                if (own == null) {
                    own = modules.adapterFamily(c.getPackageName());
                }
                for (Dependency d : c.getDirectDependenciesFromSelf()) {
                    String kit = modules.kitFamily(d.getTargetClass().getPackageName());
                    if (kit != null && !kit.equals(own)) {
                        events.add(SimpleConditionEvent.violated(d, c.getName() + " uses " + d.getTargetClass().getName()
                                + ", a kit of the " + kit + " family, from outside that family"));
                    }
                }
            }
        };
    }

    private static DescribedPredicate<JavaClass> implementAPort() {
        return DescribedPredicate.describe("implement a port",
                c -> c.isAssignableTo(dev.codeagent.domain.execution.Sandbox.class)
                        || c.isAssignableTo(dev.codeagent.domain.solving.CodeGenerator.class)
                        || c.isAssignableTo(dev.codeagent.domain.solving.RunLog.class));
    }

    // ---- guarding the guard

    @Test
    void derivesEachAdapterFromItsPackage() {
        Modules modules = new Modules(ROOT);
        assertThat(modules.moduleOf("dev.codeagent.sandbox.process")).isEqualTo("sandbox.process");
        assertThat(modules.moduleOf("dev.codeagent.sandbox.gvisor.internal")).isEqualTo("sandbox.gvisor");
        assertThat(modules.moduleOf("dev.codeagent.store.postgres")).isEqualTo("store.postgres");
        assertThat(modules.moduleOf("dev.codeagent.grpc.v1")).isEqualTo("grpc");
        assertThat(modules.moduleOf("dev.codeagent.application.spi")).isEqualTo("application");
        assertThat(modules.moduleOf("org.example")).isNull();
        assertThat(modules.isAdapter("dev.codeagent.kubernetes")).isTrue();
        assertThat(modules.isAdapter("dev.codeagent.domain.execution")).isFalse();
        assertThat(modules.isAdapter("dev.codeagent.dist")).isFalse();
        assertThat(modules.moduleOf("dev.codeagent.kit.store.jdbc.rows")).isEqualTo("kit.store.jdbc");
        assertThat(modules.kitFamily("dev.codeagent.kit.store.jdbc")).isEqualTo("store");
        assertThat(modules.isAdapter("dev.codeagent.kit.sandbox")).isFalse();
        assertThat(modules.kitFamily("dev.codeagent.kit.sandbox")).isEqualTo("sandbox");
        assertThat(modules.adapterFamily("dev.codeagent.store.sqlite")).isEqualTo("store");
    }

    /** New adapter packages, named by no rule, that break the onion are caught, and each breach is named. */
    @Test
    void catchesBreachesInAdapterPackagesNoRuleNames() {
        JavaClasses fixture = new ClassFileImporter().importPackages(FIXTURE_ROOT);
        assertThat(fixture.contain(FirecrackerWidgets.class)).isTrue();

        EvaluationResult result = dependenciesPointInward(FIXTURE_ROOT).evaluate(fixture);

        assertThat(result.hasViolation()).isTrue();
        String report = String.join("\n", result.getFailureReport().getDetails());
        assertThat(report).contains(FirecrackerWidgets.class.getName()).contains(PostgresWidgets.class.getName());
        assertThat(report).contains(LeakyUseCase.class.getName()).contains(GrpcFrontDoor.class.getName());
        // a kit used outside its family, and a kit leaning on an adapter
        assertThat(report).contains(FirecrackerWidgets.class.getName() + " uses " + WidgetRows.class.getName())
                .contains(LeakyRows.class.getName())
                // the sandbox kit outside the sandbox family: a front door borrowing the tiers' wire
                .contains(ConsoleWidgets.class.getName() + " uses " + WidgetWire.class.getName()
                        + ", a kit of the sandbox family, from outside that family");
        assertThat(report).doesNotContain(GvisorWidgets.class.getName());
        assertThat(result.getFailureReport().toString()).contains("adapters are chosen by config at run time");
    }

    /** ... and the same rules let the fixture's lawful dependencies through, so the catch above is not a blanket. */
    @Test
    void passesAdapterPackagesThatDependInward() {
        JavaClasses lawful = new ClassFileImporter()
                .importClasses(Widgets.class, CountWidgets.class, GrpcFrontDoor.class, PostgresWidgets.class, WidgetRows.class,
                        GvisorWidgets.class, WidgetWire.class);

        assertThat(dependenciesPointInward(FIXTURE_ROOT).evaluate(lawful).hasViolation()).isFalse();
        assertThat(domainDependsOnTheJdkOnly(FIXTURE_ROOT).evaluate(lawful).hasViolation()).isFalse();
    }

    /** A module its author forgot to list is named; every real one is listed (the rule above passes on them). */
    @Test
    void anAdapterModuleMissingFromItsServicesFileIsNamed() {
        JavaClasses fixture = new ClassFileImporter().importClasses(UnlistedSandboxModule.class);

        EvaluationResult result = Composition.adapterModulesAreListed().evaluate(fixture);

        assertThat(result.hasViolation()).isTrue();
        assertThat(String.join("\n", result.getFailureReport().getDetails()))
                .contains(UnlistedSandboxModule.class.getName() + " is not listed");
        assertThat(Composition.listedModules()).contains("dev.codeagent.sandbox.process.ProcessSandboxModule",
                "dev.codeagent.sandbox.docker.DockerSandboxModule", "dev.codeagent.generator.GeneratorModule",
                "dev.codeagent.store.sqlite.SqliteStoreModule", "dev.codeagent.store.postgres.PostgresStoreModule",
                "dev.codeagent.application.work.QueueSandboxModule");
    }

    /** A door that takes the sandbox out of a use case, or uses the root's internals, is named. */
    @Test
    void aDoorReachingIntoTheRootIsCaught() {
        JavaClasses fixture = new ClassFileImporter().importClasses(
                dev.codeagent.architecture.fixture.grpc.PeekingFrontDoor.class);

        EvaluationResult result = Composition.doorsUseTheRootsPublicFace(FIXTURE_ROOT).evaluate(fixture);

        assertThat(result.hasViolation()).isTrue();
        String report = String.join("\n", result.getFailureReport().getDetails());
        assertThat(report).contains("ExecuteCode.sandbox()").contains("CoreModule");
    }

    /** Guice outside a module, the inject package or an entry point is caught. */
    @Test
    void guiceInAUseCaseIsCaught() {
        JavaClasses fixture = new ClassFileImporter().importClasses(InjectorInAUseCase.class);

        EvaluationResult result = Composition.guiceOnlyAtTheRoot(FIXTURE_ROOT).evaluate(fixture);

        assertThat(result.hasViolation()).isTrue();
        assertThat(String.join("\n", result.getFailureReport().getDetails())).contains(InjectorInAUseCase.class.getName());
    }

    /**
     * The module diagram in docs/architecture.md is the code's: a dependency between two of its components that it does
     * not draw fails here (dependencies on classes outside every component, e.g. the JDK, are not the diagram's).
     */
    @Test
    void theCodeHasOnlyTheDiagramsArrows(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path page = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent().resolve("docs/architecture.md");
        java.util.regex.Matcher block = java.util.regex.Pattern.compile("```plantuml\\n(.*?)```", java.util.regex.Pattern.DOTALL)
                .matcher(Files.readString(page));
        assertThat(block.find()).as("a ```plantuml block in " + page).isTrue();
        Path diagram = Files.writeString(dir.resolve("modules.puml"), block.group(1));
        JavaClasses main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(ROOT);

        ArchRule rule = classes().should(com.tngtech.archunit.library.plantuml.rules.PlantUmlArchCondition.adhereToPlantUmlDiagram(
                diagram.toUri().toURL(),
                com.tngtech.archunit.library.plantuml.rules.PlantUmlArchCondition.Configuration.consideringOnlyDependenciesInDiagram()));

        assertThat(rule.evaluate(main).getFailureReport().getDetails()).as("dependencies the diagram does not draw").isEmpty();
    }

    /**
     * The rules above must see the classes of every module, or they prove nothing: each package of
     * main code in this repository (found on disk, not listed here) must be among the imported classes.
     */
    @Test
    void importsEveryModule() throws IOException {
        JavaClasses all = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(ROOT);
        Set<String> imported = all.stream().map(JavaClass::getPackageName).collect(Collectors.toSet());
        Path repo = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();
        Set<String> missing = new TreeSet<>();
        int modules = 0;
        try (Stream<Path> dirs = Files.list(repo)) {
            for (Path module : dirs.filter(d -> Files.isRegularFile(d.resolve("pom.xml"))).toList()) {
                Path sources = module.resolve("src/main/java");
                if (!Files.isDirectory(sources) || NOT_ANALYSED.contains(module.getFileName().toString())) {
                    continue;
                }
                modules++;
                for (String pkg : javaPackages(sources)) {
                    if (!imported.contains(pkg)) {
                        missing.add(pkg + " (module " + module.getFileName() + ")");
                    }
                }
            }
        }
        assertThat(modules).as("modules with main code found under " + repo).isGreaterThanOrEqualTo(8);
        assertThat(missing).as("packages no rule sees: add their module as a test dependency of system-tests,"
                + " or to NOT_ANALYSED with the reason").isEmpty();
    }

    private static Set<String> javaPackages(Path sources) throws IOException {
        try (Stream<Path> files = Files.walk(sources)) {
            return files.filter(f -> f.toString().endsWith(".java") && !f.getFileName().toString().equals("package-info.java"))
                    .map(f -> sources.relativize(f.getParent()).toString().replace('/', '.'))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
