package dev.codeagent.kit.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.JudgeReport;
import org.junit.jupiter.api.Test;

class JudgeReportJsonTest {

    @Test
    void readsAnAssertionWithTheCallsAndTheRaisedError() {
        String line = "{\"outcome\": \"raised\", \"message\": \"ZeroDivisionError: division by zero\", \"testLine\": 3,"
                + " \"testSource\": \"assert f(0) == 1\", \"calls\": [\"f(0) raised ZeroDivisionError\"],"
                + " \"error\": {\"type\": \"ZeroDivisionError\", \"message\": \"division by zero\", \"frames\":"
                + " [{\"file\": \"/work/main.py\", \"line\": 2, \"function\": \"f\", \"source\": \"return 1 / x\"}]}}";

        JudgeReport r = JudgeReportJson.parse(line).orElseThrow();

        assertThat(r.outcome()).isEqualTo(JudgeReport.Outcome.RAISED);
        assertThat(r.testLine()).isEqualTo(3);
        assertThat(r.testSource()).isEqualTo("assert f(0) == 1");
        assertThat(r.calls()).containsExactly("f(0) raised ZeroDivisionError");
        assertThat(r.error().frames()).singleElement()
                .satisfies(f -> assertThat(f.line()).isEqualTo(2))
                .satisfies(f -> assertThat(f.source()).isEqualTo("return 1 / x"));
        assertThat(r.passed()).isFalse();
    }

    @Test
    void readsAPassWithNullTestLine() {
        JudgeReport r = JudgeReportJson.parse("{\"outcome\": \"passed\", \"message\": \"\", \"testLine\": null,"
                + " \"testSource\": null, \"calls\": []}").orElseThrow();
        assertThat(r.passed()).isTrue();
        assertThat(r.testLine()).isNull();
        assertThat(r.error()).isNull();
    }

    @Test
    void anythingElseIsNoReport() {
        assertThat(JudgeReportJson.parse(null)).isEmpty();
        assertThat(JudgeReportJson.parse("")).isEmpty();
        assertThat(JudgeReportJson.parse("passed")).isEmpty();
        assertThat(JudgeReportJson.parse("{\"outcome\": \"accepted\"}")).isEmpty();
        assertThat(JudgeReportJson.parse("[\"passed\"]")).isEmpty();
        assertThat(JudgeReportJson.parse("{\"outcome\": \"passed\"")).isEmpty();
        assertThat(JudgeReportJson.parse("{\"outcome\": \"passed\"}" + " ".repeat(JudgeReportJson.MAX_LINE))).isEmpty();
    }
}
