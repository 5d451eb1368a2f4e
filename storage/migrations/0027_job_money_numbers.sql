-- Money in the job results stored by earlier versions, as it is written now:
-- a JSON number with two decimal places (docs/api.md, "Money"). Those
-- results, and the outputs of the chunks of jobs not finished, held their
-- amounts as strings: batch:file's "total" ("235000.00", before that
-- "3860.5"), batch:return's "paid", "expected" and "difference" on each
-- line of the report ("152.00"), contracts:transfer's "guaranteed" and
-- "amount" ("0", "2208.75"). They are rewritten as text, in place, so that
-- everything else (the order of the keys, the lines of a report) stays as
-- written; result and output are json, kept as written.
--
-- Only a key can be matched: inside a JSON string every quote is escaped,
-- so `"paid":"` cannot occur in a message. A string that is not decimal
-- text is left alone. Running this again changes nothing.

CREATE FUNCTION pg_temp.money_numbers(doc text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT regexp_replace(
        regexp_replace(
            regexp_replace(doc,
                -- "2350" is "2350.00"
                '"(total|paid|expected|difference|guaranteed|amount)":"(-?[0-9]+)"', '"\1":"\2.00"', 'g'),
            -- "3860.5" is "3860.50"
            '"(total|paid|expected|difference|guaranteed|amount)":"(-?[0-9]+\.[0-9])"', '"\1":"\20"', 'g'),
        -- "3860.50" is 3860.50
        '"(total|paid|expected|difference|guaranteed|amount)":"(-?[0-9]+\.[0-9]{2})"', '"\1":\2', 'g')
$$;

UPDATE jobs SET result = pg_temp.money_numbers(result::text)::json
WHERE kind IN ('batch:file', 'batch:return', 'contracts:transfer')
  AND result IS NOT NULL
  AND result::text ~ '"(total|paid|expected|difference|guaranteed|amount)":"';

UPDATE job_chunks c SET output = pg_temp.money_numbers(c.output::text)::json
FROM jobs j
WHERE j.company_id = c.company_id AND j.id = c.job_id
  AND j.kind IN ('batch:file', 'batch:return', 'contracts:transfer')
  AND c.output::text ~ '"(total|paid|expected|difference|guaranteed|amount)":"';

DROP FUNCTION pg_temp.money_numbers(text);
