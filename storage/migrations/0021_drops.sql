-- Requests to the bank to drop a reverted collection title (pedido de
-- baixa) and to cancel a reverted payment (exclusão): the next remittance
-- file of the account carries them, and each is marked with the batch
-- whose file asked, in the transaction that stores the file (docs/api.md,
-- "Batches" and "Payment batches"). A reverted member whose column is null
-- is still to be asked.
ALTER TABLE ticket_batch_invoices
    ADD COLUMN drop_batch_id bigint,
    ADD CONSTRAINT ticket_batch_invoices_drop_batch_fk FOREIGN KEY (company_id, drop_batch_id)
        REFERENCES ticket_batches (company_id, id);
CREATE INDEX ticket_batch_invoices_drop_pending ON ticket_batch_invoices (company_id, account_id, our_number)
    WHERE state = 'reverted' AND drop_batch_id IS NULL;
CREATE INDEX ticket_batch_invoices_drop_batch ON ticket_batch_invoices (company_id, drop_batch_id)
    WHERE drop_batch_id IS NOT NULL;

-- A payment whose cancellation the bank confirmed is cancelled.
ALTER TABLE payment_batch_transactions
    ADD COLUMN cancel_batch_id bigint,
    ADD CONSTRAINT payment_batch_transactions_cancel_batch_fk FOREIGN KEY (company_id, cancel_batch_id)
        REFERENCES payment_batches (company_id, id),
    DROP CONSTRAINT payment_batch_transactions_state_check,
    ADD CONSTRAINT payment_batch_transactions_state_check
        CHECK (state IN ('added', 'reverted', 'paid', 'failed', 'cancelled'));
CREATE INDEX payment_batch_transactions_cancel_batch ON payment_batch_transactions (company_id, cancel_batch_id)
    WHERE cancel_batch_id IS NOT NULL;
