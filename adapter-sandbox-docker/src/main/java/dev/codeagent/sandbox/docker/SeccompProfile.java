package dev.codeagent.sandbox.docker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The seccomp profile every sandbox container gets, {@code seccomp-profile.json} beside this class: Docker's
 * default profile (its header says which, and its licence) with socket families other than AF_UNIX, AF_INET
 * and AF_INET6 refused, io_uring refused, and the process tier's refusals added with the same reasons (each
 * rule's {@code comment}). Docker 20.10's built-in default lets both AF_VSOCK — on a VM host, a path to the
 * hypervisor from a "no network" container — and io_uring through.
 *
 * <p>Under gVisor the profile holds inside gVisor's kernel only when runsc runs with {@code --oci-seccomp}, and
 * the tier reports {@code seccomp} accordingly; runsc 0.0~20221219 with that flag refuses select() under any
 * profile, so it is not registered so. The program's calls then reach gVisor's kernel, not the host's: there
 * AF_VSOCK does not exist, netlink and io_uring are gVisor's own implementations.
 */
final class SeccompProfile {

    /** The resource's name, beside this class. */
    static final String RESOURCE = "seccomp-profile.json";

    /** The profile as the engine takes it in {@code --security-opt seccomp=<json>}: compact JSON. */
    static final String JSON = load();

    private SeccompProfile() {
    }

    /** The profile as a tree (tests read its rules). */
    static JsonNode tree() {
        try (InputStream in = SeccompProfile.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the seccomp profile " + RESOURCE + " is missing from the docker tier's jar");
            }
            return new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the seccomp profile " + RESOURCE, e);
        }
    }

    private static String load() {
        return tree().toString();
    }
}
