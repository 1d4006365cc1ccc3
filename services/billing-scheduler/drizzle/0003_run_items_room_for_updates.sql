-- Room on each page for a run item's next versions. An item is written once, at the claim, and updated twice
-- (requested, then its outcome), neither time in an indexed column: with room on its page each update is a
-- heap-only tuple, no new entry in the table's three indexes. A claim's items sit together and their updates
-- come in batches, so a page's rows are updated at about the same time, each version a little larger than the
-- last: at 100 % fill 28 % of the updates were heap-only in the billing bench. Pages 40 % full leave the first
-- update of every row room, and the second the first's dead versions once pruned. Pages written before this
-- keep their fill.
ALTER TABLE "billing_scheduler"."run_items" SET (fillfactor = 40);
