-- Contracts completed (spec 001), with their vehicles, occupants, items and
-- documents, the minimal records their includes point at, and what invoice
-- generation keys on. The contracts table itself came with the money
-- schema (its id, id2, reference, type, active, building and tenant).

-- How many days ahead of a contract's next due date the nightly run
-- generates its invoice (docs/jobs.md).
ALTER TABLE companies ADD COLUMN invoice_lead_days integer NOT NULL DEFAULT 30
    CONSTRAINT companies_invoice_lead_days_check CHECK (invoice_lead_days BETWEEN 0 AND 366);

-- Users' teams: a minimal table for contracts to point at; the user teams
-- resource completes it.
CREATE TABLE teams (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    name       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);

-- Deals (negotiations): a minimal table for contracts to point at.
CREATE TABLE deals (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    title      text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);

ALTER TABLE contracts
    ADD COLUMN billing_id                             bigint,
    ADD COLUMN sale_type                              text CONSTRAINT contracts_sale_type_check CHECK (sale_type IN (
                                                          'deed_registration', 'financing', 'private_document', 'assignment_of_rights')),
    ADD COLUMN active_date                            date,
    ADD COLUMN status                                 text NOT NULL DEFAULT 'progress' CONSTRAINT contracts_status_check CHECK (status IN (
                                                          'progress', 'closing', 'readjust', 'renew', 'no_invoices', 'suspended', 'pending',
                                                          'finished', 'canceled', 'terminating', 'on_notice', 'terminated')),
    ADD COLUMN status_date                            date,
    ADD COLUMN payment_status                         text NOT NULL DEFAULT 'nothing' CONSTRAINT contracts_payment_status_check CHECK (payment_status IN (
                                                          'due_5_days', 'due_10_days', 'nothing', 'ok', '5_days', '30_days', 'month', '3_months')),
    ADD COLUMN payment_status_date                    date,
    ADD COLUMN user_id                                bigint,
    ADD COLUMN agent_id                               bigint,
    ADD COLUMN procurator_id                          bigint,
    ADD COLUMN team_id                                bigint,
    ADD COLUMN access                                 text CONSTRAINT contracts_access_check CHECK (access IN ('all', 'responsible')),
    ADD COLUMN tag                                    bigint[] NOT NULL DEFAULT '{}',
    ADD COLUMN guaranteed_transfer                    boolean NOT NULL DEFAULT false,
    ADD COLUMN guaranteed_transfer_months             integer CONSTRAINT contracts_guaranteed_transfer_months_check
                                                          CHECK (guaranteed_transfer_months >= 0),
    ADD COLUMN guaranteed_transfer_release_after_days integer CONSTRAINT contracts_guaranteed_transfer_release_after_days_check
                                                          CHECK (guaranteed_transfer_release_after_days >= 0),
    ADD COLUMN start_at                               date,
    ADD COLUMN end_at                                 date,
    ADD COLUMN signed_at                              date,
    ADD COLUMN recurrency                             text CONSTRAINT contracts_recurrency_check CHECK (recurrency IN ('daily', 'monthly')),
    ADD COLUMN recurrency_amount                      integer CONSTRAINT contracts_recurrency_amount_check CHECK (recurrency_amount >= 1),
    ADD COLUMN modality                               text CONSTRAINT contracts_modality_check CHECK (modality IN ('start', 'due_date', 'monthly')),
    ADD COLUMN amount                                 numeric(14,2) CONSTRAINT contracts_amount_check CHECK (amount >= 0),
    ADD COLUMN current_amount                         numeric(14,2) CONSTRAINT contracts_current_amount_check CHECK (current_amount >= 0),
    ADD COLUMN service_rate_amount                    numeric(14,2),
    ADD COLUMN total                                  numeric(14,2),
    ADD COLUMN signal_amount                          numeric(14,2),
    ADD COLUMN refund_amount                          numeric(14,2),
    ADD COLUMN fiscal_note_withholding                numeric(14,2),
    ADD COLUMN due_day                                integer CONSTRAINT contracts_due_day_check CHECK (due_day BETWEEN 1 AND 31),
    ADD COLUMN due_date                               date,
    ADD COLUMN billing_timing                         text CONSTRAINT contracts_billing_timing_check CHECK (billing_timing IN ('pre', 'post')),
    ADD COLUMN first_commission                       numeric(14,2),
    ADD COLUMN first_commission_installment           numeric(14,2),
    ADD COLUMN recurring_commission                   numeric(14,2),
    ADD COLUMN add_commission_on_first                boolean NOT NULL DEFAULT false,
    ADD COLUMN proportional                           boolean NOT NULL DEFAULT false,
    ADD COLUMN unify_first_invoice                    boolean NOT NULL DEFAULT false,
    ADD COLUMN readjust_active                        boolean NOT NULL DEFAULT false,
    ADD COLUMN readjust_indicator                     text CONSTRAINT contracts_readjust_indicator_check CHECK (readjust_indicator IN (
                                                          'IGP-M', 'INCC-M', 'INPC', 'IVAR', 'IPC-BR', 'IPCA', 'highest_index', 'lowest_index', 'IPC-FIPE')),
    ADD COLUMN readjust_with                          integer CONSTRAINT contracts_readjust_with_check CHECK (readjust_with BETWEEN 1 AND 120),
    ADD COLUMN readjust_at                            date,
    ADD COLUMN readjusted_at                          date,
    ADD COLUMN guarantee                              text,
    ADD COLUMN notes                                  text,
    ADD COLUMN clauses                                text,
    ADD COLUMN invoice_installment                    integer,
    ADD COLUMN witness_1                              bigint,
    ADD COLUMN witness_2                              bigint,
    ADD COLUMN guarantor_1                            bigint,
    ADD COLUMN guarantor_2                            bigint,
    ADD COLUMN ticket_late_fee                        boolean NOT NULL DEFAULT false,
    ADD COLUMN ticket_late_fee_item_id                bigint,
    ADD COLUMN ticket_late_fee_percentage             numeric(5,2) CONSTRAINT contracts_ticket_late_fee_percentage_check
                                                          CHECK (ticket_late_fee_percentage BETWEEN 0 AND 100),
    ADD COLUMN ticket_late_fee_interest               numeric(5,2) CONSTRAINT contracts_ticket_late_fee_interest_check
                                                          CHECK (ticket_late_fee_interest BETWEEN 0 AND 100),
    ADD COLUMN ticket_discount                        boolean NOT NULL DEFAULT false,
    ADD COLUMN ticket_discount_mode                   text CONSTRAINT contracts_ticket_discount_mode_check
                                                          CHECK (ticket_discount_mode IN ('fixed', 'percentage')),
    ADD COLUMN ticket_discount_percentage             numeric(5,2) CONSTRAINT contracts_ticket_discount_percentage_check
                                                          CHECK (ticket_discount_percentage BETWEEN 0 AND 100),
    ADD COLUMN ticket_discount_fixed                  numeric(14,2) CONSTRAINT contracts_ticket_discount_fixed_check
                                                          CHECK (ticket_discount_fixed >= 0),
    ADD COLUMN ticket_discount_days                   integer CONSTRAINT contracts_ticket_discount_days_check
                                                          CHECK (ticket_discount_days >= 0),
    -- who bears the punctuality discount on the generated invoices
    ADD COLUMN ticket_discount_action                 text CONSTRAINT contracts_ticket_discount_action_check
                                                          CHECK (ticket_discount_action IN ('business', 'owner')),
    ADD COLUMN termination_fee                        numeric(14,2),
    ADD COLUMN termination_fee_months                 integer,
    ADD COLUMN termination_fee_exemption              boolean NOT NULL DEFAULT false,
    ADD COLUMN termination_fee_amount                 numeric(14,2),
    ADD COLUMN termination_fee_comission              text,
    ADD COLUMN termination_fee_requester              text,
    ADD COLUMN termination_fee_motive                 text,
    ADD COLUMN termination_fee_calculate_mode         text,
    ADD COLUMN termination_at                         date,
    ADD COLUMN deal_id                                bigint,
    ADD COLUMN business_id                            bigint,
    ADD COLUMN account_id                             bigint,
    ADD COLUMN billing_method                         text CONSTRAINT contracts_billing_method_check CHECK (billing_method IN (
                                                          'ticket', 'cash', 'deposit', 'pix', 'ted', 'credit', 'debit', 'check', 'debit_account')),
    ADD COLUMN metadata                               text,
    ADD COLUMN receipt_document_id                    bigint,
    ADD COLUMN transfer_mode                          text CONSTRAINT contracts_transfer_mode_check CHECK (transfer_mode IN (
                                                          'manually', 'after_receive', 'fixed_day_or_next', 'fixed_day')),
    ADD COLUMN transfer_auto                          boolean NOT NULL DEFAULT false,
    ADD COLUMN transfer_after_days                    integer CONSTRAINT contracts_transfer_after_days_check CHECK (transfer_after_days >= 0),
    ADD COLUMN renewed_id                             bigint,
    ADD COLUMN fiscal_note_trigger                    text CONSTRAINT contracts_fiscal_note_trigger_check CHECK (fiscal_note_trigger IN (
                                                          'NONE', 'BUSINESS', 'MANUAL', 'ON_PAYMENT_CONFIRMATION', 'ON_PAYMENT_NO_CONVERT')),
    ADD COLUMN dimob                                  boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT contracts_period_check CHECK (end_at >= start_at),
    ADD CONSTRAINT contracts_renewed_check CHECK (renewed_id <> id),
    ADD CONSTRAINT contracts_billing_fk FOREIGN KEY (company_id, billing_id) REFERENCES billings (company_id, id),
    ADD CONSTRAINT contracts_user_fk FOREIGN KEY (company_id, user_id) REFERENCES users (company_id, id),
    ADD CONSTRAINT contracts_agent_fk FOREIGN KEY (company_id, agent_id) REFERENCES users (company_id, id),
    ADD CONSTRAINT contracts_procurator_fk FOREIGN KEY (company_id, procurator_id) REFERENCES persons (company_id, id),
    ADD CONSTRAINT contracts_team_fk FOREIGN KEY (company_id, team_id) REFERENCES teams (company_id, id),
    ADD CONSTRAINT contracts_witness_1_fk FOREIGN KEY (company_id, witness_1) REFERENCES persons (company_id, id),
    ADD CONSTRAINT contracts_witness_2_fk FOREIGN KEY (company_id, witness_2) REFERENCES persons (company_id, id),
    ADD CONSTRAINT contracts_guarantor_1_fk FOREIGN KEY (company_id, guarantor_1) REFERENCES persons (company_id, id),
    ADD CONSTRAINT contracts_guarantor_2_fk FOREIGN KEY (company_id, guarantor_2) REFERENCES persons (company_id, id),
    ADD CONSTRAINT contracts_late_fee_item_fk FOREIGN KEY (company_id, ticket_late_fee_item_id)
        REFERENCES transaction_items (company_id, id),
    ADD CONSTRAINT contracts_deal_fk FOREIGN KEY (company_id, deal_id) REFERENCES deals (company_id, id),
    ADD CONSTRAINT contracts_business_fk FOREIGN KEY (company_id, business_id) REFERENCES businesses (company_id, id),
    ADD CONSTRAINT contracts_account_fk FOREIGN KEY (company_id, account_id) REFERENCES accounts (company_id, id),
    ADD CONSTRAINT contracts_renewed_fk FOREIGN KEY (company_id, renewed_id) REFERENCES contracts (company_id, id);
