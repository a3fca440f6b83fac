package dev.codeagent.application.placement;

import dev.codeagent.domain.solving.Placement;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** Where this process is: the machine's name, as placements and the stores' owner rows give it. */
public final class Placements {

    private static volatile String name;

    private Placements() {
    }

    /** This process, with the sandbox tier its programs run in. */
    public static Placement here(String tier) {
        return new Placement(host(), ProcessHandle.current().pid(), tier);
    }

    /** The host name, looked up once; from the JVM's own name when the lookup fails. */
    public static String host() {
        String n = name;
        if (n == null) {
            n = lookUp();
            name = n;
        }
        return n;
    }

    private static String lookUp() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            String jvm = ManagementFactory.getRuntimeMXBean().getName();
            int at = jvm.indexOf('@');
            return at < 0 ? "unknown" : jvm.substring(at + 1);
        }
    }
}
