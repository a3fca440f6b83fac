package dev.codeagent.application.session;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.MimeBundle;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A session's cells and what they gave, as a Jupyter notebook: nbformat 4.5 (cell ids), one code cell per cell
 * run, its outputs as the kernel reported them after {@link OutputSanitizer} (streams, display data, execute results,
 * errors). Text is split into lines the way nbformat stores it; JSON types are written as JSON values; images stay
 * base64.
 *
 * <p>Bounded: the cells' sources and outputs held at once are at most the budget (counted in characters; the heap
 * they take is at most twice that). Past it the oldest outputs are dropped first, then the oldest sources; a cell
 * that lost outputs says so in a stream output of its own ("[codeagent: 3 outputs of this cell dropped: session output
 * budget 8 MiB]"), and the notebook's metadata counts them. The export is streamed: {@link #writeTo} writes one cell at
 * a time and holds the notebook's lock only to look a cell up, so a slow reader never holds up a running session nor
 * keeps a dropped cell alive.
 */
public final class Notebook {

    /** The default budget of one notebook: 8 Mi characters. */
    public static final long DEFAULT_BUDGET = 8L * 1024 * 1024;
    /** What a held cell or output costs beyond its text: the objects that hold it. */
    private static final long OVERHEAD = 64;
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** One cell as held: its sources and outputs shrink as the budget demands. Guarded by the notebook. */
    private static final class Entry {
        final int index;
        final int executionCount;
        String source;
        final ArrayDeque<CellOutput> outputs;
        int droppedOutputs;

        Entry(int index, int executionCount, String source, List<CellOutput> outputs) {
            this.index = index;
            this.executionCount = executionCount;
            this.source = source;
            this.outputs = new ArrayDeque<>(outputs);
        }
    }

    /** What a writer takes of one cell: immutable, so it is written without the lock. */
    private record Snapshot(int index, int executionCount, String source, List<CellOutput> outputs, int droppedOutputs) {
    }

    private final long budget;
    private final ArrayList<Entry> entries = new ArrayList<>();
    private long held;
    private long droppedOutputs;
    private long droppedSources;
    /** Entries before this one have no output left to drop. */
    private int firstWithOutputs;
    /** Entries before this one have no source left to drop. */
    private int firstWithSource;

    /** A notebook with the {@link #DEFAULT_BUDGET}. */
    public Notebook() {
        this(DEFAULT_BUDGET);
    }

    /** @param budget characters of sources and outputs held at once; at least 1 KiB */
    public Notebook(long budget) {
        if (budget < 1024) {
            throw new IllegalArgumentException("a notebook's output budget must be at least 1 KiB, was " + budget);
        }
        this.budget = budget;
    }

    /** Adds a cell that ran and what it gave (sanitized here), dropping the oldest outputs past the budget. */
    public Notebook add(Cell cell, CellResult result) {
        List<CellOutput> outputs = new ArrayList<>(result.outputs().size());
        result.outputs().forEach(o -> outputs.add(OutputSanitizer.output(o)));
        synchronized (this) {
            Entry e = new Entry(entries.size() + 1, result.executionCount(), cell.source(), outputs);
            entries.add(e);
            held += OVERHEAD + e.source.length();
            outputs.forEach(o -> held += size(o));
            shrink();
        }
        return this;
    }

    /** Drops the oldest outputs, then the oldest sources, until what is held fits the budget. */
    private void shrink() {
        while (held > budget && firstWithOutputs < entries.size()) {
            Entry e = entries.get(firstWithOutputs);
            CellOutput o = e.outputs.pollFirst();
            if (o == null) {
                firstWithOutputs++;
                continue;
            }
            held -= size(o);
            e.droppedOutputs++;
            droppedOutputs++;
        }
        while (held > budget && firstWithSource < entries.size()) {
            Entry e = entries.get(firstWithSource++);
            held -= e.source.length();
            e.source = "# [codeagent: this cell's source was dropped: session output budget " + mib(budget) + "]";
            held += e.source.length();
            droppedSources++;
        }
    }

    /** Characters of sources and outputs held now: never more than the budget (past the markers). */
    public synchronized long held() {
        return held;
    }

    /** Outputs dropped so far to keep within the budget. */
    public synchronized long droppedOutputs() {
        return droppedOutputs;
    }

    private static long size(CellOutput o) {
        long n = OVERHEAD;
        if (o instanceof CellOutput.Stream s) {
            n += s.text().length();
        } else if (o instanceof CellOutput.DisplayData d) {
            n += size(d.data());
        } else if (o instanceof CellOutput.ExecuteResult r) {
            n += size(r.data());
        } else if (o instanceof CellOutput.Error e) {
            n += e.name().length() + e.value().length();
            for (String line : e.traceback()) {
                n += line.length() + 16;
            }
        }
        return n;
    }

    private static long size(MimeBundle b) {
        long n = 0;
        for (Map.Entry<String, String> e : b.data().entrySet()) {
            n += e.getKey().length() + e.getValue().length();
        }
        return n;
    }

    private synchronized Snapshot snapshot(int i) {
        if (i >= entries.size()) {
            return null;
        }
        Entry e = entries.get(i);
        return new Snapshot(e.index, e.executionCount, e.source, List.copyOf(e.outputs), e.droppedOutputs);
    }

    /** The kernelspec name written in the notebook's metadata: the one {@code codeagent jupyter install} installs. */
    public static final String KERNEL_NAME = "codeagent";

