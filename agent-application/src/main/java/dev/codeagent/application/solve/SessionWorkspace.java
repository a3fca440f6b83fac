package dev.codeagent.application.solve;

import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.CellStatus;
import dev.codeagent.domain.session.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The live session a run's attempts share ({@code solve --session}): each attempt's code runs there as a cell
 * first, so what it defined is still there for the next attempt, and the model is told what the session holds.
 * The session never decides a verdict: the judge rebuilds its state in a fresh sandbox from the cells that ran
 * without error ({@link #prelude()}, see {@code Judge.prepareAfter}).
 */
final class SessionWorkspace {

    /** Names the session holds, with their types: one line each, as the model reads them. */
    private static final String NAMES = "print('\\n'.join(sorted('%s: %s' % (_n, type(_v).__name__) for _n, _v in "
            + "globals().items() if not _n.startswith('_') and _n not in ('In', 'Out', 'get_ipython', 'exit', 'quit'))))";
    private static final int MAX_NAMES = 40;
    private static final int MAX_OUTPUT = 1500;

    /** How one attempt's cell went, and what the session holds after it. */
    record Step(CellResult cell, List<String> names) {
    }

    private final Session session;
    private final List<String> carried = new ArrayList<>();

    SessionWorkspace(Session session) {
        this.session = Objects.requireNonNull(session, "session");
    }

    /** The cells so far that ran without error and whose state the session still holds, in order. */
    String prelude() {
        return String.join("\n", carried);
    }

    /**
     * Runs an attempt's code as a cell and lists the names the session then holds.
     *
     * @throws dev.codeagent.domain.session.SessionEndedException when the session has ended
     */
    Step run(String code) {
        CellResult r = session.execute(new Cell(code));
        if (r.stateLost()) {
            // the kernel was restarted: what earlier cells defined is gone from the session, so from the judge too
            carried.clear();
        }
        if (r.status() == CellStatus.OK) {
            carried.add(code);
        }
        return new Step(r, names());
    }

    private List<String> names() {
        CellResult r = session.execute(new Cell(NAMES));
        if (r.status() != CellStatus.OK) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (CellOutput o : r.outputs()) {
            if (o instanceof CellOutput.Stream s && s.name().equals("stdout")) {
                s.text().lines().filter(l -> !l.isBlank()).forEach(names::add);
            }
        }
        return names;
    }

    /** What the model is told after an attempt: how its cell went in the session and what the session now holds. */
    static String note(Step step) {
        StringBuilder b = new StringBuilder("\n\nYour code also ran as a cell in a live Python session that keeps its state "
                + "between attempts");
        CellResult c = step.cell();
        b.append(c.status() == CellStatus.OK ? " (the cell ran without error)" : " (the cell ended " + c.status()
                + (c.message().isBlank() ? "" : ": " + c.message()) + ")");
        if (c.stateLost()) {
            b.append("; the kernel was restarted, so what earlier attempts defined is gone");
        }
        b.append(".");
        StringBuilder shown = new StringBuilder();
        for (CellOutput o : c.outputs()) {
            if (!(o instanceof CellOutput.Error)) {
                shown.append(o.standIn());
            }
        }
        if (shown.length() > 0) {
            String s = shown.length() > MAX_OUTPUT ? shown.substring(0, MAX_OUTPUT) + "\n[...]" : shown.toString();
            b.append(" It showed:\n").append(s.strip());
        }
        List<String> names = step.names();
        if (names.isEmpty()) {
            b.append("\nThe session holds no names of yours yet.");
        } else {
            b.append("\nThe session holds: ").append(String.join(", ", names.subList(0, Math.min(MAX_NAMES, names.size()))));
            if (names.size() > MAX_NAMES) {
                b.append(", and ").append(names.size() - MAX_NAMES).append(" more");
            }
            b.append(".");
        }
        b.append("\nYour next code runs in the same session and may use these names; it is judged after the earlier "
                + "code that ran without error.");
        return b.toString();
    }
}
