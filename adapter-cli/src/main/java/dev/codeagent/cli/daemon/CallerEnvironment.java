package dev.codeagent.cli.daemon;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a process inherits that decides how much isolation its sandbox can get: its namespaces, credentials
 * (uid, groups, capabilities, no_new_privs, seccomp), control group, security label and hard resource limits,
 * read from {@code /proc/self}. The background process serves a call only when the caller's fingerprint equals
 * its own: then a sandbox made in the background process gets what the same command in the caller's own JVM
 * would get (the same probe in the same environment), never less — whereas a process started in a container,
 * under {@code unshare}, in a sandboxed IDE or in a tighter control group may lack control groups, namespaces or
 * limits the caller has, or escape limits the caller is held to.
 *
 * <p>The client ({@code codeagent-client.c}, {@code environment()}) computes the same text the same way; one line
 * {@code key value} per item, in this order. Unreadable items read as {@code -} on both sides.
 */
final class CallerEnvironment {

    private static final List<String> NAMESPACES = List.of("cgroup", "ipc", "mnt", "net", "pid", "user", "uts");
    private static final List<String> STATUS = List.of("Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd",
            "CapAmb", "NoNewPrivs", "Seccomp");

    private CallerEnvironment() {
    }

    /** This process's fingerprint. */
    static String current() {
        return of(Path.of("/proc/self"));
    }

    /** The fingerprint of the process whose {@code /proc} directory is {@code proc}. */
    static String of(Path proc) {
        StringBuilder b = new StringBuilder();
        for (String ns : NAMESPACES) {
            String link;
            try {
                link = Files.readSymbolicLink(proc.resolve("ns").resolve(ns)).toString();
            } catch (IOException | UnsupportedOperationException e) {
                link = "-";
            }
            b.append("ns.").append(ns).append(' ').append(link).append('\n');
        }
        Map<String, String> status = new LinkedHashMap<>();
        for (String line : lines(proc.resolve("status"))) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                status.put(line.substring(0, colon), line.substring(colon + 1).strip());
            }
        }
        for (String key : STATUS) {
            b.append(key).append(' ').append(status.getOrDefault(key, "-")).append('\n');
        }
        List<String> cgroup = lines(proc.resolve("cgroup"));
        b.append("cgroup ").append(cgroup.isEmpty() ? "-" : String.join(";", cgroup)).append('\n');
        String label = read(proc.resolve("attr").resolve("current")).replace("\0", "").strip();
        b.append("lsm ").append(label.isEmpty() ? "-" : label).append('\n');
        // "%-25s %-20s %-20s %-10s": the name, the soft and the hard limit in fixed columns. Only hard limits:
        // the JVM raises its own soft open-files limit, and a sandbox may raise soft limits up to the hard ones
        List<String> limits = lines(proc.resolve("limits"));
        for (int i = 1; i < limits.size(); i++) {
            String l = limits.get(i);
            if (l.length() < 67) {
                continue;
            }
            b.append("limit.").append(l.substring(0, 25).strip().replace(' ', '_')).append(' ')
                    .append(l.substring(47, 67).strip()).append('\n');
        }
        return b.toString();
    }

    /**
     * The items in which {@code other} differs from {@code own}, in plain words ("pid namespace", "control
     * group"), each once; empty when they are the same.
     */
    static List<String> differences(String own, String other) {
        Map<String, String> a = parse(own);
        Map<String, String> b = parse(other);
        Set<String> keys = new LinkedHashSet<>(a.keySet());
        keys.addAll(b.keySet());
        Set<String> words = new LinkedHashSet<>();
        for (String k : keys) {
            if (!String.valueOf(a.get(k)).equals(String.valueOf(b.get(k)))) {
                words.add(word(k));
            }
        }
        return new ArrayList<>(words);
    }

    private static String word(String key) {
        if (key.startsWith("ns.")) {
            String ns = key.substring(3);
            return (ns.equals("mnt") ? "mount" : ns) + " namespace";
        }
        if (key.startsWith("limit.")) {
            return "hard resource limits";
        }
        if (key.startsWith("Cap")) {
            return "capabilities";
        }
        return switch (key) {
            case "Uid", "Gid", "Groups" -> "user and groups";
            case "NoNewPrivs" -> "no_new_privs";
            case "Seccomp" -> "seccomp";
            case "cgroup" -> "control group";
            case "lsm" -> "security label";
            default -> key;
        };
    }

    private static Map<String, String> parse(String text) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int sp = line.indexOf(' ');
            if (sp > 0) {
                m.put(line.substring(0, sp), line.substring(sp + 1));
            }
        }
        return m;
    }

    private static List<String> lines(Path file) {
        String text = read(file);
        return text.isEmpty() ? List.of() : List.of(text.split("\n"));
    }

    private static String read(Path file) {
        try {
            return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        } catch (IOException | SecurityException e) {
            return "";
        }
    }
}
