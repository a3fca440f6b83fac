-- Each process says how long its own heartbeat may be silent before it counts as gone, and every judgement of its
-- liveness uses that figure, not the judging process's: processes configured differently (a front door beating
-- every 2 s, a worker expecting 1 s) must never take each other for dead.
ALTER TABLE run_owners ADD COLUMN lease_seconds double precision NOT NULL DEFAULT 15;
