-- Runs and their attempts, as the SQLite store keeps them: the domain records whole as JSON text
-- (RunJson's stored form; text rather than jsonb, which refuses the \u0000 a program may print),
-- with prompt, language, verdict and outcome copied out for listing and querying.
-- Times are exact seconds since the epoch, nanoseconds included (timestamptz keeps microseconds).
CREATE TABLE runs (
    id          text PRIMARY KEY,
    prompt      text NOT NULL,
    language    text NOT NULL,
    task        text NOT NULL,
    status      text NOT NULL,
    started_at  numeric(21, 9) NOT NULL,
    ended_at    numeric(21, 9),
    reason      text,
    owner_id    uuid
);
CREATE INDEX runs_by_start ON runs (started_at DESC, id DESC);
CREATE INDEX runs_running ON runs (owner_id) WHERE status = 'RUNNING';

CREATE TABLE attempts (
    run_id   text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    number   integer NOT NULL CHECK (number >= 1),
    verdict  text NOT NULL,
    outcome  text,
    attempt  text NOT NULL,
    PRIMARY KEY (run_id, number)
);

-- Every process using the store (front door or worker) registers here and beats a heartbeat by the
-- database's clock, so that a run's owner can be told alive from another machine: a run whose
-- owner has not beaten within the lease timeout is interrupted.
CREATE TABLE run_owners (
    id            uuid PRIMARY KEY,
    host          text NOT NULL,
    pid           bigint NOT NULL,
    started_at    timestamptz NOT NULL DEFAULT now(),
    heartbeat_at  timestamptz NOT NULL DEFAULT now()
);
