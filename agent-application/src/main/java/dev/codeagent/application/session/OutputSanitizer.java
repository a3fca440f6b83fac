package dev.codeagent.application.session;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.MimeBundle;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Attribute;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.select.NodeFilter;
import org.jsoup.select.NodeTraversor;

/**
 * What of a sandboxed cell's rich output may leave the sandbox for a place that renders it: the Jupyter page, the
 * HTTP API's cell results, an exported notebook (and {@code jupyter nbconvert --to html} of it), the CLI's image
 * files. The one policy for all of them.
 *
 * <p>A viewer trusts what it renders: Jupyter trusts the outputs of a cell run in the current session, nbconvert
 * copies {@code text/html}, {@code image/svg+xml} and {@code application/javascript} into the page as they are, and a
 * browser runs them next to the Jupyter server's token or whatever else the viewer's origin holds. The code that made
 * the output is the adversary's, so the rules are allow-lists, never a list of bad things:
 *
 * <ul>
 *   <li>MIME types: only {@link #KEPT} pass. {@code text/plain} and JSON are data that every viewer escapes; raster
 *       images pass only as strict base64 whose bytes start with that format's signature (a "PNG" that is really
 *       {@code "><script>} cannot close the {@code src="data:…"} attribute nbconvert puts it in). Everything else —
 *       JavaScript, SVG, Markdown, LaTeX, widget views, vendor JSON renderers — is removed: each can run script or fetch
 *       a URL in some viewer, and none can be made inert without a second parser of its own.</li>
 *   <li>HTML is never passed on as it came. It is parsed (jsoup's HTML5 parser) and a <em>new</em> document is written
 *       from the parse: only the elements of {@link #TAGS} with the attributes of {@link #ATTRIBUTES} (none of which
 *       holds a URL, a style or script), every text and attribute value escaped ({@code & < > " '}), no comment. Any
 *       other element is dropped with what is inside it when it is one whose content is not text ({@link #DROPPED}:
 *       script, style, svg, math, iframe, template…), else replaced by its content.</li>
 * </ul>
 *
 * <p>Why that is safe whatever the input (no {@code <scr<script>ipt>}, entity, case or quoting trick, no
 * namespace-confusion mXSS): the output is built only from our own tokens, so how jsoup understood the input cannot
 * matter. A browser reads it in the data state throughout, because no allowed element switches the tokenizer
 * (no raw-text, RCDATA, foreign or template element is allowed); so every {@code <} it sees is one we wrote, and the
 * tags it builds are the allowed ones, each with quoted, escaped, URL-free attributes. However it re-nests them
 * (tables foster-parent, paragraphs close), it can only rearrange inert elements and text. The same holds in any
 * context the fragment lands in that accepts flow content, which is where Jupyter and nbconvert put it.
 *
 * <p>Nothing is removed silently: a bundle left with nothing gets a plain-text note naming the removed types, and
 * cleaned HTML ends with a note saying content was removed. The sanitizer is idempotent: its output passes unchanged.
 */
public final class OutputSanitizer {

    /** Representations that pass (checked as described above). */
    public static final Set<String> KEPT = Set.of(MimeBundle.TEXT_PLAIN, "text/html", "application/json",
            "application/vnd.dataresource+json", "image/png", "image/jpeg", "image/gif", "image/webp");

    /** Elements kept in HTML: tables and formatted text. No URL, form, media, script, frame or foreign content. */
    static final Set<String> TAGS = Set.of("table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "colgroup",
            "col", "p", "div", "span", "br", "hr", "b", "i", "u", "s", "em", "strong", "small", "sub", "sup", "code",
            "pre", "kbd", "samp", "var", "del", "ins", "mark", "abbr", "cite", "q", "blockquote", "h1", "h2", "h3", "h4",
            "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd");

