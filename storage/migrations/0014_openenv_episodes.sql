-- One row per OpenEnv episode in flight: the server it plays on and the attempt that holds it (fencing: a stale
-- attempt never writes the episode's record). An OpenEnv session dies with its WebSocket, so a retried attempt starts
-- the episode over in a fresh session and claims this row under a new lease; the finished episode removes it.
CREATE TABLE openenv_episodes (
  episode_id text PRIMARY KEY,
  url text NOT NULL,
  attempt integer,
  lease text NOT NULL,
  opened_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
