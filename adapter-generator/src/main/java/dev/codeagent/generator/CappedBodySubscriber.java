package dev.codeagent.generator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Collects a response body as UTF-8 text (JSON is UTF-8, RFC 8259) but gives up, cancelling the
 * stream, once it passes a cap: a misbehaving endpoint must not exhaust the heap.
 */
final class CappedBodySubscriber implements HttpResponse.BodySubscriber<String> {

    /** The body passed the cap. */
    static final class TooLargeException extends IOException {
        private static final long serialVersionUID = 1L;

        TooLargeException(long cap) {
            super("the response body is larger than " + (cap >> 20) + " MiB");
        }
    }

    private final long cap;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CompletableFuture<String> result = new CompletableFuture<>();
    private Flow.Subscription subscription;

    CappedBodySubscriber(long cap) {
        this.cap = cap;
    }

    @Override
    public CompletionStage<String> getBody() {
        return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        if (result.isDone()) {
            return;
        }
        for (ByteBuffer item : items) {
            if ((long) bytes.size() + item.remaining() > cap) {
                subscription.cancel();
                result.completeExceptionally(new TooLargeException(cap));
                return;
            }
            byte[] chunk = new byte[item.remaining()];
            item.get(chunk);
            bytes.write(chunk, 0, chunk.length);
        }
    }

    @Override
    public void onError(Throwable throwable) {
        result.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
        result.complete(new String(bytes.toByteArray(), StandardCharsets.UTF_8));
    }
}
