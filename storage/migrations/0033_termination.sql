-- The termination of a contract (docs/finance.md, "Termination"; docs/api.md,
-- "Terminating a contract"): the company's settings of the transaction items
-- the final invoice books the fine and the deposit's deduction as. Null:
-- the fine is booked as the contract's late-fee item, else the company's
-- fee item; a deposit cannot be deducted without its item. companies is a
-- reference table, so the settings have no foreign key to the company's
-- transaction items (a reference table refers to no company-owned one): the
-- settings' write checks them, and a termination refuses an item that is
-- gone, naming the setting.
ALTER TABLE companies
    ADD COLUMN termination_fee_item_id bigint,
    ADD COLUMN termination_deposit_item_id bigint;
