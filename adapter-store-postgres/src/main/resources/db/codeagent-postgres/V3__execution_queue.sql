-- Single executions queued for workers (an evaluation's samples, a front door's executions). The submitter
-- chooses the id and takes the result back; both request and result are RunJson's stored form as text.
-- As for runs, a claim is held for as long as its worker's heartbeat is fresh, and work whose submitter
-- stopped beating is neither started nor kept (nobody is left to read its result).
CREATE TABLE executions (
    id            text PRIMARY KEY,
    seq           bigserial NOT NULL,
    state         text NOT NULL CHECK (state IN ('queued', 'claimed', 'done')),
    submitted_by  uuid NOT NULL,
    enqueued_at   timestamptz NOT NULL DEFAULT now(),
    request       text NOT NULL,
    claimed_by    uuid,
    claimed_at    timestamptz,
    claims        integer NOT NULL DEFAULT 0,
    result        text,
    recorded_by   text
);
CREATE INDEX executions_waiting ON executions (seq) WHERE state = 'queued';
CREATE INDEX executions_claimed ON executions (claimed_by) WHERE state = 'claimed';
CREATE INDEX executions_done ON executions (submitted_by) WHERE state = 'done';
