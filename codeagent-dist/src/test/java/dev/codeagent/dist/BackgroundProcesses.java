package dev.codeagent.dist;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The real launcher with its background process, in a runtime directory of the test's own
 * ({@code XDG_RUNTIME_DIR}), and the background processes found the way a user would: every process on the host
 * whose command line is the CliServer for a socket in that directory.
 */
final class BackgroundProcesses implements AutoCloseable {

    record Result(int status, String out, String err, long millis) {
    }

    final Path runtime;
    final Path dir;
    final Path config;

    BackgroundProcesses(Path dir) throws IOException {
        this.dir = dir;
        this.runtime = Files.createDirectory(dir.resolve("runtime"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        this.config = Files.writeString(dir.resolve("config.yaml"), "store:\n  kind: memory\n");
    }

    static Path root() {
        return Path.of(System.getenv().getOrDefault("CODEAGENT_REPO_ROOT", "..")).toAbsolutePath().normalize();
    }

    /** Runs {@code prefix... ./codeagent args...} with the background process allowed, and waits for it. */
    Result run(String stdin, List<String> prefix, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(prefix);
        command.add(root().resolve("codeagent").toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        Map<String, String> env = pb.environment();
        env.put("CODEAGENT_SKIP_BUILD", "1");
        env.put("CODEAGENT_NO_DAEMON", "0");
        env.put("CODEAGENT_CONFIG", config.toString());
        env.put("XDG_RUNTIME_DIR", runtime.toString());
        String name = Long.toString(System.nanoTime());
        pb.redirectOutput(dir.resolve(name + ".out").toFile()).redirectError(dir.resolve(name + ".err").toFile());
        long t0 = System.nanoTime();
        Process p = pb.start();
        p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the launcher did not finish in 90s: " + command);
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        return new Result(p.exitValue(), Files.readString(dir.resolve(name + ".out")), Files.readString(dir.resolve(name + ".err")), ms);
    }

    Result exec(String code, List<String> prefix, String... flags) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("exec"));
        args.addAll(List.of(flags));
        args.add("-");
        return run(code, prefix, args.toArray(String[]::new));
    }

    /** The socket the launcher chose for this checkout. */
    Path socket() throws IOException {
        try (Stream<Path> files = Files.list(runtime.resolve("codeagent"))) {
            return files.filter(f -> f.getFileName().toString().matches("cli-\\d+\\.sock")).findFirst()
                    .orElseThrow(() -> new AssertionError("no socket in " + runtime));
        }
    }

    /** Pids of the background processes serving a socket in this test's runtime directory, across all pid namespaces. */
    List<Long> pids() throws IOException {
        String marker = "--socket\0" + runtime.resolve("codeagent");
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                String cmdline;
                try {
                    cmdline = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8);
                } catch (IOException gone) {
                    continue;
                }
                if (cmdline.contains("dev.codeagent.cli.daemon.CliServer") && cmdline.contains(marker)) {
                    pids.add(Long.parseLong(p.getFileName().toString()));
                }
            }
        }
        return pids;
    }

    /** The number of threads of a process, from /proc. */
    static int threads(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("Threads:")) {
                return Integer.parseInt(line.substring(8).trim());
            }
        }
        throw new AssertionError("no thread count for " + pid);
    }

    /** Stops every background process of this runtime directory and waits for them to go. */
    @Override
    public void close() throws IOException, InterruptedException {
        for (long pid : pids()) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!pids().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        for (long pid : pids()) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }
}
