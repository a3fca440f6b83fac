package dev.codeagent.application;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** This machine's name, as placements and the stores' owner rows give it. */
public final class Hosts {

    private static volatile String name;

    private Hosts() {
    }

    /** The host name, looked up once; from the JVM's own name when the lookup fails. */
    public static String name() {
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
