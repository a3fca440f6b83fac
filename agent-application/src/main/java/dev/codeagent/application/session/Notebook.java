package dev.codeagent.application.session;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.MimeBundle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A session's cells and what they gave, as a Jupyter notebook: nbformat 4.5 (cell ids), one code cell per cell
 * run, its outputs as the kernel reported them (streams, display data, execute results, errors). Text is split
 * into lines the way nbformat stores it; images stay base64 as the kernel sent them (past the session's image cap
 * they are already a text stand-in).
 */
public final class Notebook {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final List<Cell> cells = new ArrayList<>();
    private final List<CellResult> results = new ArrayList<>();

    /** Adds a cell that ran and what it gave. */
    public synchronized Notebook add(Cell cell, CellResult result) {
        cells.add(cell);
        results.add(result);
        return this;
    }

    /** The cells as a code-cell-per-cell {@code .ipynb} text that {@code nbformat.validate} accepts. */
    public synchronized String toJson() {
        ObjectNode nb = JSON.createObjectNode();
        ArrayNode out = nb.putArray("cells");
        for (int i = 0; i < cells.size(); i++) {
            CellResult r = results.get(i);
            ObjectNode c = out.addObject();
            c.put("cell_type", "code");
            c.put("id", "cell-" + (i + 1));
            c.putObject("metadata");
            if (r.executionCount() > 0) {
                c.put("execution_count", r.executionCount());
            } else {
                c.putNull("execution_count");
            }
            lines(c.putArray("source"), cells.get(i).source());
            ArrayNode outputs = c.putArray("outputs");
            for (CellOutput o : r.outputs()) {
                output(outputs.addObject(), o);
            }
        }
        ObjectNode meta = nb.putObject("metadata");
        ObjectNode kernel = meta.putObject("kernelspec");
        kernel.put("name", "python3");
        kernel.put("display_name", "Python 3");
        kernel.put("language", "python");
        meta.putObject("language_info").put("name", "python");
        nb.put("nbformat", 4);
        nb.put("nbformat_minor", 5);
        try {
            return JSON.writeValueAsString(nb) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot write a notebook: " + e.getOriginalMessage(), e);
        }
    }

    private static void output(ObjectNode n, CellOutput o) {
        if (o instanceof CellOutput.Stream s) {
            n.put("output_type", "stream");
            n.put("name", s.name());
            lines(n.putArray("text"), s.text());
        } else if (o instanceof CellOutput.DisplayData d) {
            n.put("output_type", "display_data");
            data(n.putObject("data"), d.data());
            n.putObject("metadata");
        } else if (o instanceof CellOutput.ExecuteResult e) {
            n.put("output_type", "execute_result");
            n.put("execution_count", e.executionCount());
            data(n.putObject("data"), e.data());
            n.putObject("metadata");
        } else if (o instanceof CellOutput.Error e) {
            n.put("output_type", "error");
            n.put("ename", e.name());
            n.put("evalue", e.value());
            ArrayNode tb = n.putArray("traceback");
            e.traceback().forEach(tb::add);
        }
    }

    private static void data(ObjectNode n, MimeBundle bundle) {
        for (Map.Entry<String, String> e : bundle.data().entrySet()) {
            if (e.getKey().startsWith("image/") && !e.getKey().equals("image/svg+xml")) {
                n.put(e.getKey(), e.getValue());
            } else {
                lines(n.putArray(e.getKey()), e.getValue());
            }
        }
    }

    /** nbformat's multiline strings: each line with its newline, the last without one when the text has none. */
    private static void lines(ArrayNode array, String text) {
        int start = 0;
        while (start < text.length()) {
            int nl = text.indexOf('\n', start);
            int end = nl < 0 ? text.length() : nl + 1;
            array.add(text.substring(start, end));
            start = end;
        }
    }
}
