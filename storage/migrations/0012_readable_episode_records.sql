-- Episode records readable by every query, whatever the model wrote (storage/readable-json.ts says why). A record
-- stored before held a NUL or a lone surrogate as the JSON escape the model's text became (\u0000, \ud800), which the
-- json column accepts and every json operator then refuses, so one such record broke every query over the table.
-- Those escapes become \ufffd, as the store now writes them; an escaped backslash before "u0000" is text and stays.
UPDATE episodes
SET record = regexp_replace(record::text, '(?<!\\)((?:\\\\)*)\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})', '\1\\ufffd', 'g')::json
WHERE record::text ~ '\\u(0000|[dD][89a-fA-F])';
-- And no writer (an episode worker still on the previous release) stores an unreadable record again: the cast to
-- jsonb reads every string. NOT VALID: the rows above were just made readable, so there is nothing to scan again.
ALTER TABLE episodes ADD CONSTRAINT episodes_record_readable CHECK (record::jsonb IS NOT NULL) NOT VALID;
