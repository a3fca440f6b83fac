package dev.codeagent.kit.sandbox;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * One output stream of a live run decoded as UTF-8 chunk by chunk: a character split between two reads comes whole
 * in the later one; malformed bytes become U+FFFD. Not thread-safe: one stream's chunks, one at a time.
 */
public final class Utf8Chunks {

    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
    private byte[] rest = new byte[0];

    /**
     * @param end whether the stream is over: an incomplete character left at its end is decoded as U+FFFD
     * @return the text of the whole characters so far not returned
     */
    public String decode(byte[] b, int off, int len, boolean end) {
        ByteBuffer in = ByteBuffer.allocate(rest.length + len);
        in.put(rest).put(b, off, len).flip();
        CharBuffer chars = CharBuffer.allocate(in.remaining() + 4);
        decoder.decode(in, chars, end);
        if (end) {
            decoder.flush(chars);
            decoder.reset();
        }
        rest = new byte[in.remaining()];
        in.get(rest);
        chars.flip();
        return chars.toString();
    }
}
