package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Stage;
import com.google.inject.multibindings.OptionalBinder;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.inject.Closer;
import dev.codeagent.application.inject.CodeAgentModules;
import dev.codeagent.application.spi.Adapters;
import dev.codeagent.application.work.RunWorker;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.store.postgres.PostgresStoreConfig;
import dev.codeagent.store.postgres.TestCluster;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The HTTP door is composed by the root like any other consumer: a program that composes with Guice itself installs
 * the codeagent modules (the door's among them, found on the class path), replaces a part, and asks its own injector
 * for the server; the door's {@code /metrics} is the composition's one registry, so it shows what the application
 * counts (a worker's meters) made before and after the door.
 */
@Tag("slow")
class HttpCompositionIT {

    private static final String MARK = "composed-by-the-embedder";

    @Test
    void aGuiceUserReplacesTheGeneratorAndTheDoorExportsTheApplicationsMeters() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        CodeAgentConfig config = TestServer.builder().set("store.kind", "postgres").set("store.postgres.jdbcUrl", db.jdbcUrl())
                .set("store.postgres.user", db.user()).set("store.postgres.password", db.password()).config();
        CodeGenerator own = request -> "```python\nprint('" + MARK + "')\n```";
        Closer closer = new Closer();
        Injector injector = Guice.createInjector(Stage.PRODUCTION, CodeAgentModules.of(config, Adapters.discover().modules(), closer),
                binder -> OptionalBinder.newOptionalBinder(binder, CodeGenerator.class).setBinding().toInstance(own));

        // an application service counting into the root registry before the door exists
        injector.getInstance(RunWorker.class);
        ApiServer server = injector.getInstance(ApiServer.class).listen();
        try (TestServer client = TestServer.over(server)) {
            // and a meter made after the door added its exporter
            Counter.builder("codeagent.embedder.after").register(injector.getInstance(MeterRegistry.class)).increment(2);

            HttpResponse<String> accepted = client.post("/v1/runs", TestServer.ADMIN_KEY, "{\"prompt\":\"say it\",\"maxAttempts\":1}");
            assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
            String id = TestServer.json(accepted).get("id").asText();
            RunsIT.waitFor(() -> TestServer.json(client.get("/v1/runs/" + id, TestServer.ADMIN_KEY)).get("status").asText()
                    .equals("SOLVED"), 30_000, "the run to be solved with the embedder's generator");
            assertThat(client.get("/v1/runs/" + id, TestServer.ADMIN_KEY).body()).as("the replaced generator wrote the code")
                    .contains(MARK);

            String scrape = client.get("/metrics", TestServer.OPS_KEY).body();
            assertThat(scrape).as("the worker's meter, made before the door")
                    .containsPattern("(?m)^codeagent_worker_claims_total(\\{[^}]*\\})? 0\\.0$")
                    .as("a meter made after the door").containsPattern("(?m)^codeagent_embedder_after_total(\\{[^}]*\\})? 2\\.0$")
                    .as("the door's own, under its old name").contains("codeagent_runs_started_total");
        }
        assertThat(injector.getInstance(io.micrometer.core.instrument.composite.CompositeMeterRegistry.class).getRegistries())
                .as("closing the server closed its exporter with the composition").isEmpty();
    }
}
