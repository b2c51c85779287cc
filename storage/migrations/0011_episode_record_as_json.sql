-- Keep episode records byte-faithful: jsonb reorders object keys, so a transcript read back from jsonb rendered
-- tool schemas in another key order than the live episode did (and demonstrations built from records trained the
-- base model on a system prompt it never sees at rollout time). json keeps the text as written.
ALTER TABLE episodes ALTER COLUMN record TYPE json USING record::json;
