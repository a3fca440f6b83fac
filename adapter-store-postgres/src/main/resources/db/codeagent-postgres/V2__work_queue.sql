-- Runs queued for workers. A claim is held by a run owner (a worker process) for as long as that
-- owner's heartbeat is fresh: the lease is the heartbeat. seq gives claim order (first queued,
-- first claimed); claims counts how often a run was handed out (more than one: taken over).
CREATE TABLE work (
    run_id         text PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    seq            bigserial NOT NULL,
    state          text NOT NULL CHECK (state IN ('queued', 'claimed', 'done')),
    enqueued_at    timestamptz NOT NULL DEFAULT now(),
    claimed_by     uuid,
    claimed_at     timestamptz,
    claims         integer NOT NULL DEFAULT 0,
    cancel_reason  text
);
CREATE INDEX work_waiting ON work (seq) WHERE state = 'queued';
CREATE INDEX work_claimed ON work (claimed_by) WHERE state = 'claimed';

-- Placement: the process (host and pid) that recorded each attempt.
ALTER TABLE attempts ADD COLUMN recorded_by text;
