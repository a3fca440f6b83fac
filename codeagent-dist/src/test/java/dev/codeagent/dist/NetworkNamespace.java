package dev.codeagent.dist;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A network namespace of its own, as a separate machine would have: its own loopback and one veth link to this
 * namespace ({@code 10.231.N.1} here, {@code 10.231.N.2} there) and nothing else. The database stays on this
 * namespace's loopback; {@link #forward} offers one of its ports on the link, so a process in the namespace reaches
 * it as another machine reaches a database host. Needs root and iproute2; removed on close.
 */
final class NetworkNamespace implements AutoCloseable {

    private final String name;
    private final int n;
    private final List<ServerSocket> forwards = new ArrayList<>();

    private NetworkNamespace(String name, int n) {
        this.name = name;
        this.n = n;
    }

    /** Why namespaces cannot be made here, or null when they can. */
    static String unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "network namespaces need root";
        }
        if (!Files.isExecutable(Path.of("/bin/ip")) && !Files.isExecutable(Path.of("/usr/sbin/ip"))
                && !Files.isExecutable(Path.of("/sbin/ip"))) {
            return "no ip command (iproute2)";
        }
        return null;
    }

    /** Namespace number {@code n} (1-250) of this test JVM. */
    static NetworkNamespace create(int n) throws IOException, InterruptedException {
        String name = "ca" + ProcessHandle.current().pid() + "n" + n;
        String host = "cah" + (ProcessHandle.current().pid() % 100000) + "x" + n;
        NetworkNamespace ns = new NetworkNamespace(name, n);
        ip("netns", "add", name);
        try {
            ip("link", "add", host, "type", "veth", "peer", "name", "eth0", "netns", name);
            ip("addr", "add", ns.hostAddress() + "/30", "dev", host);
            ip("link", "set", host, "up");
            ip("-n", name, "addr", "add", ns.innerAddress() + "/30", "dev", "eth0");
            ip("-n", name, "link", "set", "eth0", "up");
            ip("-n", name, "link", "set", "lo", "up");
        } catch (IOException | RuntimeException e) {
            ns.close();
            throw e;
        }
        return ns;
    }

    /** This namespace's end of the link. */
    String hostAddress() {
        return "10.231." + n + ".1";
    }

    /** The namespace's end of the link. */
    String innerAddress() {
        return "10.231." + n + ".2";
    }

    /**
     * What runs a command inside: only the network namespace changes. Not {@code ip netns exec}, which also mounts a
     * fresh {@code /sys} for the namespace, hiding the cgroup hierarchy: a worker there could make no control groups
     * and, strict by default, refuses to start.
     */
    List<String> prefix() {
        return List.of("nsenter", "--net=/run/netns/" + name);
    }

    /** Offers {@code 127.0.0.1:port} of this namespace on the link; returns the port there. */
    int forward(int port) throws IOException {
        ServerSocket server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getByName(hostAddress()), 0));
        forwards.add(server);
        Thread accept = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket in = server.accept();
                    Socket out = new Socket(InetAddress.getLoopbackAddress(), port);
                    pipe(in, out);
                    pipe(out, in);
                } catch (IOException e) {
                    // closed, or the database refused: the client sees its connection drop
                }
            }
        }, "forward-" + name);
        accept.setDaemon(true);
        accept.start();
        return server.getLocalPort();
    }

    private static void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            try (InputStream i = from.getInputStream(); OutputStream o = to.getOutputStream()) {
                i.transferTo(o);
            } catch (IOException e) {
                // one side went away
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException e) {
                    // closing anyway
                }
            }
        }, "pipe");
        t.setDaemon(true);
        t.start();
    }

    /** Runs a command inside and returns its exit status and output. */
    Result run(String... command) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>(prefix());
        full.addAll(List.of(command));
        Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        return new Result(p.exitValue(), out);
    }

    record Result(int status, String output) {
    }

    @Override
    public void close() {
        for (ServerSocket s : forwards) {
            try {
                s.close();
            } catch (IOException e) {
                // going anyway
            }
        }
        try {
            ip("netns", "del", name); // takes its end of the link, and with it ours
        } catch (IOException | RuntimeException e) {
            // already gone
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void ip(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out.strip());
        }
    }
}
