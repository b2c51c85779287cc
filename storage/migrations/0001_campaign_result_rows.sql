-- Result rows of every episode a campaign or evaluation ran, one per (result set, episode).
-- A result set is "<campaignId>/probe", "<campaignId>/eval-step-<n>" or "<campaignId>/step-<n>".
CREATE TABLE campaign_result_rows (
  result_set  text        NOT NULL,
  episode_id  text        NOT NULL,
  campaign_id text,
  task_id     text        NOT NULL,
  trial       integer     NOT NULL,
  step        integer,
  reward      smallint    NOT NULL,
  error       text,
  row         jsonb       NOT NULL,
  stored_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (result_set, episode_id)
);
CREATE INDEX campaign_result_rows_campaign ON campaign_result_rows (campaign_id);
