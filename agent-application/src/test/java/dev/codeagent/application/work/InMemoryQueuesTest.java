package dev.codeagent.application.work;

import java.time.Duration;

/** The queue contract on the in-memory queues: each participant a process, the lease a real clock's. */
class InMemoryQueuesTest extends QueueContractTest {

    private static final Duration LEASE = Duration.ofMillis(600);

    private InMemoryQueues queues;

    @Override
    protected Participant join() {
        if (queues == null) {
            queues = new InMemoryQueues(LEASE);
        }
        InMemoryQueues.Participant p = queues.join();
        return new Participant(p.runLog(), p, p, p);
    }

    @Override
    protected void stopBeating(Participant p) {
        ((InMemoryQueues.Participant) p.runs()).stopBeating();
    }

    @Override
    protected Duration lease() {
        return LEASE;
    }
}
