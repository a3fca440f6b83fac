package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codeagent.application.view.AttemptView;
import dev.codeagent.application.view.EvaluationReportView;
import dev.codeagent.application.view.ExecutionView;
import dev.codeagent.application.view.RunSummaryView;
import dev.codeagent.application.view.RunView;
import dev.codeagent.application.view.TaskView;
import dev.codeagent.application.view.VerdictView;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI description names exactly the fields of the application's views, each one required (a view writes
 * every field, null or not): a field added to a view and not described, or described and not sent, fails here.
 */
class ViewSchemasTest {

    private static JsonNode schemas;

    @BeforeAll
    static void read() throws IOException {
        try (InputStream in = ApiDescriptionRoutes.class.getResourceAsStream(ApiDescriptionRoutes.RESOURCE)) {
            schemas = Views.MAPPER.readTree(in).get("components").get("schemas");
        }
    }

    /** Schema name → the record it describes, and the fields only this door adds. */
    private static final Map<String, Map.Entry<Class<? extends Record>, List<String>>> DESCRIBED = Map.ofEntries(
            Map.entry("RunSummary", Map.entry(RunSummaryView.class, List.of("links"))),
            Map.entry("Run", Map.entry(RunView.class, List.of("links"))),
            Map.entry("Task", Map.entry(TaskView.class, List.of())),
            Map.entry("TaskLimits", Map.entry(TaskView.LimitsView.class, List.of())),
            Map.entry("Attempt", Map.entry(AttemptView.class, List.of())),
            Map.entry("Placement", Map.entry(AttemptView.PlacementView.class, List.of())),
            Map.entry("Verdict", Map.entry(VerdictView.class, List.of())),
            Map.entry("ErrorReport", Map.entry(VerdictView.ErrorView.class, List.of())),
            Map.entry("Frame", Map.entry(VerdictView.FrameView.class, List.of())),
            Map.entry("OutputDifference", Map.entry(VerdictView.DifferenceView.class, List.of())),
            Map.entry("Execution", Map.entry(ExecutionView.class, List.of())),
            Map.entry("CompileStage", Map.entry(ExecutionView.StageView.class, List.of())),
            Map.entry("EvaluationProblem", Map.entry(EvaluationReportView.ProblemView.class, List.of())),
            Map.entry("EvaluationSample", Map.entry(EvaluationReportView.SampleView.class, List.of())));

    @Test
    void everySchemaOfAViewNamesExactlyItsFieldsAndRequiresThemAll() {
        describesEveryView(schemas);
    }

    @Test
    void aFieldMissingFromTheDescriptionFails() {
        JsonNode doctored = schemas.deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) doctored.at("/Attempt/properties")).remove("placement");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> describesEveryView(doctored))
                .isInstanceOf(AssertionError.class).hasMessageContaining("Attempt").hasMessageContaining("placement");
    }

    private static void describesEveryView(JsonNode in) {
        DESCRIBED.forEach((name, described) -> {
            Set<String> fields = new LinkedHashSet<>(components(described.getKey()));
            fields.addAll(described.getValue());
            assertThat(properties(in, name, "properties")).as("the properties of %s", name).hasSameElementsAs(fields);
            assertThat(properties(in, name, "required")).as("the required fields of %s", name).hasSameElementsAs(fields);
        });
    }

    @Test
    void theVerdictKindsAreTheDomainsIncludingCancelled() {
        List<String> kinds = new ArrayList<>();
        schemas.at("/Verdict/properties/kind/enum").forEach(k -> kinds.add(k.asText()));
        assertThat(kinds).containsExactlyElementsOf(Arrays.stream(dev.codeagent.domain.solving.Verdict.Kind.values())
                .map(Enum::name).toList()).contains("CANCELLED");
    }

    /** A schema's property names (or required names), following {@code allOf} into the schemas it extends. */
    private static Set<String> properties(JsonNode in, String name, String what) {
        Set<String> names = new LinkedHashSet<>();
        collect(in, in.get(name), what, names);
        return names;
    }

    private static void collect(JsonNode in, JsonNode schema, String what, Set<String> into) {
        if (schema.has("$ref")) {
            collect(in, in.get(schema.get("$ref").asText().replace("#/components/schemas/", "")), what, into);
            return;
        }
        schema.path("allOf").forEach(part -> collect(in, part, what, into));
        if (what.equals("properties")) {
            schema.path("properties").fieldNames().forEachRemaining(into::add);
        } else {
            schema.path("required").forEach(n -> into.add(n.asText()));
        }
    }

    private static List<String> components(Class<? extends Record> type) {
        return Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).toList();
    }
}