CREATE INDEX contracts_billing ON contracts (company_id, billing_id);
CREATE INDEX contracts_user ON contracts (company_id, user_id);
CREATE INDEX contracts_agent ON contracts (company_id, agent_id);
CREATE INDEX contracts_team ON contracts (company_id, team_id);
CREATE INDEX contracts_deal ON contracts (company_id, deal_id);
CREATE INDEX contracts_business ON contracts (company_id, business_id);
CREATE INDEX contracts_account ON contracts (company_id, account_id);
CREATE INDEX contracts_renewed ON contracts (company_id, renewed_id);
CREATE INDEX contracts_status ON contracts (company_id, status);
-- what the nightly generation walks: the contracts that bill
CREATE INDEX contracts_billing_active ON contracts (company_id, id) WHERE active = 'active';

-- A generated invoice fills one slot of its contract's schedule: the
-- period it bills (its first day). Two runs, or a run and a retry, never
-- bill a slot twice.
CREATE UNIQUE INDEX invoices_contract_slot ON invoices (company_id, contract_id, period_initial)
    WHERE type = 'contract' AND contract_id IS NOT NULL AND period_initial IS NOT NULL;

CREATE TABLE contract_vehicles (
    company_id  bigint NOT NULL REFERENCES companies (id),
    id          bigint GENERATED ALWAYS AS IDENTITY,
    contract_id bigint NOT NULL,
    brand       text,
    model       text,
    color       text,
    plate       text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT contract_vehicles_contract_fk FOREIGN KEY (company_id, contract_id)
        REFERENCES contracts (company_id, id) ON DELETE CASCADE
);
CREATE INDEX contract_vehicles_contract ON contract_vehicles (company_id, contract_id);

