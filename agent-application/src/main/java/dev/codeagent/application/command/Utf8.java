package dev.codeagent.application.command;

/** Sizes of text as the sandbox will hold it: the doors cap code, arguments and files in bytes, not characters. */
public final class Utf8 {

    private Utf8() {
    }

    /** The length of {@code s} encoded as UTF-8, counted without encoding it. */
    public static long bytes(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            // a surrogate pair is 4 bytes in UTF-8: 2 per half
            n += c < 0x80 ? 1 : c < 0x800 || Character.isSurrogate(c) ? 2 : 3;
        }
        return n;
    }
}