    /** Attributes kept, by element ("*": any kept element), with what their value must look like. */
    private static final Map<String, Pattern> ATTRIBUTES = Map.of(
            "*:class", Pattern.compile("[A-Za-z0-9_ -]{0,200}"),
            "*:title", Pattern.compile("[^\\p{Cntrl}]{0,200}"),
            "*:align", Pattern.compile("(?i)left|right|center|justify"),
            "*:valign", Pattern.compile("(?i)top|middle|bottom|baseline"),
            "table:border", Pattern.compile("[0-9]{1,2}"),
            "td:colspan", Pattern.compile("[0-9]{1,3}"),
            "td:rowspan", Pattern.compile("[0-9]{1,3}"),
            "th:colspan", Pattern.compile("[0-9]{1,3}"),
            "th:rowspan", Pattern.compile("[0-9]{1,3}"),
            "ol:start", Pattern.compile("[0-9]{1,6}"));

    /** Elements whose content goes with them: it is not text a reader meant to see (code, styles, foreign markup). */
    static final Set<String> DROPPED = Set.of("script", "style", "template", "svg", "math", "iframe", "frame",
            "frameset", "object", "embed", "applet", "noscript", "noembed", "noframes", "textarea", "select", "option",
            "title", "head", "xmp", "plaintext", "canvas", "audio", "video", "picture", "source", "track", "link", "meta",
            "base", "input", "button", "portal", "param", "img", "image", "area", "map");

    /** Elements without an end tag. */
    private static final Set<String> VOID = Set.of("br", "hr", "col");

    /** Said at the end of HTML that lost something; its own words must pass this sanitizer unchanged. */
    static final String REMOVED_NOTE = "<p class=\"codeagent-removed\">[codeagent: active or fetching content was removed"
            + " from this output]</p>";

    private static final Pattern BASE64 = Pattern.compile("[A-Za-z0-9+/]*={0,2}");
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private OutputSanitizer() {
    }

    /** A cell's result with every output sanitized. */
    public static CellResult result(CellResult r) {
        List<CellOutput> outputs = new ArrayList<>(r.outputs().size());
        r.outputs().forEach(o -> outputs.add(output(o)));
        return new CellResult(r.status(), r.executionCount(), r.duration(), r.stateLost(), outputs, r.message());
    }

    /** An output with its MIME bundle sanitized; streams and errors are text, escaped by every viewer. */
    public static CellOutput output(CellOutput o) {
        if (o instanceof CellOutput.DisplayData d) {
            return new CellOutput.DisplayData(bundle(d.data()));
        }
        if (o instanceof CellOutput.ExecuteResult e) {
            return new CellOutput.ExecuteResult(e.executionCount(), bundle(e.data()));
        }
        return o;
    }

    /** The representations of a bundle a viewer may render; at least one (a note when nothing else is left). */
    public static MimeBundle bundle(MimeBundle bundle) {
        Map<String, String> kept = new TreeMap<>();
        Set<String> removed = new TreeSet<>();
        for (Map.Entry<String, String> e : bundle.data().entrySet()) {
            String type = e.getKey();
            String value = KEPT.contains(type) ? representation(type, e.getValue()) : null;
            if (value == null) {
                removed.add(type);
            } else {
                kept.put(type, value);
            }
        }
        if (kept.isEmpty()) {
            kept.put(MimeBundle.TEXT_PLAIN, "[not shown: " + String.join(", ", removed) + " from the sandbox is not passed to"
                    + " the notebook, where it could run script or fetch URLs in your browser]");
        }
        return new MimeBundle(kept);
    }

    /** The value as it may pass, or null when it may not. */
    private static String representation(String type, String value) {
        return switch (type) {
            case MimeBundle.TEXT_PLAIN -> value;
            case "text/html" -> {
                String html = html(value);
                yield html.isBlank() ? null : html;
            }
            case "application/json", "application/vnd.dataresource+json" -> isJson(value) ? value : null;
            default -> image(type, value);
        };
    }

