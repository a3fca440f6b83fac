package dev.codeagent.store.postgres;

import dev.codeagent.application.work.QueueContractTest;
import java.time.Duration;

/** The queue contract on PostgreSQL: each participant a {@link PostgresStore} of its own, as a process has. */
class PostgresQueueContractIT extends QueueContractTest {

    private PostgresStoreConfig config;

    @Override
    protected Participant join() {
        if (config == null) {
            config = TestCluster.get().freshDatabase();
        }
        PostgresStore store = PostgresStore.open(config);
        return new Participant(store.runLog(), store.workQueue(), store.executionQueue(), store);
    }

    @Override
    protected void stopBeating(Participant p) throws Exception {
        PostgresRunLogIT.stopBeating((PostgresStore) p.resources());
    }

    @Override
    protected Duration lease() {
        return config.leaseTimeout();
    }
}
