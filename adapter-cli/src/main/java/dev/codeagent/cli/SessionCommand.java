package dev.codeagent.cli;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.host.ReplacedFile;
import dev.codeagent.application.session.Notebook;
import dev.codeagent.application.session.OpenSession;
import dev.codeagent.application.session.SessionRefusedException;
import dev.codeagent.application.session.OutputSanitizer;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.CellStatus;
import dev.codeagent.domain.session.MimeBundle;
import dev.codeagent.domain.session.SessionLimits;
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
 * from cell to cell) and prints what each gave; {@code --notebook} also writes them as a Jupyter notebook. Without
 * FILE it is a REPL: cells are typed (or piped) in, each ending at a blank line, and run as they come; images are
 * saved to files in {@code --images} and named in the output.
 */
@Command(name = "session",
        description = {"Run Python cells in one sandboxed kernel session, state kept across cells.",
            // picocli formats descriptions: %%%% is printed as the %% a cell marker is
            "With FILE: cells are separated by lines starting with '# %%%%' (the percent format of Jupytext, VS Code and"
                    + " Spyder).",
            "Without FILE: a REPL; type a cell, end it with a blank line; Ctrl-D ends the session."},
        usageHelpAutoWidth = true,
        footerHeading = "%nExit status:%n",
        footer = {
            "  0    every cell ran without an error",
            "  1    a cell raised, timed out, or the kernel died (the cells after it still run)",
            "  2    bad usage or input",
            "  125  the sandbox cannot host sessions here (the process tier needs Debian's python3-ipykernel; the",
            "       docker image needs the kernel, see scripts/build-sandbox-image.sh)",
            "",
            "Examples:",
            "  codeagent session analysis.py",
            "  codeagent session --notebook out.ipynb --cell-timeout 60s analysis.py",
            "  codeagent session --images plots/"})
final class SessionCommand implements Callable<Integer> {

    /** Whose sessions these are in the registry: the local user's, as for runs. */
    static final String OWNER = dev.codeagent.application.run.Caller.localUser().owner();

    private static final Pattern CELL_MARKER = Pattern.compile("(?m)^# ?%%.*(?:\\n|$)");

