-- Written by hand: one text field of the payments export as `csvField` (src/adapters/http/payments-csv.ts)
-- writes it, a null left null (the row's `concat` writes it as nothing). Text beginning with `=`, `+`, `-`,
-- `@`, a tab or a carriage return (ascii 61, 43, 45, 64, 9, 13) gets a leading `'`; a field with a comma,
-- a quote or a line break is quoted, its quotes doubled. The common field (none of those) costs one
-- regular expression and one `ascii`. A single expression of immutable functions, neither STRICT nor
-- SECURITY DEFINER: PostgreSQL inlines it in the export's statement (no call per field), which
-- `ledger-text.int.test.ts` checks; the statement stays short enough to be prepared.
CREATE OR REPLACE FUNCTION "processor_gateway"."csv_cell"(value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN ascii(value) IN (61, 43, 45, 64, 9, 13) OR value ~ '[",\r\n]' THEN
      CASE
        WHEN value ~ '[",\r\n]' THEN
          '"' || CASE WHEN ascii(value) IN (61, 43, 45, 64, 9, 13) THEN '''' ELSE '' END
            || replace(value, '"', '""') || '"'
        ELSE '''' || value
      END
    ELSE value
  END
$$;
