package dev.codeagent.kit.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ArrivalOrderTest {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void interleavesTheStreamsAsTheirChunksCame() {
        ArrivalOrder order = new ArrivalOrder();
        order.kept(ArrivalOrder.STDOUT, 2);   // "a\n"
        order.kept(ArrivalOrder.STDERR, 2);   // "b\n"
        order.kept(ArrivalOrder.STDOUT, 4);   // "c\n"
        order.kept(ArrivalOrder.STDOUT, 6);   // "d\n", one note with the one before
        order.kept(ArrivalOrder.STDERR, 2);   // refused by the cap: nothing
        byte[] out = utf8("a\nc\nd\n");
        byte[] err = utf8("b\n");
        assertThat(order.merge(out, out.length, err, err.length, false).text()).isEqualTo("a\nb\nc\nd\n");
    }

    @Test
    void finalBuffersShorterThanNotedWinAndUnnotedTailsComeLast() {
        ArrivalOrder order = new ArrivalOrder();
        order.kept(ArrivalOrder.STDERR, 10);  // "err\n" + a 6-byte report taken off afterwards
        order.kept(ArrivalOrder.STDOUT, 3);
        byte[] out = utf8("outMORE");     // 4 bytes beyond the last note: flushed at the end
        byte[] err = utf8("err\nREPORT");
        var merged = order.merge(out, out.length, err, 4, true);
        assertThat(merged.text()).isEqualTo("err\noutMORE");
        assertThat(merged.truncated()).isTrue();
    }

    @Test
    void keepsAUtf8SequenceSplitAcrossChunksWhole() {
        ArrivalOrder order = new ArrivalOrder();
        byte[] out = utf8("xé");          // 'x', 0xC3, 0xA9
        order.kept(ArrivalOrder.STDOUT, 2);  // the read ended inside 'é'
        order.kept(ArrivalOrder.STDERR, 1);
        order.kept(ArrivalOrder.STDOUT, 3);
        byte[] err = utf8("!");
        assertThat(order.merge(out, out.length, err, err.length, false).text()).isEqualTo("x!é");
    }
}
