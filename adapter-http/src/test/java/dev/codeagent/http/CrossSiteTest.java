package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.http.ProblemException.Type;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CrossSiteTest {

    private final CrossSite authOff = new CrossSite(true, "127.0.0.1");
    private final CrossSite authOn = new CrossSite(false, "127.0.0.1");

    private static CrossSite.Seen post(String host, String origin) {
        return new CrossSite.Seen("POST", host, origin, null, false, false);
    }

    private static Optional<Type> type(Optional<ProblemException> refusal) {
        return refusal.map(ProblemException::type);
    }

    @Test
    void aForeignOriginMayNotChangeAnything() {
        for (String method : new String[] {"POST", "PUT", "PATCH", "DELETE", "post"}) {
            Optional<ProblemException> r = authOn.refusal(new CrossSite.Seen(method, "127.0.0.1:8080", "https://evil.example",
                    null, false, false));
            assertThat(type(r)).as(method).hasValue(Type.CROSS_SITE);
            assertThat(r.get().getMessage()).contains("'https://evil.example'", "not for cross-site use", "curl");
        }
        // the same host on another port is another origin (another program of this machine)
        assertThat(type(authOn.refusal(post("localhost:8080", "http://localhost:3000")))).hasValue(Type.CROSS_SITE);
        assertThat(type(authOn.refusal(post("localhost:8080", "http://127.0.0.1:8080")))).hasValue(Type.CROSS_SITE);
        // the opaque origin of a sandboxed frame, a file, a redirect
        assertThat(type(authOn.refusal(post("localhost:8080", "null")))).hasValue(Type.CROSS_SITE);
        assertThat(type(authOn.refusal(post("localhost:8080", "not an origin")))).hasValue(Type.CROSS_SITE);
        assertThat(type(authOn.refusal(post(null, "http://localhost:8080")))).hasValue(Type.CROSS_SITE);
    }

    @Test
    void theServersOwnOriginPasses() {
        assertThat(authOff.refusal(post("localhost:8080", "http://localhost:8080"))).isEmpty();
        assertThat(authOff.refusal(post("LocalHost:8080", "http://localhost:8080"))).isEmpty();
        assertThat(authOff.refusal(post("127.0.0.1:8080", "http://127.0.0.1:8080"))).isEmpty();
        assertThat(authOff.refusal(post("[::1]:8080", "http://[::1]:8080"))).isEmpty();
        // behind a TLS proxy: https://name, no port in Host
        assertThat(authOn.refusal(post("codeagent.example", "https://codeagent.example"))).isEmpty();
        assertThat(authOn.refusal(post("codeagent.example:443", "https://codeagent.example"))).isEmpty();
        assertThat(authOn.refusal(post("codeagent.example", "http://codeagent.example:8080"))).isNotEmpty();
        // a proxy on a port of its own must pass the port on (nginx's $http_host; its $host drops it, and is refused
        // above): a Host without a port is a browser's request to port 80 or 443, and another program of the machine
        // on another port would pass if any port were taken for it
        assertThat(authOn.refusal(post("codeagent.example:8443", "https://codeagent.example:8443"))).isEmpty();
        assertThat(authOn.refusal(post("codeagent.example", "https://codeagent.example:8443")).orElseThrow().getMessage())
                .contains("names no port", "$http_host");
        assertThat(authOn.refusal(post("codeagent.example", "https://evil.example:8443")).orElseThrow().getMessage())
                .doesNotContain("$http_host");
        assertThat(authOff.refusal(post("localhost", "http://localhost:3000"))).isNotEmpty();
        // no Origin: curl, an SDK, an agent
        assertThat(authOff.refusal(post("localhost:8080", null))).isEmpty();
    }

    @Test
    void readingIsNotRefusedButAWebSocketAndMcpAre() {
        CrossSite.Seen get = new CrossSite.Seen("GET", "127.0.0.1:8080", "https://evil.example", null, false, false);
        assertThat(authOn.refusal(get)).isEmpty();
        assertThat(authOn.refusal(new CrossSite.Seen("OPTIONS", "127.0.0.1:8080", "https://evil.example", null, false, false)))
                .isEmpty();
        assertThat(type(authOn.refusal(new CrossSite.Seen("GET", "127.0.0.1:8080", "https://evil.example", null, true, false))))
                .hasValue(Type.CROSS_SITE);
        assertThat(type(authOn.refusal(new CrossSite.Seen("GET", "127.0.0.1:8080", "https://evil.example", null, false, true))))
                .hasValue(Type.CROSS_SITE);
        assertThat(authOn.refusal(new CrossSite.Seen("GET", "127.0.0.1:8080", "http://127.0.0.1:8080", null, true, true)))
                .isEmpty();
    }

    @Test
    void aReadingRequestFromAnotherPageIsToldApart() {
        // what is let through but a page sent, for a rate limit of its own
        assertThat(CrossSite.fromAnotherPage(new CrossSite.Seen("GET", "127.0.0.1:8080", "https://evil.example", null, false,
                false))).isTrue();
        assertThat(CrossSite.fromAnotherPage(new CrossSite.Seen("GET", "127.0.0.1:8080", null, "cross-site", false, false)))
                .isTrue();
        assertThat(CrossSite.fromAnotherPage(new CrossSite.Seen("GET", "127.0.0.1:8080", null, "same-site", false, false)))
                .isTrue();
        assertThat(CrossSite.fromAnotherPage(new CrossSite.Seen("GET", "127.0.0.1:8080", "http://127.0.0.1:8080",
                "same-origin", false, false))).isFalse();
        assertThat(CrossSite.fromAnotherPage(new CrossSite.Seen("GET", "127.0.0.1:8080", null, "none", false, false))).isFalse();
        assertThat(CrossSite.fromAnotherPage(new CrossSite.Seen("GET", "127.0.0.1:8080", null, null, false, false))).isFalse();
    }

    @Test
    void withoutOriginSecFetchSiteTells() {
        for (String site : new String[] {"cross-site", "same-site", "Cross-Site"}) {
            Optional<ProblemException> r = authOn.refusal(new CrossSite.Seen("POST", "127.0.0.1:8080", null, site, false, false));
            assertThat(type(r)).as(site).hasValue(Type.CROSS_SITE);
            assertThat(r.get().getMessage()).contains("Sec-Fetch-Site: " + site);
        }
        assertThat(authOn.refusal(new CrossSite.Seen("POST", "127.0.0.1:8080", null, "same-origin", false, false))).isEmpty();
        assertThat(authOn.refusal(new CrossSite.Seen("POST", "127.0.0.1:8080", null, "none", false, false))).isEmpty();
        assertThat(authOn.refusal(new CrossSite.Seen("GET", "127.0.0.1:8080", null, "cross-site", false, false))).isEmpty();
    }

    @Test
    void withAuthOffOnlyTheMachinesNamesAreAnswered() {
        for (String host : new String[] {"localhost", "localhost:8080", "LOCALHOST.", "console.localhost:8080", "127.0.0.1:8080",
                "10.1.2.3", "[::1]:8080", "[fe80::1]"}) {
            assertThat(authOff.refusal(new CrossSite.Seen("GET", host, null, null, false, false))).as(host).isEmpty();
        }
        for (String host : new String[] {"evil.example", "evil.example:8080", "127.0.0.1.evil.example", "localhost.evil.example",
                "1.2.3.4.nip.io:8080"}) {
            Optional<ProblemException> r = authOff.refusal(new CrossSite.Seen("GET", host, null, null, false, false));
            assertThat(type(r)).as(host).hasValue(Type.UNKNOWN_HOST);
            assertThat(r.get().status()).isEqualTo(421);
            assertThat(r.get().getMessage()).contains("'" + host + "'", "DNS rebinding", "http.host (127.0.0.1)", "turn auth on");
        }
        // the rebinding page is same-origin to itself: the Host alone gives it away
        assertThat(type(authOff.refusal(post("evil.example:8080", "http://evil.example:8080")))).hasValue(Type.UNKNOWN_HOST);
        // with auth on the key protects: any name
        assertThat(authOn.refusal(new CrossSite.Seen("GET", "evil.example:8080", null, null, false, false))).isEmpty();
        assertThat(authOn.refusal(post("evil.example:8080", "http://evil.example:8080"))).isEmpty();
    }

    @Test
    void theConfiguredHostIsOneOfTheNames() {
        CrossSite named = new CrossSite(true, "Build-Box");
        assertThat(named.refusal(new CrossSite.Seen("GET", "build-box:8080", null, null, false, false))).isEmpty();
        assertThat(named.refusal(new CrossSite.Seen("GET", "other-box:8080", null, null, false, false))).isNotEmpty();
        CrossSite v6 = new CrossSite(true, "::1");
        assertThat(dev.codeagent.application.host.HostNames.of("::1")).isEqualTo("[::1]");
        assertThat(v6.refusal(new CrossSite.Seen("GET", "[::1]:8080", null, null, false, false))).isEmpty();
    }
}
