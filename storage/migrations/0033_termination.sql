-- The termination of a contract (docs/finance.md, "Termination"; docs/api.md,
-- "Terminating a contract"): the company's settings of the transaction items
-- the final invoice books the fine and the deposit's deduction as. Null:
-- the fine is booked as the contract's late-fee item, else the company's
-- fee item; a deposit cannot be deducted without its item. An item deleted
-- clears the setting.
ALTER TABLE companies
    ADD COLUMN termination_fee_item_id bigint,
    ADD COLUMN termination_deposit_item_id bigint,
    ADD CONSTRAINT companies_termination_fee_item_fk FOREIGN KEY (id, termination_fee_item_id)
        REFERENCES transaction_items (company_id, id) ON DELETE SET NULL (termination_fee_item_id),
    ADD CONSTRAINT companies_termination_deposit_item_fk FOREIGN KEY (id, termination_deposit_item_id)
        REFERENCES transaction_items (company_id, id) ON DELETE SET NULL (termination_deposit_item_id);
