-- The codes of a movement (kind, status, method, currency, processor, decline category) hold no quote,
-- backslash or control character: the page's JSON writes them only quoted, without to_json
-- (src/adapters/postgres/ledger-store.ts, `plain`). Every value the service writes is such a code.
ALTER TABLE "processor_gateway"."ledger" ADD CONSTRAINT "ledger_plain_texts" CHECK (("processor_gateway"."ledger"."kind" || "processor_gateway"."ledger"."status" || "processor_gateway"."ledger"."method" || "processor_gateway"."ledger"."currency" || coalesce("processor_gateway"."ledger"."processor", '') || coalesce("processor_gateway"."ledger"."decline_category", '')) !~ '["\\[:cntrl:]]');