    @ParentCommand
    CodeAgentCli cli;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "FILE|-",
            description = "The cells; - reads them from standard input. Without it: a REPL.")
    String file;

    @Option(names = "--images", paramLabel = "DIR", description = "Where images the cells display are saved "
            + "(cell-N-K.png, .jpg, .gif, .webp; never SVG or HTML, which could run script where opened), named in the output (default: the current directory; only in the REPL unless given).")
    Path images;

    @Option(names = "--notebook", paramLabel = "FILE", description = "Also write the cells and their outputs as a Jupyter notebook (nbformat 4.5).")
    Path notebook;

    @Option(names = "--cell-timeout", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            description = "How long one cell may run before it is interrupted (default 30s).")
    Duration cellTimeout;

    @Override
    public Integer call() {
        CodeAgentConfig config = cli.config(Map.of());
        java.util.Iterator<String> cells;
        boolean repl = file == null;
        if (repl) {
            cells = new ReplCells(cli.context().stdin(), spec.commandLine().getOut(), cli.context().interactive());
        } else {
            Inputs.Text source = Inputs.read(file, cli.context(), "cells", Cell.MAX_SOURCE_CHARS * 4L, null);
            List<String> all = split(source.text());
            if (all.isEmpty()) {
                throw new UsageException(source.name() + ": no cells (nothing but blank lines and '# %%' markers)");
            }
            cells = all.iterator();
        }
        Path imageDir = images != null ? cli.context().cwd().resolve(images) : repl ? cli.context().cwd() : null;
        if (images != null && !Files.exists(imageDir)) {
            // like `mkdir -p`: a new directory for this session's plots is the common case, not a mistake
            try {
                Files.createDirectories(imageDir);
            } catch (IOException e) {
                throw new UsageException("--images " + images + ": cannot make the directory: " + e.getMessage());
            }
        }
        if (imageDir != null && !Files.isDirectory(imageDir)) {
            throw new UsageException("--images: " + images + " is not a directory");
        }
        // made before any cell runs: a notebook that cannot be written fails now, not after every cell has run
        Path notebookTmp = notebook == null ? null : notebookTemp(cli.context().cwd().resolve(notebook));
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
        try {
            try (CodeAgent agent = cli.agent(config)) {
                try (OpenSession session = open(agent, limits)) {
                    for (int n = 1; cells.hasNext(); n++) {
                        Cell cell = new Cell(cells.next());
                        CellResult r = session.use(s -> s.execute(cell));
                        book.add(cell, r);
                        show(out, n, r, imageDir);
                        out.flush();
                        failed |= r.status() != CellStatus.OK;
                    }
                }
            }
            if (notebook != null) {
                Path target = cli.context().cwd().resolve(notebook);
                try {
                    Path tmp = notebookTmp;
                    try (java.io.OutputStream to = new java.io.BufferedOutputStream(Files.newOutputStream(tmp))) {
                        book.writeTo(to);
                    }
                    // written whole or not at all
                    Files.move(tmp, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                } catch (IOException e) {
                    throw new UsageException(notebook + ": cannot write the notebook: " + e.getMessage());
                }
            }
        } finally {
            if (notebookTmp != null) {
                // still there only when the notebook was not moved into place (a failure, Ctrl-C)
                try {
                    Files.deleteIfExists(notebookTmp);
                } catch (IOException e) {
                    spec.commandLine().getErr().println("codeagent: could not remove " + notebookTmp + ": " + e.getMessage());
                }
            }
        }
        out.flush();
        return failed ? ExitStatus.FAILURE : ExitStatus.OK;
    }

    /**
     * The notebook's temporary file beside it, made with the umask's mode (0644 under the usual umask, as Jupyter's
     * own files; not createTempFile's 0600: a notebook is a document to share, and the umask is how a user asks
     * for privacy), removed when the command ends without moving it into place.
     */
    private Path notebookTemp(Path target) {
        Path dir = target.toAbsolutePath().getParent();
        if (Files.isDirectory(target)) {
            throw new UsageException("--notebook " + notebook + ": is a directory");
        }
        if (dir == null || !Files.isDirectory(dir)) {
            throw new UsageException("--notebook " + notebook + ": no such directory " + dir + " (make it first)");
        }
        try {
            Path tmp = dir.resolve(".codeagent-notebook-" + Long.toUnsignedString(new java.security.SecureRandom().nextLong(), 36) + ".tmp");
            Files.createFile(tmp);
            return tmp;
        } catch (IOException e) {
            throw new UsageException("--notebook " + notebook + ": cannot write in " + dir + ": " + e.getMessage());
        }
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

    /**
     * A session of the configured tier, the local user's in the agent's registry; a tier without sessions is an
     * unavailable sandbox (exit 125), said in one line, and so is a refusal (sessions turned off).
     */
    static OpenSession open(CodeAgent agent, SessionLimits limits) {
        try {
            return agent.openSessions().open(OWNER, limits);
        } catch (SessionRefusedException e) {
            throw new SandboxUnavailableException(e.getMessage());
        }
    }

    private static void show(PrintWriter out, int n, CellResult r, Path imageDir) {
        out.println("── cell " + n + ": " + r.status() + (r.stateLost() ? " (state lost)" : "")
                + (r.message() == null || r.message().isBlank() ? "" : " - " + r.message()));
        int image = 0;
        for (CellOutput o : r.outputs()) {
            String text = o instanceof CellOutput.Error e ? e.name() + ": " + e.value() : o.standIn();
            if (imageDir != null && (o instanceof CellOutput.DisplayData || o instanceof CellOutput.ExecuteResult)) {
                MimeBundle data = o instanceof CellOutput.DisplayData d ? d.data() : ((CellOutput.ExecuteResult) o).data();
                Path saved = save(imageDir, n, ++image, data);
                if (saved != null) {
                    text = text.stripTrailing() + " -> " + saved + "\n";
                }
            }
            out.print(text);
            if (!text.endsWith("\n")) {
                out.println();
            }
        }
    }

    /** Image types saved, with their file extensions, in order of preference. */
    private static final Map<String, String> IMAGES = new java.util.LinkedHashMap<>(Map.of(MimeBundle.IMAGE_PNG, ".png",
            "image/jpeg", ".jpg", "image/gif", ".gif", "image/webp", ".webp"));

    /**
     * Saves a bundle's raster image as {@code cell-N-K.png} (or .jpg, .gif, .webp), only as {@link OutputSanitizer}
     * passes it: a file a viewer opens from here is rendered with the viewer's rights, so an SVG (script, handlers,
     * links) is not written; null when there is none or it cannot be written.
     */
    private static Path save(Path dir, int cell, int k, MimeBundle raw) {
        MimeBundle data = OutputSanitizer.bundle(raw);
        for (Map.Entry<String, String> image : IMAGES.entrySet()) {
            String base64 = data.data().get(image.getKey());
            if (base64 != null) {
                Path target = dir.resolve("cell-" + cell + "-" + k + image.getValue());
                // a fresh file of ours renamed over the name, never a write to what the name is now: the name is
                // predictable, and in a directory others can write (a REPL in /tmp) it may be their link to our files
                try {
                    return ReplacedFile.write(target, java.util.Base64.getDecoder().decode(base64), null);
                } catch (IOException | IllegalArgumentException e) {
                    return null;
                }
            }
        }
        return null;
    }

    /**
     * The REPL's cells: lines read until a blank line (or a {@code # %%} line) ends a cell; the end of the input
     * ends the last one. On a terminal, prompts as IPython does.
     */
    static final class ReplCells implements java.util.Iterator<String> {
        private final java.io.BufferedReader in;
        private final PrintWriter out;
        private final boolean prompt;
        private String next;
        private int count = 1;
        private boolean done;

        ReplCells(java.io.InputStream in, PrintWriter out, boolean prompt) {
            this.in = new java.io.BufferedReader(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
            this.out = out;
            this.prompt = prompt;
        }

        @Override
        public boolean hasNext() {
            if (next == null && !done) {
                next = read();
            }
            return next != null;
        }

        @Override
        public String next() {
            if (!hasNext()) {
                throw new java.util.NoSuchElementException();
            }
            String cell = next;
            next = null;
            count++;
            return cell;
        }

        private String read() {
            StringBuilder cell = new StringBuilder();
            try {
                while (true) {
                    if (prompt) {
                        out.print(cell.length() == 0 ? "In [" + count + "]: " : "   ...: ");
                        out.flush();
                    }
                    String line = in.readLine();
                    if (line == null) {
                        done = true;
                        break;
                    }
                    if (line.isBlank() || CELL_MARKER.matcher(line).lookingAt()) {
                        if (cell.length() > 0) {
                            break;
                        }
                        continue;
                    }
                    if (cell.length() + line.length() > Cell.MAX_SOURCE_CHARS) {
                        throw new UsageException("a cell is longer than " + Cell.MAX_SOURCE_CHARS + " characters");
                    }
                    cell.append(line).append('\n');
                }
            } catch (IOException e) {
                done = true;
            }
            String text = cell.toString().stripTrailing();
            return text.isEmpty() ? null : text;
        }
    }
}
