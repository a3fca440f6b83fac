package dev.codeagent.application.host;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The names a server on this machine answers when nothing else (an API key) tells a browser's page from its user:
 * a DNS-rebinding page reaches a loopback server by a DNS name it controls, so only names no page can control are
 * answered. Every listener of ours that checks a {@code Host} header (the HTTP door, a worker's metrics) asks here,
 * so the rule and the parsing of a header are the same at each.
 */
public final class HostNames {

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    private HostNames() {
    }

    /**
     * The host of a {@code Host} header or of an address, lower-case, without the port or a trailing dot; an IPv6
     * address keeps its brackets (a bare one, as a configured host may give it, gets them).
     */
    public static String of(String host) {
        String h = host.trim().toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            return end < 0 ? h : h.substring(0, end + 1);
        }
        if (h.indexOf(':') != h.lastIndexOf(':')) {
            return "[" + h + "]";
        }
        int colon = h.indexOf(':');
        if (colon >= 0) {
            h = h.substring(0, colon);
        }
        return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
    }

    /**
     * Whether {@code name} (from {@link #of}) is one no web page controls: localhost, a {@code *.localhost} name, an
     * IP literal, or {@code configured} (the name the listener was told to use, from {@link #of}).
     */
    public static boolean noPageControls(String name, String configured) {
        // a rebinding page needs a name it controls; an address in Host names no one's page, nor does localhost
        return name.equals("localhost") || name.endsWith(".localhost") || name.equals(configured)
                || IPV4.matcher(name).matches() || (name.startsWith("[") && name.endsWith("]"));
    }
}
