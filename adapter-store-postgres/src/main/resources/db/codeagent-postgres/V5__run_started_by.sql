-- Whose each run is (Run.owner: key:NAME, local:USER), not the process working it (owner_id). Rows from
-- before this step belong to no one: only an operator sees them. One caller's runs are listed by it.
ALTER TABLE runs ADD COLUMN started_by text;
CREATE INDEX runs_by_started_by ON runs (started_by, started_at DESC, id DESC);
