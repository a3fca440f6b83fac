package dev.codeagent.application.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.codeagent.domain.solving.RunLog;
import org.junit.jupiter.api.Test;

class RecoverInterruptedRunsTest {

    @Test
    void marksDeadProcessesRunsWithTheOneReason() {
        RunLog runLog = mock(RunLog.class);
        when(runLog.markInterrupted(RecoverInterruptedRuns.REASON)).thenReturn(2);

        assertThat(new RecoverInterruptedRuns(runLog).recover()).isEqualTo(2);

        verify(runLog).markInterrupted("interrupted: the process ended before the run finished");
    }
}
