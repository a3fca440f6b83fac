package dev.codeagent.jupyter;

import dev.codeagent.domain.session.MimeBundle;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jsoup.Jsoup;
import org.jsoup.safety.Safelist;

/**
 * What of a sandboxed cell's rich output may reach the notebook page. The page is the way out of the sandbox that
 * matters: Jupyter trusts the outputs of a cell run in the current session, so HTML from the cell would run its
 * scripts and event handlers in the user's browser, next to the Jupyter server's API and its token, which starts
 * unsandboxed kernels; and anything the page fetches (an image URL, a stylesheet, a markdown image) is a network
 * the sandboxed code was denied. So only data representations pass (plain text, JSON, raster images as data), HTML
 * passes through jsoup's allowlist without scripts, handlers, styles or anything that loads a URL, and every other
 * type (JavaScript, SVG, Markdown, LaTeX, widget views…) is withheld with a plain-text note saying so.
 */
final class NotebookOutputs {

    /** Passed as they are: data the page shows, never runs or fetches. */
    private static final Set<String> DATA = Set.of(MimeBundle.TEXT_PLAIN, "application/json", MimeBundle.IMAGE_PNG,
            "image/jpeg", "image/gif");

    /** HTML as tables and formatted text: no script, handler, style, form, frame, image or other fetched resource. */
    private static final Safelist HTML = Safelist.relaxed().removeTags("img")
            .addAttributes("table", "border").addAttributes(":all", "class");

    private NotebookOutputs() {
    }

    /** The representations of a bundle the notebook page may render. */
    static MimeBundle forNotebook(MimeBundle bundle) {
        Map<String, String> kept = new TreeMap<>();
        Set<String> withheld = new TreeSet<>();
        for (Map.Entry<String, String> e : bundle.data().entrySet()) {
            String type = e.getKey();
            if (DATA.contains(type)) {
                kept.put(type, e.getValue());
            } else if (type.equals("text/html")) {
                kept.put(type, Jsoup.clean(e.getValue(), HTML));
            } else {
                withheld.add(type);
            }
        }
        if (kept.isEmpty()) {
            kept.put(MimeBundle.TEXT_PLAIN, "[not shown: " + String.join(", ", withheld) + " from the sandbox is not passed to"
                    + " the notebook, where it could run script or fetch URLs in your browser]");
        }
        return new MimeBundle(kept);
    }

    /** Text made safe inside HTML. */
    static String escape(String text) {
        StringBuilder s = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> s.append("&lt;");
                case '>' -> s.append("&gt;");
                case '&' -> s.append("&amp;");
                case '"' -> s.append("&quot;");
                case '\'' -> s.append("&#39;");
                default -> s.append(c);
            }
        }
        return s.toString();
    }
}
