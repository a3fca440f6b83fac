-- GET /v1/runs?status=: the statuses are a condition of the query (StoredRuns.recent), newest first, so that a rare
-- status among many runs still fills its page from an index: one for every caller's runs (an operator's view), one
-- for one caller's (a key sees its own runs).
CREATE INDEX runs_by_status_start ON runs (status, started_at DESC, id DESC);
CREATE INDEX runs_by_started_by_status ON runs (started_by, status, started_at DESC, id DESC);
