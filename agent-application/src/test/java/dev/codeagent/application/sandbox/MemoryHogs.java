package dev.codeagent.application.sandbox;

import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A contest program that runs out of memory, in every language: it touches 1 GiB in steps of 8 MiB (every page
 * written, so each step is charged at once) and after each step writes {@code <step> <epoch ms>} to stdout unbuffered.
 * The last line a run printed is the last moment its memory was still under the limit, so the time from it to the
 * run's end bounds from above how long the sandbox took from the breach to the kill. Wall-clock milliseconds, not a
 * monotonic clock: they mean the same inside a container or gVisor as in the JVM that reads them. Shared by the memory
 * verdict suite and {@code benchmarks/scripts/memory-verdict.sh}.
 */
public final class MemoryHogs {

    /** Bytes each step touches. */
    public static final long STEP_BYTES = 8L << 20;
    /** Steps to 1 GiB. */
    public static final int STEPS = 128;

    private static final Map<Language, String> SOURCES = Map.of(
            Language.PYTHON, """
                    import os, time
                    held = []
                    for i in range(128):
                        held.append(bytearray(b'\\x01') * (8 << 20))
                        os.write(1, b'%d %d\\n' % (i, time.time_ns() // 1000000))
                    """,
            Language.JAVASCRIPT, """
                    const fs = require('fs');
                    const held = [];
                    for (let i = 0; i < 128; i++) {
                        held.push(Buffer.alloc(8 << 20, 1));
                        fs.writeSync(1, i + ' ' + Date.now() + '\\n');
                    }
                    """,
            Language.C, """
                    #include <stdio.h>
                    #include <stdlib.h>
                    #include <string.h>
                    #include <sys/time.h>
                    #include <unistd.h>
                    int main(void) {
                        char line[64];
                        for (int i = 0; i < 128; i++) {
                            char *p = malloc(8 << 20);
                            if (!p) return 7;
                            memset(p, 1, 8 << 20);
                            struct timeval tv;
                            gettimeofday(&tv, NULL);
                            int n = snprintf(line, sizeof line, "%d %lld\\n", i, tv.tv_sec * 1000LL + tv.tv_usec / 1000);
                            if (write(1, line, n) != n) return 8;
                        }
                        return 0;
                    }
                    """,
            Language.GO, """
                    package main
                    import ("fmt"; "os"; "time")
                    var held [][]byte
                    func main() {
                        for i := 0; i < 128; i++ {
                            b := make([]byte, 8<<20)
                            for j := range b { b[j] = 1 }
                            held = append(held, b)
                            fmt.Fprintf(os.Stdout, "%d %d\\n", i, time.Now().UnixMilli())
                        }
                    }
                    """,
            Language.JAVA, """
                    import java.util.ArrayList;
                    import java.util.Arrays;
                    import java.util.List;
                    public class Main {
                        public static void main(String[] args) {
                            List<byte[]> held = new ArrayList<>();
                            for (int i = 0; i < 128; i++) {
                                byte[] b = new byte[8 << 20];
                                Arrays.fill(b, (byte) 1);
                                held.add(b);
                                System.out.println(i + " " + System.currentTimeMillis());
                                System.out.flush();
                            }
                        }
                    }
                    """);

    /** The languages there is a hog for: the contest languages. */
    public static final List<Language> LANGUAGES = List.of(Language.PYTHON, Language.C, Language.GO, Language.JAVA,
            Language.JAVASCRIPT);

    private MemoryHogs() {
    }

    /** The hog in {@code language}. */
    public static Program program(Language language) {
        String source = SOURCES.get(language);
        if (source == null) {
            throw new IllegalArgumentException("no memory hog in " + language.id());
        }
        return new Program(language, source);
    }

    /** A step a hog reported: how many steps were done and when (epoch ms). */
    public record Step(int index, long epochMillis) {
    }

    /** The first and the last step a run printed; empty when it printed none (it died in its first step). */
    public static Optional<Step[]> firstAndLast(String stdout) {
        Step first = null;
        Step last = null;
        for (String line : stdout.split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length != 2 || !f[0].matches("\\d{1,3}") || !f[1].matches("\\d{10,16}")) {
                continue;
            }
            Step s = new Step(Integer.parseInt(f[0]), Long.parseLong(f[1]));
            if (first == null) {
                first = s;
            }
            last = s;
        }
        return first == null ? Optional.empty() : Optional.of(new Step[] {first, last});
    }
}
