package dev.codeagent.application.config;

/** A number of bytes, written in config as {@code 256m}, {@code 64k} or plain bytes. */
public record ByteSize(long bytes) {

    public ByteSize {
        if (bytes < 0) {
            throw new IllegalArgumentException("a size cannot be negative: " + bytes);
        }
    }

    public static ByteSize parse(String text) {
        return new ByteSize(Units.parseBytes(text));
    }

    public static ByteSize ofMiB(long mib) {
        return new ByteSize(mib * 1024 * 1024);
    }

    @Override
    public String toString() {
        return Units.formatBytes(bytes);
    }
}
