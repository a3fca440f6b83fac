-- Evaluations sent to a server (POST /v1/evaluations): each one's progress while it runs and its report once done, kept
-- until its owner forgets it (StoredEvaluations in kit-store-jdbc). Times are seconds as runs keep them; the report is
-- the report page's JSON (EvaluationReportView, schema 1), null until status DONE.
CREATE TABLE evaluations (
    id          text PRIMARY KEY,
    owner       text,
    subject     text NOT NULL,
    status      text NOT NULL,
    created_at  numeric(21, 9) NOT NULL,
    ended_at    numeric(21, 9),
    problems    integer NOT NULL,
    samples     integer NOT NULL,
    done        integer NOT NULL,
    passed      integer NOT NULL,
    error       text,
    report      text
);
CREATE INDEX evaluations_by_owner ON evaluations (owner, created_at DESC, id DESC);