CREATE TABLE contract_occupants (
    company_id  bigint NOT NULL REFERENCES companies (id),
    id          bigint GENERATED ALWAYS AS IDENTITY,
    contract_id bigint NOT NULL,
    type        text NOT NULL CONSTRAINT contract_occupants_type_check CHECK (type IN (
                    'resident', 'tenant', 'guarantor', 'witness', 'payer', 'buyer', 'procurator')),
    name        text,
    person_id   bigint,
    tax_id      text,
    principal   boolean NOT NULL DEFAULT false,
    percentage  numeric(5,2) CONSTRAINT contract_occupants_percentage_check CHECK (percentage BETWEEN 0 AND 100),
    start_at    date,
    end_at      date,
    description text,
    notes       text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT contract_occupants_period_check CHECK (end_at >= start_at),
    CONSTRAINT contract_occupants_contract_fk FOREIGN KEY (company_id, contract_id)
        REFERENCES contracts (company_id, id) ON DELETE CASCADE,
    CONSTRAINT contract_occupants_person_fk FOREIGN KEY (company_id, person_id) REFERENCES persons (company_id, id)
);
CREATE INDEX contract_occupants_contract ON contract_occupants (company_id, contract_id);
CREATE INDEX contract_occupants_person ON contract_occupants (company_id, person_id);

