package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * The docker tier's seccomp profile against the process tier's policy, read from that module's source in
 * this repository (the adapters do not depend on each other, so the check reads the checked-in table): every
 * refusal there is a refusal here with the same errno and the same reason; every allow-list (socket families,
 * personality) allows the same values; the rules the profile leaves to Docker's own are named below with why.
 */
class SeccompProfileTest {

    private static final Path POLICY = Path.of(System.getenv().getOrDefault("CODEAGENT_REPO_ROOT", ".."))
            .resolve("kit-sandbox/src/main/java/dev/codeagent/kit/sandbox/SeccompPolicy.java");

    /**
     * Process-tier rules that compare bits or values the profile leaves to Docker's default: unshare and
     * clone's namespace flags (Docker refuses unshare and namespace-making clone to a container without
     * CAP_SYS_ADMIN, the same bits), and ioctl's TIOCSTI/TIOCLINUX (a sandbox container has no terminal).
     */
    private static final Set<String> LEFT_TO_DOCKER = Set.of("unshare", "clone", "ioctl");

    /**
     * Process-tier rules that keep the program's hands off its supervisor, which there shares its uid: here the
     * supervisor runs as another uid and the kernel refuses these calls on it already (the attack suite's
     * cannotLowerTheRlimitsOfTheProcessesThatWatchIt proves it on both runtimes).
     */
    private static final Set<String> LEFT_TO_THE_UID_SPLIT = Set.of("prlimit64");

    private static final Pattern STRING = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");

    /** One rule of the process tier's table, as written there. */
    record PolicyRule(String syscall, String source, String why) {
    }

    static List<PolicyRule> processTierRules() throws IOException {
        String src = Files.readString(POLICY);
        String body = src.substring(src.indexOf("static final List<Rule> RULES"));
        List<PolicyRule> rules = new ArrayList<>();
        for (String chunk : body.split("\\n\\s*(?=refuse\\(|onItself\\(|new Rule\\()")) {
            if (!chunk.startsWith("refuse(") && !chunk.startsWith("onItself(") && !chunk.startsWith("new Rule(")) {
                continue;
            }
            Matcher m = STRING.matcher(chunk);
            List<String> literals = new ArrayList<>();
            while (m.find()) {
                literals.add(m.group(1));
            }
            rules.add(new PolicyRule(literals.get(0), chunk, String.join("", literals.subList(1, literals.size()))));
        }
        return rules;
    }

    private static List<JsonNode> entriesFor(String syscall) {
        return StreamSupport.stream(SeccompProfile.tree().path("syscalls").spliterator(), false)
                .filter(e -> StreamSupport.stream(e.path("names").spliterator(), false).anyMatch(n -> n.asText().equals(syscall)))
                .collect(Collectors.toList());
    }

    @Test
    void readsTheWholeProcessTierTable() throws IOException {
        List<PolicyRule> rules = processTierRules();
        assertThat(rules).hasSizeGreaterThan(40);
        assertThat(rules).extracting(PolicyRule::syscall).contains("socket", "io_uring_setup", "keyctl", "bpf");
        assertThat(rules).allSatisfy(r -> assertThat(r.why()).as(r.syscall()).isNotBlank());
    }

    @Test
    void refusesWhatTheProcessTierRefusesForTheSameReason() throws IOException {
        for (PolicyRule rule : processTierRules()) {
            boolean plainRefusal = rule.source().startsWith("refuse(") || rule.source().contains("new Refuse(");
            if (!plainRefusal) {
                continue;
            }
            int errno = rule.source().contains("new Refuse(ENOSYS)") ? 38 : 1;
            assertThat(entriesFor(rule.syscall())).as(rule.syscall()).singleElement().satisfies(e -> {
                assertThat(e.path("action").asText()).isEqualTo("SCMP_ACT_ERRNO");
                assertThat(e.path("errnoRet").asInt()).isEqualTo(errno);
                assertThat(e.path("args").isMissingNode() || e.path("args").isEmpty()).isTrue();
                assertThat(e.path("includes").isMissingNode()).as("unconditional").isTrue();
                assertThat(e.path("comment").asText()).isEqualTo(rule.why());
            });
        }
    }

