-- Every episode the runtime ran, with its full record (transcript, tool calls, grade, usage, timings) for audit.
-- Token trajectories are in the artifact store; the record holds their URI.
CREATE TABLE episodes (
  episode_id    text        PRIMARY KEY,
  campaign_id   text,
  step          integer,
  group_index   integer,
  task_id       text        NOT NULL,
  trial         integer     NOT NULL,
  reward        smallint    NOT NULL,
  error         text,
  finish_reason text        NOT NULL,
  record        jsonb       NOT NULL,
  stored_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX episodes_campaign ON episodes (campaign_id, step);
CREATE INDEX episodes_task ON episodes (task_id);
