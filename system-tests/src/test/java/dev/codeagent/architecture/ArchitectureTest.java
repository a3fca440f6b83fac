package dev.codeagent.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.onionArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.GeneralCodingRules;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

/** The shape of codeagent, enforced: a failing rule says which dependency broke it and why it matters. */
@AnalyzeClasses(packages = "dev.codeagent", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule domainDependsOnTheJdkOnly = classes()
            .that().resideInAPackage("dev.codeagent.domain..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("dev.codeagent.domain..", "java..")
            .because("the domain is the vocabulary every module shares; a framework in it would tie every adapter to that framework");

    @ArchTest
    static final ArchRule dependenciesPointInward = onionArchitecture()
            .withOptionalLayers(true)
            .domainModels("dev.codeagent.domain..")
            .applicationServices("dev.codeagent.application..")
            .adapter("process sandbox", "dev.codeagent.sandbox.process..")
            .adapter("docker sandbox", "dev.codeagent.sandbox.docker..")
            .adapter("generator", "dev.codeagent.generator..")
            .adapter("sqlite store", "dev.codeagent.store.sqlite..")
            .adapter("cli", "dev.codeagent.cli..")
            .adapter("http", "dev.codeagent.http..")
            .because("adapters are chosen by config at run time; one adapter reaching into another, or the core into an adapter,"
                    + " would make that choice a compile-time one");

    @ArchTest
    static final ArchRule noPackageCycles = slices().matching("dev.codeagent.(**)")
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
            .that().resideOutsideOfPackages("dev.codeagent.cli..", "dev.codeagent.bench..")
            .should(GeneralCodingRules.ACCESS_STANDARD_STREAMS)
            .because("the user's program output and the CLI's own output are the only things on stdout/stderr;"
                    + " everything else logs through SLF4J");

    @ArchTest
    static final ArchRule portsAreInterfacesInTheDomain = classes()
            .that().haveSimpleName("Sandbox").or().haveSimpleName("CodeGenerator").or().haveSimpleName("RunLog")
            .or().haveSimpleName("RunListener")
            .should().beInterfaces().andShould().resideInAPackage("dev.codeagent.domain..")
            .because("ports are domain nouns the adapters implement");

    @ArchTest
    static final ArchRule adaptersAreNamedForTheirTechnology = classes()
            .that().resideInAnyPackage("dev.codeagent.sandbox..", "dev.codeagent.generator..", "dev.codeagent.store..")
            .and().implement(dev.codeagent.domain.execution.Sandbox.class)
            .or().implement(dev.codeagent.domain.solving.CodeGenerator.class)
            .or().implement(dev.codeagent.domain.solving.RunLog.class)
            .should().haveSimpleNameEndingWith("Sandbox").orShould().haveSimpleNameEndingWith("Generator")
            .orShould().haveSimpleNameEndingWith("RunLog")
            .allowEmptyShould(true)
            .because("an adapter says its technology and the port it serves: DockerSandbox, SqliteRunLog");

    /** Guards the guard: the rules above must see the classes of every module, or they prove nothing. */
    @Test
    void importsEveryModule() {
        JavaClasses all = new com.tngtech.archunit.core.importer.ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.codeagent");
        for (String pkg : new String[] {"dev.codeagent.domain", "dev.codeagent.application", "dev.codeagent.sandbox.process",
                "dev.codeagent.sandbox.docker", "dev.codeagent.generator", "dev.codeagent.store.sqlite", "dev.codeagent.cli",
                "dev.codeagent.http"}) {
            assertThat(all.stream().anyMatch(c -> c.getPackageName().startsWith(pkg))).as("classes of " + pkg).isTrue();
        }
    }
}
