package dev.codeagent.cli;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.session.Notebook;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.CellStatus;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code codeagent session FILE}: runs a file of cells in one session (a real kernel in the sandbox, state kept
 * from cell to cell) and prints what each gave; {@code --notebook} also writes them as a Jupyter notebook.
 */
@Command(name = "session",
        description = {"Run a file of Python cells in one sandboxed kernel session, state kept across cells.",
            "Cells are separated by lines starting with '# %%' (the percent format of Jupytext, VS Code and Spyder)."},
        usageHelpAutoWidth = true,
        footerHeading = "%nExit status:%n",
        footer = {
            "  0    every cell ran without an error",
            "  1    a cell raised, timed out, or the kernel died (the cells after it still run)",
            "  2    bad usage or input",
            "  125  the sandbox cannot host sessions here (the docker tier cannot yet; the process tier needs",
            "       Debian's python3-ipykernel)",
            "",
            "Examples:",
            "  codeagent session analysis.py",
            "  codeagent session --notebook out.ipynb --cell-timeout 60s analysis.py"})
final class SessionCommand implements Callable<Integer> {

    private static final Pattern CELL_MARKER = Pattern.compile("(?m)^# ?%%.*(?:\\n|$)");

    @ParentCommand
    CodeAgentCli cli;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE|-", description = "The cells; - reads them from standard input.")
    String file;

    @Option(names = "--notebook", paramLabel = "FILE", description = "Also write the cells and their outputs as a Jupyter notebook (nbformat 4.5).")
    Path notebook;

    @Option(names = "--cell-timeout", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            description = "How long one cell may run before it is interrupted (default 30s).")
    Duration cellTimeout;

    @Override
    public Integer call() {
        CodeAgentConfig config = cli.config(Map.of());
        Inputs.Text source = Inputs.read(file, cli.context(), "cells", Cell.MAX_SOURCE_CHARS * 4L, null);
        List<String> cells = split(source.text());
        if (cells.isEmpty()) {
            throw new UsageException(source.name() + ": no cells (nothing but blank lines and '# %%' markers)");
        }
        SessionLimits limits = SessionLimits.defaults();
        if (cellTimeout != null) {
            try {
                limits = limits.withCellTimeout(cellTimeout);
            } catch (IllegalArgumentException e) {
                throw new UsageException("--cell-timeout: " + e.getMessage());
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        Notebook book = new Notebook();
        boolean failed = false;
        try (CodeAgent agent = cli.agent(config)) {
            if (!(agent.sandbox() instanceof SessionSandbox sessions)) {
                throw new SandboxUnavailableException("the " + agent.sandbox().tier() + " tier cannot host sessions yet; "
                        + "use --sandbox process");
            }
            try (Session session = sessions.open(limits)) {
                for (int i = 0; i < cells.size(); i++) {
                    Cell cell = new Cell(cells.get(i));
                    CellResult r = session.execute(cell);
                    book.add(cell, r);
                    show(out, i + 1, r);
                    failed |= r.status() != CellStatus.OK;
                }
            }
        }
        if (notebook != null) {
            Path target = cli.context().cwd().resolve(notebook);
            try {
                Path tmp = Files.createTempFile(target.toAbsolutePath().getParent(), ".codeagent-notebook-", ".tmp");
                Files.writeString(tmp, book.toJson(), StandardCharsets.UTF_8);
                // written whole or not at all
                Files.move(tmp, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                throw new UsageException(notebook + ": cannot write the notebook: " + e.getMessage());
            }
        }
        out.flush();
        return failed ? ExitStatus.FAILURE : ExitStatus.OK;
    }

    /** The cells of a percent-format file: the text between markers, blank ones dropped, trailing blank lines cut. */
    static List<String> split(String text) {
        List<String> cells = new ArrayList<>();
        for (String part : CELL_MARKER.split(text, -1)) {
            String cell = part.stripTrailing();
            while (cell.startsWith("\n")) {
                cell = cell.substring(1);
            }
            if (!cell.isBlank()) {
                cells.add(cell);
            }
        }
        return cells;
    }

    private static void show(PrintWriter out, int n, CellResult r) {
        out.println("── cell " + n + ": " + r.status() + (r.stateLost() ? " (state lost)" : "")
                + (r.message() == null || r.message().isBlank() ? "" : " - " + r.message()));
        for (CellOutput o : r.outputs()) {
            String text = o instanceof CellOutput.Error e ? e.name() + ": " + e.value() : o.standIn();
            out.print(text);
            if (!text.endsWith("\n")) {
                out.println();
            }
        }
    }
}
