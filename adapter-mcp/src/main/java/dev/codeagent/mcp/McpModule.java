package dev.codeagent.mcp;

import com.google.inject.multibindings.ProvidesIntoSet;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.inject.Closer;
import dev.codeagent.application.inject.LazySingleton;
import dev.codeagent.application.session.OpenSessions;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.HostedEndpoint;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.solving.RunLog;
import jakarta.inject.Provider;
import java.util.List;

/**
 * The MCP door's part of a composition with an HTTP server: its Streamable HTTP endpoint ({@code /mcp}), served by
 * whichever door hosts {@link HostedEndpoint}s, built only when that door asks. Its parts come from the composition
 * like any other door's, each on first use (a server that never gets an MCP call builds no agent loop for it).
 */
public final class McpModule extends AdapterModule {

    @Override
    public List<ConfigSection<?>> sections() {
        return List.of(McpConfig.SECTION);
    }

    @Override
    protected void configure() {
    }

    @ProvidesIntoSet
    @LazySingleton
    HostedEndpoint http(CodeAgentConfig config, Provider<Sandbox> sandbox, Provider<ExecuteCode> executeCode,
            Provider<OpenSessions> openSessions, Provider<SolveTask> solveTask, Provider<RunLog> runLog, Closer closer) {
        return closer.register(new McpHttpEndpoint(new McpTools.Parts(config, sandbox::get, executeCode::get,
                openSessions::get, solveTask::get, runLog::get)));
    }
}
