package dev.codeagent.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Checks API keys against their configured SHA-256 hashes. A key arrives as
 * {@code Authorization: Bearer KEY} or, for clients that can only put credentials in a URL
 * (Piston clients: {@code http://any:KEY@host/}), as HTTP Basic with the key as the password.
 *
 * <p>The presented key is hashed and compared with every configured hash in constant time, all of
 * them every time, so neither the key nor which entry matched leaks through timing.
 */
final class ApiKeys {

    private final List<HttpConfig.ApiKey> keys;
    private final List<byte[]> hashes;

    ApiKeys(List<HttpConfig.ApiKey> keys) {
        this.keys = List.copyOf(keys);
        this.hashes = keys.stream().map(k -> HexFormat.of().parseHex(k.sha256())).toList();
    }

    /** The hex SHA-256 of a key, as it goes into {@code http.auth.keys[].sha256}. */
    static String sha256Hex(String key) {
        return HexFormat.of().formatHex(sha256(key.getBytes(StandardCharsets.UTF_8)));
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /** The key an Authorization header carries, if it is well-formed. */
    static Optional<String> presented(String authorization) {
        if (authorization == null) {
            return Optional.empty();
        }
        String h = authorization.trim();
        int space = h.indexOf(' ');
        if (space < 0) {
            return Optional.empty();
        }
        String scheme = h.substring(0, space).toLowerCase(Locale.ROOT);
        String value = h.substring(space + 1).trim();
        if (value.isEmpty() || value.length() > 4096) {
            return Optional.empty();
        }
        if (scheme.equals("bearer")) {
            return Optional.of(value);
        }
        if (scheme.equals("basic")) {
            try {
                String pair = new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
                int colon = pair.indexOf(':');
                return colon < 0 || colon == pair.length() - 1 ? Optional.empty() : Optional.of(pair.substring(colon + 1));
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** The configured key whose hash matches, if any. */
    Optional<HttpConfig.ApiKey> find(String presentedKey) {
        byte[] digest = sha256(presentedKey.getBytes(StandardCharsets.UTF_8));
        HttpConfig.ApiKey match = null;
        for (int i = 0; i < hashes.size(); i++) {
            // no early exit: every comparison is made, each in constant time
            if (MessageDigest.isEqual(digest, hashes.get(i)) && match == null) {
                match = keys.get(i);
            }
        }
        return Optional.ofNullable(match);
    }

    boolean isEmpty() {
        return keys.isEmpty();
    }
}
