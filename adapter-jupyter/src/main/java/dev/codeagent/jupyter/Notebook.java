package dev.codeagent.jupyter;

import dev.codeagent.application.session.OutputSanitizer;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.MimeBundle;
import java.util.Map;
import org.dflib.jjava.jupyter.channels.ShellReplyEnvironment;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.messages.publish.PublishDisplayData;
import org.dflib.jjava.jupyter.messages.publish.PublishError;
import org.dflib.jjava.jupyter.messages.publish.PublishExecuteResult;
import org.dflib.jjava.jupyter.messages.publish.PublishStream;

/** Where one cell's outputs go: the notebook, through the iopub channel, as they come. */
final class Notebook {
    private final ShellReplyEnvironment env;
    private final int count;
    private final boolean silent;
    boolean errorShown;

    Notebook(ShellReplyEnvironment env, int count, boolean silent) {
        this.env = env;
        this.count = count;
        this.silent = silent;
    }

    private <T extends org.dflib.jjava.jupyter.messages.ContentType<T>> void publish(T content) {
        if (!silent) {
            env.publish(content);
        }
    }

    void stdout(String text) {
        publish(new PublishStream(PublishStream.StreamType.OUT, text));
    }

    void stderr(String text) {
        publish(new PublishStream(PublishStream.StreamType.ERR, text));
    }

    void display(MimeBundle bundle) {
        publish(new PublishDisplayData(displayData(OutputSanitizer.bundle(bundle))));
    }

    void show(CellOutput output) {
        if (output instanceof CellOutput.Stream s) {
            if ("stdout".equals(s.name())) {
                stdout(s.text());
            } else {
                stderr(s.text());
            }
        } else if (output instanceof CellOutput.DisplayData d) {
            display(d.data());
        } else if (output instanceof CellOutput.ExecuteResult r) {
            publish(new PublishExecuteResult(count, displayData(OutputSanitizer.bundle(r.data()))));
        } else if (output instanceof CellOutput.Error e) {
            publish(new PublishError(e.name(), e.value(), e.traceback()));
            errorShown = true;
        }
    }

    private static DisplayData displayData(MimeBundle bundle) {
        DisplayData d = new DisplayData();
        for (Map.Entry<String, String> e : bundle.data().entrySet()) {
            String type = e.getKey();
            // JSON representations travel as JSON, not as a string holding JSON
            if (type.equals("application/json") || type.endsWith("+json")) {
                try {
                    d.putData(type, com.google.gson.JsonParser.parseString(e.getValue()));
                    continue;
                } catch (RuntimeException notJson) {
                    // kept as text below
                }
            }
            d.putData(type, e.getValue());
        }
        return d;
    }
}