    /**
     * Writes the notebook as {@code .ipynb} JSON that {@code nbformat.validate} accepts, cell by cell, to {@code out}
     * (left open). Cells added while it writes may or may not be in it.
     */
    public void writeTo(OutputStream out) throws IOException {
        try (JsonGenerator g = JSON.getFactory().createGenerator(out, JsonEncoding.UTF8)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeArrayFieldStart("cells");
            for (int i = 0;; i++) {
                Snapshot c = snapshot(i);
                if (c == null) {
                    break;
                }
                cell(g, c);
            }
            g.writeEndArray();
            g.writeObjectFieldStart("metadata");
            g.writeObjectFieldStart("kernelspec");
            // the kernel the cells ran in: `codeagent jupyter install`'s (a client that has it runs them sandboxed again,
            // one that has not asks, rather than re-running them unsandboxed in a plain python3 kernel)
            g.writeStringField("name", KERNEL_NAME);
            g.writeStringField("display_name", "Python 3 (codeagent sandbox)");
            g.writeStringField("language", "python");
            g.writeEndObject();
            g.writeObjectFieldStart("language_info");
            g.writeStringField("name", "python");
            g.writeEndObject();
            synchronized (this) {
                g.writeObjectFieldStart("codeagent");
                g.writeNumberField("outputBudget", budget);
                g.writeNumberField("droppedOutputs", droppedOutputs);
                g.writeNumberField("droppedSources", droppedSources);
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeNumberField("nbformat", 4);
            g.writeNumberField("nbformat_minor", 5);
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }

    private void cell(JsonGenerator g, Snapshot c) throws IOException {
        g.writeStartObject();
        g.writeStringField("cell_type", "code");
        g.writeStringField("id", "cell-" + c.index());
        g.writeObjectFieldStart("metadata");
        g.writeEndObject();
        if (c.executionCount() > 0) {
            g.writeNumberField("execution_count", c.executionCount());
        } else {
            g.writeNullField("execution_count");
        }
        g.writeFieldName("source");
        lines(g, c.source());
        g.writeArrayFieldStart("outputs");
        if (c.droppedOutputs() > 0) {
            stream(g, "stderr", "[codeagent: " + c.droppedOutputs() + (c.droppedOutputs() == 1 ? " output" : " outputs")
                    + " of this cell dropped: session output budget " + mib(budget) + "]\n");
        }
        for (CellOutput o : c.outputs()) {
            output(g, o);
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static void stream(JsonGenerator g, String name, String text) throws IOException {
        g.writeStartObject();
        g.writeStringField("output_type", "stream");
        g.writeStringField("name", name);
        g.writeFieldName("text");
        lines(g, text);
        g.writeEndObject();
    }

    private static void output(JsonGenerator g, CellOutput o) throws IOException {
        if (o instanceof CellOutput.Stream s) {
            stream(g, s.name(), s.text());
            return;
        }
        g.writeStartObject();
        if (o instanceof CellOutput.DisplayData d) {
            g.writeStringField("output_type", "display_data");
            data(g, d.data());
            g.writeObjectFieldStart("metadata");
            g.writeEndObject();
        } else if (o instanceof CellOutput.ExecuteResult e) {
            g.writeStringField("output_type", "execute_result");
            g.writeNumberField("execution_count", e.executionCount());
            data(g, e.data());
            g.writeObjectFieldStart("metadata");
            g.writeEndObject();
        } else if (o instanceof CellOutput.Error e) {
            g.writeStringField("output_type", "error");
            g.writeStringField("ename", e.name());
            g.writeStringField("evalue", e.value());
            g.writeArrayFieldStart("traceback");
            for (String line : e.traceback()) {
                g.writeString(line);
            }
            g.writeEndArray();
        }
        g.writeEndObject();
    }

    private static void data(JsonGenerator g, MimeBundle bundle) throws IOException {
        g.writeObjectFieldStart("data");
        for (Map.Entry<String, String> e : bundle.data().entrySet()) {
            String type = e.getKey();
            if (isJson(type)) {
                // nbformat takes any JSON value here, but nbconvert and Jupyter's renderers need the value, not its text
                JsonNode value;
                try {
                    value = JSON.readTree(e.getValue());
                } catch (IOException notJson) {
                    value = null;
                }
                if (value != null && !value.isMissingNode()) {
                    g.writeFieldName(type);
                    g.writeTree(value);
                }
            } else if (type.startsWith("image/") && !type.equals("image/svg+xml")) {
                g.writeStringField(type, e.getValue());
            } else {
                g.writeFieldName(type);
                lines(g, e.getValue());
            }
        }
        g.writeEndObject();
    }

    /** Whether nbformat stores this type as a JSON value ({@code application/json}, {@code application/…+json}). */
    static boolean isJson(String type) {
        return type.equals("application/json") || type.startsWith("application/") && type.endsWith("+json");
    }

    /** nbformat's multiline strings: each line with its newline, the last without one when the text has none. */
    private static void lines(JsonGenerator g, String text) throws IOException {
        g.writeStartArray();
        int start = 0;
        while (start < text.length()) {
            int nl = text.indexOf('\n', start);
            int end = nl < 0 ? text.length() : nl + 1;
            g.writeString(text.substring(start, end));
            start = end;
        }
        g.writeEndArray();
    }

    private static String mib(long chars) {
        return chars % (1024 * 1024) == 0 ? chars / (1024 * 1024) + " MiB"
                : chars % 1024 == 0 ? chars / 1024 + " KiB" : chars + " bytes";
    }
}
