package dev.codeagent.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.store.sqlite.ProcessOwner.Observed;
import dev.codeagent.store.sqlite.ProcessOwner.State;
import org.junit.jupiter.api.Test;

class ProcessOwnerTest {

    private static final String TAIL = " 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 4242 19 20 21\n";

    @Test
    void readsTheStartTicksAfterACommandNameWithSpacesAndParentheses() {
        assertThat(ProcessOwner.fromStat("77 (a) b (c)) S" + TAIL)).isEqualTo(new Observed(State.ALIVE, "proc:4242"));
    }

    @Test
    void takesAZombieForDead() {
        assertThat(ProcessOwner.fromStat("77 (java) Z" + TAIL).state()).isEqualTo(State.GONE);
    }

    @Test
    void cannotTellFromTextItDoesNotUnderstand() {
        assertThat(ProcessOwner.fromStat("77 java S 1 2").state()).isEqualTo(State.UNKNOWN);
        assertThat(ProcessOwner.fromStat("77 (java) S 1 2 3").state()).isEqualTo(State.UNKNOWN);
        assertThat(ProcessOwner.fromStat("77 (java) S" + TAIL.replace("4242", "x"))).isEqualTo(Observed.UNKNOWN);
    }

    @Test
    void seesThisProcessAsAliveAndARowWithoutOwnerAsGone() {
        ProcessOwner me = ProcessOwner.current();
        assertThat(ProcessOwner.stateOf(me.bootId(), me.pid(), me.start())).isEqualTo(State.ALIVE);
        assertThat(ProcessOwner.stateOf(null, null, null)).isEqualTo(State.GONE);
    }
}