    private static boolean isJson(String value) {
        try {
            JSON.readTree(value);
            return !value.isBlank();
        } catch (IOException e) {
            return false;
        }
    }

    /** Strict base64 (whitespace aside) of bytes that begin with the type's signature, re-encoded; else null. */
    private static String image(String type, String value) {
        String compact = value.replaceAll("\\s+", "");
        if (!BASE64.matcher(compact).matches()) {
            return null;
        }
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(compact);
        } catch (IllegalArgumentException e) {
            return null;
        }
        boolean signed = switch (type) {
            case "image/png" -> startsWith(bytes, 0, 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A);
            case "image/jpeg" -> startsWith(bytes, 0, 0xFF, 0xD8, 0xFF);
            case "image/gif" -> startsWith(bytes, 0, 'G', 'I', 'F', '8');
            case "image/webp" -> startsWith(bytes, 0, 'R', 'I', 'F', 'F') && startsWith(bytes, 8, 'W', 'E', 'B', 'P');
            default -> false;
        };
        return signed ? compact : null;
    }

    private static boolean startsWith(byte[] bytes, int at, int... signature) {
        if (bytes.length < at + signature.length) {
            return false;
        }
        for (int i = 0; i < signature.length; i++) {
            if ((bytes[at + i] & 0xFF) != signature[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * HTML rebuilt from its parse with only the allowed elements and attributes, text escaped; ends with
     * {@link #REMOVED_NOTE} when anything was left out. Iterative: a deeply nested input cannot overflow the stack.
     */
    public static String html(String dirty) {
        Element body = Jsoup.parseBodyFragment(dirty).body();
        StringBuilder out = new StringBuilder(dirty.length() + 64);
        boolean[] removed = {false};
        NodeTraversor.filter(new NodeFilter() {
            @Override
            public FilterResult head(Node node, int depth) {
                if (node == body) {
                    return FilterResult.CONTINUE;
                }
                if (node instanceof TextNode t) {
                    out.append(escape(t.getWholeText()));
                    return FilterResult.CONTINUE;
                }
                if (!(node instanceof Element e)) {
                    // comments, CDATA, data of dropped elements, doctype: never written
                    removed[0] |= !(node instanceof org.jsoup.nodes.Comment);
                    return FilterResult.SKIP_ENTIRELY;
                }
                String tag = e.normalName();
                if (!e.tag().namespace().equals(org.jsoup.parser.Parser.NamespaceHtml) || DROPPED.contains(tag)) {
                    removed[0] = true;
                    return FilterResult.SKIP_ENTIRELY;
                }
                if (!TAGS.contains(tag)) {
                    removed[0] = true;
                    return FilterResult.CONTINUE;
                }
                out.append('<').append(tag);
                for (Attribute a : e.attributes()) {
                    String name = a.getKey().toLowerCase(java.util.Locale.ROOT);
                    Pattern allowed = ATTRIBUTES.get(tag + ":" + name);
                    allowed = allowed != null ? allowed : ATTRIBUTES.get("*:" + name);
                    if (allowed != null && allowed.matcher(a.getValue()).matches()) {
                        out.append(' ').append(name).append("=\"").append(escape(a.getValue())).append('"');
                    } else {
                        removed[0] = true;
                    }
                }
                out.append('>');
                return FilterResult.CONTINUE;
            }

            @Override
            public FilterResult tail(Node node, int depth) {
                if (node instanceof Element e && node != body && TAGS.contains(e.normalName()) && !VOID.contains(e.normalName())
                        && e.tag().namespace().equals(org.jsoup.parser.Parser.NamespaceHtml)) {
                    out.append("</").append(e.normalName()).append('>');
                }
                return FilterResult.CONTINUE;
            }
        }, body);
        if (removed[0]) {
            out.append(REMOVED_NOTE);
        }
        return out.toString();
    }

    /** Text made safe inside HTML, as element content or a quoted attribute value. */
    public static String escape(String text) {
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
