-- Executions submitted over HTTP to be collected later (asynchronous, batched): kept until their owner collects
-- them, across a restart and for every front door of the database; forgotten a while after they ended. Times are
-- seconds as runs keep them; the result is RunJson's stored form of the Execution, null until status DONE.
CREATE TABLE submitted_executions (
    id            text PRIMARY KEY,
    submitted_by  text,
    status        text NOT NULL,
    accepted_at   numeric(21, 9) NOT NULL,
    finished_at   numeric(21, 9),
    result        text
);
CREATE INDEX submitted_executions_by_finish ON submitted_executions (finished_at);