    @Test
    void allowsOnlyTheSameSocketFamiliesAndPersonalities() throws IOException {
        for (PolicyRule rule : processTierRules()) {
            if (!allowList(rule)) {
                continue;
            }
            if (rule.source().contains("new AllowOnlyOrPair(")) {
                // the process tier's socket rule also lets (AF_NETLINK, NETLINK_ROUTE) through: so does the profile
                assertThat(entriesFor(rule.syscall())).as(rule.syscall()).anyMatch(SeccompProfileTest::isNetlinkRoute);
            }
            Set<Long> values = rule.source().contains("INET_AND_UNIX") ? Set.of(1L, 2L, 10L) : Set.of(0L, 0xFFFFFFFFL);
            List<JsonNode> entries = entriesFor(rule.syscall()).stream().filter(e -> !isNetlinkRoute(e)).collect(Collectors.toList());
            assertThat(entries).as(rule.syscall()).allSatisfy(e -> {
                assertThat(e.path("action").asText()).isEqualTo("SCMP_ACT_ALLOW");
                assertThat(e.path("args")).hasSize(1);
                assertThat(e.path("args").get(0).path("index").asInt()).isZero();
                assertThat(e.path("args").get(0).path("op").asText()).isEqualTo("SCMP_CMP_EQ");
                assertThat(e.path("comment").asText()).isEqualTo(rule.why());
            });
            Set<Long> allowed = entries.stream().map(e -> e.path("args").get(0).path("value").asLong())
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(allowed).as(rule.syscall()).isEqualTo(new TreeSet<>(values));
        }
    }

    /** An allow-list rule of the process tier: one argument's values, optionally with one (value, value) pair. */
    private static boolean allowList(PolicyRule rule) {
        return rule.source().contains("new AllowOnly(") || rule.source().contains("new AllowOnlyOrPair(");
    }

    /** NETLINK_ROUTE sockets, which glibc's if_nameindex() needs: allowed by both tiers, for socket only. */
    private static boolean isNetlinkRoute(JsonNode e) {
        return e.path("args").size() == 2 && e.path("args").path(0).path("value").asLong() == 16
                && e.path("args").path(1).path("index").asInt() == 2 && e.path("args").path(1).path("value").asLong() == 0;
    }

    @Test
    void allowsNetlinkOnlyForRoutingAndOnlyForSocket() {
        assertThat(entriesFor("socket")).filteredOn(SeccompProfileTest::isNetlinkRoute).singleElement()
                .satisfies(e -> assertThat(e.path("action").asText()).isEqualTo("SCMP_ACT_ALLOW"));
        assertThat(entriesFor("socketpair")).noneMatch(SeccompProfileTest::isNetlinkRoute);
    }

    @Test
    void leavesOnlyTheNamedRulesToDockersDefault() throws IOException {
        Set<String> others = processTierRules().stream()
                .filter(r -> !r.source().startsWith("refuse(") && !r.source().contains("new Refuse(")
                        && !allowList(r))
                .map(PolicyRule::syscall).collect(Collectors.toSet());
        Set<String> expected = new java.util.HashSet<>(LEFT_TO_DOCKER);
        expected.addAll(LEFT_TO_THE_UID_SPLIT);
        assertThat(others).isEqualTo(expected);
        // Docker's own: unshare only with CAP_SYS_ADMIN (dropped), clone only without namespace flags
        assertThat(entriesFor("unshare")).allSatisfy(e -> assertThat(e.path("includes").path("caps").toString())
                .contains("CAP_SYS_ADMIN"));
        assertThat(entriesFor("clone")).anySatisfy(e -> assertThat(e.path("args").path(0).path("op").asText())
                .isEqualTo("SCMP_CMP_MASKED_EQ"));
    }

    @Test
    void isDockersDefaultDenyListWithItsSourceNamed() {
        JsonNode profile = SeccompProfile.tree();
        assertThat(profile.path("defaultAction").asText()).isEqualTo("SCMP_ACT_ERRNO");
        assertThat(profile.path("comment").asText()).contains("moby", "Apache License 2.0");
        assertThat(entriesFor("read")).isNotEmpty();
        assertThat(entriesFor("io_uring_setup")).singleElement()
                .satisfies(e -> assertThat(e.path("action").asText()).isEqualTo("SCMP_ACT_ERRNO"));
        assertThat(SeccompProfile.JSON).doesNotContain("\n").startsWith("{");
    }
}
