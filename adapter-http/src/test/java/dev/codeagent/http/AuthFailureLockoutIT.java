package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Attack (issue 29, round 4): failed authentications are counted per client address (30 a minute), and once an
 * address is over, every request from it is refused with 429 before its key is looked at — a valid key's too. Behind
 * a reverse proxy (every request from 127.0.0.1), a NAT or any shared address, someone holding no key at all sends 31
 * requests with a wrong key and every key holder at that address is locked out, minute after minute, for as long as
 * they keep sending.
 *
 * <p>What must be true: a caller without a key cannot deny the API to a caller with one (failures slow down guessing,
 * they do not lock out the keys that are right).
 */
@Tag("slow")
class AuthFailureLockoutIT {

    @Test
    void wrongKeysFromAnAddressDoNotLockOutAValidKeyFromIt() {
        try (TestServer s = TestServer.builder().start()) {
            assertThat(s.get("/v1/runs", TestServer.ADMIN_KEY).statusCode()).isEqualTo(200);
            int refused = 0;
            for (int i = 0; i < 40; i++) {
                int status = s.get("/v1/runs", "wrong-key-" + i).statusCode();
                assertThat(status).isIn(401, 429);
                refused += status == 429 ? 1 : 0;
            }
            assertThat(refused).as("the guesses are slowed down").isPositive();
            HttpResponse<String> valid = s.get("/v1/runs", TestServer.ADMIN_KEY);
            assertThat(valid.statusCode()).as("a valid key from the same address, after a keyless caller's guesses: "
                    + valid.body()).isEqualTo(200);
        }
    }
}