CREATE TABLE contract_items (
    company_id        bigint NOT NULL REFERENCES companies (id),
    id                bigint GENERATED ALWAYS AS IDENTITY,
    contract_id       bigint NOT NULL,
    mode              text NOT NULL DEFAULT 'item' CONSTRAINT contract_items_mode_check
                          CHECK (mode IN ('item', 'commission', 'service')),
    item_id           bigint,
    parent_id         bigint,
    transfer_owner_id bigint,
    broker_id         bigint,
    description       text,
    calculate_mode    text CONSTRAINT contract_items_calculate_mode_check CHECK (calculate_mode IN ('percentage', 'fixed')),
    amount            numeric(14,2),
    percentage        numeric(7,4) CONSTRAINT contract_items_percentage_check CHECK (percentage BETWEEN 0 AND 100),
    percentage_mode   text CONSTRAINT contract_items_percentage_mode_check CHECK (percentage_mode IN (
                          'rental_value', 'recurring_commission', 'first_commission')),
    commissioned_type text CONSTRAINT contract_items_commissioned_type_check CHECK (commissioned_type IN (
                          'seller', 'broker', 'pickup', 'indicator', 'partner', 'manager', 'director', 'supervisor',
                          'marketing', 'coordinator', 'others')),
    start_at          date,
    end_at            date,
    -- the company's default items, copied onto new contracts (filter only)
    item_default      boolean NOT NULL DEFAULT false,
    config            text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT contract_items_period_check CHECK (end_at >= start_at),
    CONSTRAINT contract_items_parent_check CHECK (parent_id <> id),
    CONSTRAINT contract_items_contract_fk FOREIGN KEY (company_id, contract_id)
        REFERENCES contracts (company_id, id) ON DELETE CASCADE,
    CONSTRAINT contract_items_item_fk FOREIGN KEY (company_id, item_id) REFERENCES transaction_items (company_id, id),
    CONSTRAINT contract_items_parent_fk FOREIGN KEY (company_id, parent_id) REFERENCES contract_items (company_id, id),
    CONSTRAINT contract_items_transfer_owner_fk FOREIGN KEY (company_id, transfer_owner_id) REFERENCES persons (company_id, id),
    CONSTRAINT contract_items_broker_fk FOREIGN KEY (company_id, broker_id) REFERENCES persons (company_id, id)
);
CREATE INDEX contract_items_contract ON contract_items (company_id, contract_id, id);
CREATE INDEX contract_items_item ON contract_items (company_id, item_id);
CREATE INDEX contract_items_parent ON contract_items (company_id, parent_id);

