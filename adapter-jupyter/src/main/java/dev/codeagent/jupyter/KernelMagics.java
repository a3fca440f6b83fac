package dev.codeagent.jupyter;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.command.FieldError;
import dev.codeagent.application.command.FieldErrors;
import dev.codeagent.application.command.LimitOverrides;
import dev.codeagent.application.config.Units;
import dev.codeagent.application.session.OutputSanitizer;
import dev.codeagent.domain.session.MimeBundle;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.solving.Run;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The kernel's line magics: {@code %help}, {@code %sandbox}, {@code %limits}, {@code %runs}. */
final class KernelMagics {

    private static final String HELP = String.join("\n",
            "codeagent kernel: cells are Python, run in a sandboxed IPython session (state kept across cells).",
            "  %%solve [--attempts N] [--language L] [--expected-output TEXT] [--stdin TEXT] [--timeout 10s] [--memory 256m]",
            "      the cell's body is a task: the agent writes code, runs it, fixes it; the accepted code is defined here",
            "  %%tests    the cell's body holds tests for the next %%solve (Python asserts)",
            "  %sandbox [process|docker]    show or change the sandbox tier (a change starts a new session)",
            "  %limits [timeout=10m] [memory=512m]    show or change the per-cell time and the session's memory",
            "  %runs [N]  the last N runs of the agent (default 10)");

    private final KernelSession session;

    KernelMagics(KernelSession session) {
        this.session = session;
    }

    void lineMagic(CellCommand.Line line, Notebook out) {
        List<String> args = line.args();
        switch (line.name()) {
            case "help":
                out.stdout(HELP + "\n");
                return;
            case "sandbox":
                sandboxMagic(args, out);
                return;
            case "limits":
                limitsMagic(args, out);
                return;
            case "runs":
                runsMagic(args, out);
                return;
            default:
                throw new CellCommand.MagicException("unknown magic %" + line.name());
        }
    }

    private void sandboxMagic(List<String> args, Notebook out) {
        if (args.isEmpty()) {
            CodeAgent a = session.agent();
            out.stdout("codeagent: sandbox " + a.config().sandbox().kind() + " (" + a.sandbox().tier() + ")\n");
            return;
        }
        if (args.size() > 1 || !List.of("process", "docker").contains(args.get(0))) {
            throw new CellCommand.MagicException("%sandbox takes one of: process, docker (got '" + String.join(" ", args) + "')");
        }
        String kind = args.get(0);
        session.switchSandbox(kind);
        out.stdout("codeagent: sandbox " + kind + "; a new session is starting (earlier definitions are gone)\n");
    }

    private void limitsMagic(List<String> args, Notebook out) {
        JupyterConfig ceilings = session.ceilings();
        SessionLimits limits = session.limits();
        if (args.isEmpty()) {
            out.stdout("codeagent: timeout=" + Units.formatDuration(limits.cellTimeout()) + " per cell, memory="
                    + Units.formatBytes(limits.memoryBytes()) + " for the session (at most "
                    + Units.formatDuration(ceilings.maxTimeout()) + " and " + Units.formatBytes(ceilings.maxMemory().bytes())
                    + ": jupyter.maxTimeout, jupyter.maxMemory)\n");
            return;
        }
        LimitOverrides asked = LimitOverrides.NONE;
        Map<String, String> typed = new LinkedHashMap<>(); // the field's wire name -> the word that asked for it
        for (String a : args) {
            int eq = a.indexOf('=');
            String key = eq < 0 ? a : a.substring(0, eq).toLowerCase(Locale.ROOT);
            if (eq < 0 || eq == a.length() - 1) {
                throw new CellCommand.MagicException("%limits takes key=value words: timeout=10m memory=512m (got '" + a + "')");
            }
            String value = a.substring(eq + 1);
            switch (key) {
                case "timeout":
                    asked = asked.withTimeout(duration("timeout", value));
                    typed.put("timeoutMs", a);
                    break;
                case "memory":
                    asked = asked.withMemoryBytes(bytes("memory", value));
                    typed.put("memoryBytes", a);
                    break;
                default:
                    throw new CellCommand.MagicException("%limits: unknown limit '" + key + "'; known: timeout, memory");
            }
        }
        // the ceilings are the config's, applied by the application as on every door: a notebook (anyone's content,
        // run with "Run All") must not lift the sandbox's memory above what the person running it configured
        FieldErrors errors = new FieldErrors();
        SessionLimits next = asked.applyTo(limits, ceilings.policy(), "limits", errors);
        if (next == null) {
            FieldError e = errors.list().get(0);
            String field = e.field().substring(e.field().indexOf('.') + 1);
            throw new CellCommand.MagicException("%limits " + typed.getOrDefault(field, field) + ": " + e.message());
        }
        boolean memoryChanged = next.memoryBytes() != limits.memoryBytes();
        boolean timeoutChanged = !next.cellTimeout().equals(limits.cellTimeout());
        if (!memoryChanged && !timeoutChanged) {
            out.stdout("codeagent: the limits are already so\n");
            return;
        }
        session.relimit(next);
        out.stdout("codeagent: timeout=" + Units.formatDuration(next.cellTimeout()) + " per cell, memory="
                + Units.formatBytes(next.memoryBytes()) + "; a new session is starting (earlier definitions are gone)\n");
    }

    private void runsMagic(List<String> args, Notebook out) {
        int n = 10;
        if (args.size() > 1 || (args.size() == 1 && !args.get(0).matches("\\d{1,4}"))) {
            throw new CellCommand.MagicException("%runs takes at most one number, how many runs to list (got '"
                    + String.join(" ", args) + "')");
        }
        if (args.size() == 1) {
            n = Math.max(1, Integer.parseInt(args.get(0)));
        }
        List<Run> runs = session.agent().runLog().recent(n, null);
        if (runs.isEmpty()) {
            out.stdout("codeagent: no runs yet\n");
            return;
        }
        StringBuilder text = new StringBuilder();
        StringBuilder html = new StringBuilder("<table><thead><tr><th>run</th><th>status</th><th>attempts</th><th>task</th>"
                + "</tr></thead><tbody>");
        for (Run r : runs) {
            String prompt = r.task().prompt().strip().replaceAll("\\s+", " ");
            if (prompt.length() > 60) {
                prompt = prompt.substring(0, 60) + "…";
            }
            text.append(String.format(Locale.ROOT, "%-16s  %-9s  %d/%d  %s%n", r.id(), r.status(), r.attempts().size(),
                    r.task().maxAttempts(), prompt));
            // a run's prompt may come from anyone who can queue runs in this store: escaped
            html.append("<tr><td>").append(r.id()).append("</td><td>").append(r.status()).append("</td><td>")
                    .append(r.attempts().size()).append('/').append(r.task().maxAttempts()).append("</td><td>")
                    .append(OutputSanitizer.escape(prompt)).append("</td></tr>");
        }
        html.append("</tbody></table>");
        out.display(new MimeBundle(Map.of(MimeBundle.TEXT_PLAIN, text.toString(), "text/html", html.toString())));
    }

    static Duration duration(String what, String text) {
        try {
            return Units.parseDuration(text);
        } catch (IllegalArgumentException e) {
            throw new CellCommand.MagicException(what + ": '" + text + "' is not a duration (e.g. 10s, 5m)");
        }
    }

    static long bytes(String what, String text) {
        try {
            return Units.parseBytes(text);
        } catch (IllegalArgumentException e) {
            throw new CellCommand.MagicException(what + ": '" + text + "' is not a size (e.g. 256m, 1g)");
        }
    }
}
