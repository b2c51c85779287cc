-- One row per ThinkingBox episode: the proxy session that holds its state, the attempt that holds it (fencing), how
-- many tool calls were sent to it, and its last turn checkpoint. A PostgreSQL episode keeps these in its own
-- database; a ThinkingBox session has no place for them, so the control database keeps them.
CREATE TABLE thinkingbox_episodes (
  episode_id text PRIMARY KEY,
  session_id text NOT NULL,
  proxy_url text NOT NULL,
  attempt integer,
  lease text NOT NULL,
  sent_calls integer NOT NULL DEFAULT 0,
  checkpoint jsonb,
  init_result jsonb,
  opened_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