-- The documents of a contract (documentables), written with it.
CREATE TABLE contract_documents (
    company_id  bigint NOT NULL REFERENCES companies (id),
    id          bigint GENERATED ALWAYS AS IDENTITY,
    contract_id bigint NOT NULL,
    template_id bigint,
    content     text,
    privacy     text NOT NULL DEFAULT 'private' CONSTRAINT contract_documents_privacy_check
                    CHECK (privacy IN ('private', 'public')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT contract_documents_contract_fk FOREIGN KEY (company_id, contract_id)
        REFERENCES contracts (company_id, id) ON DELETE CASCADE
);
CREATE INDEX contract_documents_contract ON contract_documents (company_id, contract_id);

-- Minimal records a client fills, for the includes no other resource
-- builds: the contract's files, inspections and insurances.
CREATE TABLE contract_files (
    company_id   bigint NOT NULL REFERENCES companies (id),
    id           bigint GENERATED ALWAYS AS IDENTITY,
    contract_id  bigint NOT NULL,
    name         text NOT NULL,
    url          text NOT NULL,
    content_type text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT contract_files_contract_fk FOREIGN KEY (company_id, contract_id)
        REFERENCES contracts (company_id, id) ON DELETE CASCADE
);
CREATE INDEX contract_files_contract ON contract_files (company_id, contract_id);

CREATE TABLE contract_inspections (
    company_id   bigint NOT NULL REFERENCES companies (id),
    id           bigint GENERATED ALWAYS AS IDENTITY,
    contract_id  bigint NOT NULL,
    kind         text NOT NULL CONSTRAINT contract_inspections_kind_check CHECK (kind IN ('entry', 'exit', 'periodic')),
    inspected_at date,
    notes        text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT contract_inspections_contract_fk FOREIGN KEY (company_id, contract_id)
        REFERENCES contracts (company_id, id) ON DELETE CASCADE
);
CREATE INDEX contract_inspections_contract ON contract_inspections (company_id, contract_id);

CREATE TABLE contract_insurances (
    company_id  bigint NOT NULL REFERENCES companies (id),
    id          bigint GENERATED ALWAYS AS IDENTITY,
    contract_id bigint NOT NULL,
    -- fire insurance is what hasFireInsurance looks for
    kind        text NOT NULL CONSTRAINT contract_insurances_kind_check CHECK (kind IN ('fire', 'guarantee', 'content', 'other')),
    insurer     text,
    policy      text,
    start_at    date,
    end_at      date,
    amount      numeric(14,2),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT contract_insurances_period_check CHECK (end_at >= start_at),
    CONSTRAINT contract_insurances_contract_fk FOREIGN KEY (company_id, contract_id)
        REFERENCES contracts (company_id, id) ON DELETE CASCADE
);
CREATE INDEX contract_insurances_contract ON contract_insurances (company_id, contract_id);
