-- The money records of spec 001: the transaction-item catalogue, invoices
-- with their lines, history, files and messages, and the ledger
-- (transactions) the payments are posted to. See docs/ledger.md.
--
-- As everywhere: keys lead with company_id, every reference is a composite
-- foreign key through company_id, and amounts are numeric, never floats.

-- A minimal contracts table: what invoices and ledger entries point at and
-- filter through (reference, id2, type, activity, property, tenant). The
-- contracts resource completes it in its own migration.
CREATE TABLE contracts (
    company_id  bigint NOT NULL REFERENCES companies (id),
    id          bigint GENERATED ALWAYS AS IDENTITY,
    id2         bigint,
    reference   text,
    type        text NOT NULL CONSTRAINT contracts_type_check
                    CHECK (type IN ('rent', 'season', 'sale', 'subscription')),
    active      text NOT NULL DEFAULT 'active' CONSTRAINT contracts_active_check CHECK (active IN (
                    'active', 'pre_reserved', 'reserved', 'suspended', 'canceled', 'finished')),
    building_id bigint,
    tenant_id   bigint,
    custom_fields jsonb NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT contracts_building_fk FOREIGN KEY (company_id, building_id) REFERENCES buildings (company_id, id),
    CONSTRAINT contracts_tenant_fk FOREIGN KEY (company_id, tenant_id) REFERENCES persons (company_id, id)
);
CREATE UNIQUE INDEX contracts_id2_key ON contracts (company_id, id2);
CREATE INDEX contracts_reference ON contracts (company_id, reference);
CREATE INDEX contracts_building ON contracts (company_id, building_id);
CREATE INDEX contracts_tenant ON contracts (company_id, tenant_id);

-- What an invoice line or a ledger entry is booked as: who is debited and
-- who is credited (business, owner, customer, broker), and its kind.
CREATE TABLE transaction_items (
    company_id          bigint NOT NULL REFERENCES companies (id),
    id                  bigint GENERATED ALWAYS AS IDENTITY,
    description         text NOT NULL,
    debit               text CONSTRAINT transaction_items_debit_check
                            CHECK (debit IN ('business', 'owner', 'customer', 'broker')),
    credit              text CONSTRAINT transaction_items_credit_check
                            CHECK (credit IN ('business', 'owner', 'customer', 'broker')),
    type                text NOT NULL DEFAULT 'default' CONSTRAINT transaction_items_type_check CHECK (type IN (
                            'default', 'commission', 'single_commission', 'rent', 'tariff', 'fee',
                            'discount', 'duty', 'iptu')),
    purpose             text CONSTRAINT transaction_items_purpose_check
                            CHECK (purpose IN ('rent', 'sale', 'subscription')),
    active              boolean NOT NULL DEFAULT true,
    guaranteed_transfer boolean NOT NULL DEFAULT false,
    owner_report        boolean NOT NULL DEFAULT false,
    readjust            boolean NOT NULL DEFAULT false,
    fiscal_note         boolean NOT NULL DEFAULT false,
    dimob               boolean NOT NULL DEFAULT false,
    blocked             boolean NOT NULL DEFAULT false,
    -- the chart-of-accounts entries each side is booked to
    debit_plan_id       bigint,
    credit_plan_id      bigint,
    custom_fields       jsonb NOT NULL DEFAULT '{}',
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT transaction_items_debit_plan_fk FOREIGN KEY (company_id, debit_plan_id)
        REFERENCES plans (company_id, id),
    CONSTRAINT transaction_items_credit_plan_fk FOREIGN KEY (company_id, credit_plan_id)
        REFERENCES plans (company_id, id)
);
CREATE INDEX transaction_items_debit_plan ON transaction_items (company_id, debit_plan_id);
CREATE INDEX transaction_items_credit_plan ON transaction_items (company_id, credit_plan_id);

CREATE TABLE invoices (
    company_id                 bigint NOT NULL REFERENCES companies (id),
    id                         bigint GENERATED ALWAYS AS IDENTITY,
    -- the invoice's number in the company's former system (idOldIn)
    id2                        text,
    type                       text NOT NULL CONSTRAINT invoices_type_check CHECK (type IN ('single', 'contract')),
    payer_id                   bigint NOT NULL,
    contract_id                bigint,
    -- the property charged for (an extension: set on single invoices, and
    -- copied from the contract on generated ones)
    building_id                bigint,
    business_id                bigint NOT NULL,
    account_id                 bigint NOT NULL,
    billing_id                 bigint,
    billing_method             text NOT NULL CONSTRAINT invoices_billing_method_check CHECK (billing_method IN (
                                   'ticket', 'cash', 'deposit', 'pix', 'ted', 'credit', 'debit', 'check', 'debit_account')),
    -- kept by every write (and the nightly run); see docs/ledger.md
    status                     text NOT NULL DEFAULT 'unpaid' CONSTRAINT invoices_status_check CHECK (status IN (
                                   'paid', 'unpaid', 'overdue', 'in_protest', 'refunded', 'partially_paid',
                                   'canceled', 'uncollectible')),
    paid                       boolean NOT NULL DEFAULT false,
    paid_at                    date,
    credit_at                  date,
    payment_error              boolean NOT NULL DEFAULT false,
    -- what the payment settled, written by the posting (read-only)
    paid_amount                numeric(14,2),
    paid_late_fee              numeric(14,2),
    paid_interest              numeric(14,2),
    paid_discount              numeric(14,2),
    description                text NOT NULL,
    total                      numeric(14,2) NOT NULL,
    date                       date NOT NULL,
    due_date                   date NOT NULL,
    guaranteed_transfer        boolean NOT NULL DEFAULT false,
    period_initial             date,
    period_final               date,
    tag                        bigint[] NOT NULL DEFAULT '{}',
    ticket_registered          boolean NOT NULL DEFAULT false,
    ticket_date                timestamptz,
    ticket_key                 text,
    ticket_id                  bigint,
    ticket_fee                 numeric(14,2),
    ticket_link                text,
    ticket_barcode             text,
    ticket_info                text,
    ticket_digitable           text,
    ticket_without_pix         boolean NOT NULL DEFAULT false,
    ticket_late_fee            boolean NOT NULL DEFAULT false,
    ticket_late_fee_item_id    bigint,
    ticket_late_fee_percentage numeric(5,2) CONSTRAINT invoices_ticket_late_fee_percentage_check
                                   CHECK (ticket_late_fee_percentage BETWEEN 0 AND 100),
    ticket_late_fee_interest   numeric(5,2) CONSTRAINT invoices_ticket_late_fee_interest_check
                                   CHECK (ticket_late_fee_interest BETWEEN 0 AND 100),
    ticket_discount            boolean NOT NULL DEFAULT false,
    ticket_discount_mode       text CONSTRAINT invoices_ticket_discount_mode_check
                                   CHECK (ticket_discount_mode IN ('fixed', 'percentage')),
    ticket_discount_fixed      numeric(14,2) CONSTRAINT invoices_ticket_discount_fixed_check
                                   CHECK (ticket_discount_fixed >= 0),
    ticket_discount_percentage numeric(5,2) CONSTRAINT invoices_ticket_discount_percentage_check
                                   CHECK (ticket_discount_percentage BETWEEN 0 AND 100),
    ticket_discount_action     text CONSTRAINT invoices_ticket_discount_action_check
                                   CHECK (ticket_discount_action IN ('business', 'owner')),
    ticket_discount_days       integer CONSTRAINT invoices_ticket_discount_days_check
                                   CHECK (ticket_discount_days >= 0),
    transfer_auto_disabled     boolean NOT NULL DEFAULT false,
    -- the state of the automatic transfer to the owners (autoTransferStatus)
    auto_transfer_status       text,
    protest                    text,
    -- the PIX copy-and-paste code, written by POST /invoices/{id}/pixCode
    pix_code                   text CONSTRAINT invoices_pix_code_check CHECK (length(pix_code) <= 512),
    custom_fields              jsonb NOT NULL DEFAULT '{}',
    created_at                 timestamptz NOT NULL DEFAULT now(),
    updated_at                 timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT invoices_total_check CHECK (total >= 0),
    CONSTRAINT invoices_period_check CHECK (period_final >= period_initial),
    CONSTRAINT invoices_paid_check CHECK (NOT paid OR paid_at IS NOT NULL),
    CONSTRAINT invoices_payer_fk FOREIGN KEY (company_id, payer_id) REFERENCES persons (company_id, id),
    CONSTRAINT invoices_contract_fk FOREIGN KEY (company_id, contract_id) REFERENCES contracts (company_id, id),
    CONSTRAINT invoices_building_fk FOREIGN KEY (company_id, building_id) REFERENCES buildings (company_id, id),
    CONSTRAINT invoices_business_fk FOREIGN KEY (company_id, business_id) REFERENCES businesses (company_id, id),
    CONSTRAINT invoices_account_fk FOREIGN KEY (company_id, account_id) REFERENCES accounts (company_id, id),
    CONSTRAINT invoices_billing_fk FOREIGN KEY (company_id, billing_id) REFERENCES billings (company_id, id),
    CONSTRAINT invoices_late_fee_item_fk FOREIGN KEY (company_id, ticket_late_fee_item_id)
        REFERENCES transaction_items (company_id, id)
);
CREATE UNIQUE INDEX invoices_id2_key ON invoices (company_id, id2);
-- the list's usual shape: open invoices by due date
CREATE INDEX invoices_due_date ON invoices (company_id, due_date, id);
CREATE INDEX invoices_open_due_date ON invoices (company_id, due_date, id) WHERE NOT paid;
CREATE INDEX invoices_payer ON invoices (company_id, payer_id);
CREATE INDEX invoices_contract ON invoices (company_id, contract_id);
CREATE INDEX invoices_building ON invoices (company_id, building_id);
CREATE INDEX invoices_business ON invoices (company_id, business_id);
CREATE INDEX invoices_account ON invoices (company_id, account_id);
CREATE INDEX invoices_billing ON invoices (company_id, billing_id);
CREATE INDEX invoices_date ON invoices (company_id, date);
CREATE INDEX invoices_ticket_key ON invoices (company_id, ticket_key);

-- The lines of an invoice. kind 'line' are the lines a client writes; the
-- posting of a payment adds its settlement lines (late_fee, interest,
-- discount) and removes them when the payment is undone.
CREATE TABLE invoice_items (
    company_id  bigint NOT NULL REFERENCES companies (id),
    id          bigint GENERATED ALWAYS AS IDENTITY,
    invoice_id  bigint NOT NULL,
    kind        text NOT NULL DEFAULT 'line' CONSTRAINT invoice_items_kind_check
                    CHECK (kind IN ('line', 'late_fee', 'interest', 'discount')),
    item_id     bigint NOT NULL,
    amount      numeric(14,2) NOT NULL,
    description text,
    -- the owner credited or debited by the line (default: the building's
    -- owners by their shares) and the broker of a commission line
    owner_id    bigint,
    broker_id   bigint,
    -- the fiscal note issued for the line (removeWithFiscalNote)
    fiscal_note text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT invoice_items_invoice_fk FOREIGN KEY (company_id, invoice_id)
        REFERENCES invoices (company_id, id) ON DELETE CASCADE,
    CONSTRAINT invoice_items_item_fk FOREIGN KEY (company_id, item_id)
        REFERENCES transaction_items (company_id, id),
    CONSTRAINT invoice_items_owner_fk FOREIGN KEY (company_id, owner_id) REFERENCES persons (company_id, id),
    CONSTRAINT invoice_items_broker_fk FOREIGN KEY (company_id, broker_id) REFERENCES persons (company_id, id)
);
CREATE INDEX invoice_items_invoice ON invoice_items (company_id, invoice_id, id);
CREATE INDEX invoice_items_item ON invoice_items (company_id, item_id);

-- Every change of an invoice: who or what (actor), when, which fields from
-- what to what (changes: [{"field", "from", "to"}]), and why (origin).
CREATE TABLE invoice_history (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    invoice_id bigint NOT NULL,
    at         timestamptz NOT NULL DEFAULT now(),
    -- 'user' (an API key's user), 'job', 'return_file', 'system'
    actor      text NOT NULL,
    actor_id   bigint,
    -- the operation: create, update, payment, payment_undone, pix_code, ...
    origin     text NOT NULL,
    changes    jsonb NOT NULL DEFAULT '[]',
    note       text,
    PRIMARY KEY (company_id, id)
);
-- no foreign key to invoices: the history of a deleted invoice is kept
CREATE INDEX invoice_history_invoice ON invoice_history (company_id, invoice_id, id);

-- The files and messages of an invoice: minimal records a client fills
-- (docs/api.md).
CREATE TABLE invoice_files (
    company_id   bigint NOT NULL REFERENCES companies (id),
    id           bigint GENERATED ALWAYS AS IDENTITY,
    invoice_id   bigint NOT NULL,
    name         text NOT NULL,
    url          text NOT NULL,
    content_type text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT invoice_files_invoice_fk FOREIGN KEY (company_id, invoice_id)
        REFERENCES invoices (company_id, id) ON DELETE CASCADE
);
CREATE INDEX invoice_files_invoice ON invoice_files (company_id, invoice_id);

CREATE TABLE invoice_messages (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    invoice_id bigint NOT NULL,
    channel    text NOT NULL CONSTRAINT invoice_messages_channel_check
                   CHECK (channel IN ('email', 'sms', 'whatsapp', 'other')),
    recipient  text,
    body       text NOT NULL,
    sent_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT invoice_messages_invoice_fk FOREIGN KEY (company_id, invoice_id)
        REFERENCES invoices (company_id, id) ON DELETE CASCADE
);
CREATE INDEX invoice_messages_invoice ON invoice_messages (company_id, invoice_id);

-- The ledger. Each entry sits on one party's statement (extract) as a
-- debit or a credit. Entries posted from a payment carry the invoice and
-- the line's item; undoing a payment adds reversing entries (reverses_id),
-- it never deletes. docs/ledger.md.
CREATE TABLE transactions (
    company_id             bigint NOT NULL REFERENCES companies (id),
    id                     bigint GENERATED ALWAYS AS IDENTITY,
    -- the entries made together (installments, the entries of a payment)
    split                  text,
    invoice_id             bigint,
    -- the transfer entry that paid this one out to its party
    transfer_id            bigint,
    morph_key              text,
    mode                   text NOT NULL DEFAULT 'transaction' CONSTRAINT transactions_mode_check CHECK (mode IN (
                               'transaction', 'invoice', 'transfer', 'commission', 'transfer_commission',
                               'guaranteed_rent', 'chargeback')),
    type                   text NOT NULL CONSTRAINT transactions_type_check CHECK (type IN ('debit', 'credit', 'transfer')),
    account_id             bigint,
    business_id            bigint,
    plan_id                bigint,
    user_id                bigint,
    item_id                bigint,
    guaranteed_transfer_id bigint,
    person_id              bigint,
    building_id            bigint,
    contract_id            bigint,
    broker_id              bigint,
    owner_id               bigint,
    tenant_id              bigint,
    extract                text CONSTRAINT transactions_extract_check
                               CHECK (extract IN ('business', 'owner', 'customer', 'broker')),
    date                   date NOT NULL,
    position               bigint NOT NULL DEFAULT 0,
    amount                 numeric(14,2) NOT NULL,
    amount_primary         numeric(14,2),
    percentage             numeric(7,4),
    competence             date,
    description            text,
    paid                   boolean NOT NULL DEFAULT false,
    due_date               date,
    billing_method         text CONSTRAINT transactions_billing_method_check CHECK (billing_method IN (
                               'ticket', 'cash', 'deposit', 'pix', 'ted', 'credit', 'debit', 'check', 'debit_account')),
    tag                    bigint[] NOT NULL DEFAULT '{}',
    notes                  text,
    interest               numeric(14,2),
    discount               numeric(14,2),
    check_agency           text,
    check_account          text,
    check_id               text,
    recurrency_periodicity text,
    recurrency_total       integer CONSTRAINT transactions_recurrency_total_check CHECK (recurrency_total BETWEEN 1 AND 360),
    recurrency_installment integer CONSTRAINT transactions_recurrency_installment_check CHECK (recurrency_installment >= 1),
    commission             boolean NOT NULL DEFAULT false,
    commission_mode        text,
    commission_fixed       numeric(14,2),
    commission_percentage  numeric(7,4),
    commission_item_id     bigint,
    commission_id          bigint,
    metadata               text,
    -- the entry this one reverses (an undone payment)
    reverses_id            bigint,
    custom_fields          jsonb NOT NULL DEFAULT '{}',
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    -- a deleted invoice leaves its entries (and their reversals) in the book
    CONSTRAINT transactions_invoice_fk FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id)
        ON DELETE SET NULL (invoice_id),
    CONSTRAINT transactions_transfer_fk FOREIGN KEY (company_id, transfer_id) REFERENCES transactions (company_id, id),
    CONSTRAINT transactions_account_fk FOREIGN KEY (company_id, account_id) REFERENCES accounts (company_id, id),
    CONSTRAINT transactions_business_fk FOREIGN KEY (company_id, business_id) REFERENCES businesses (company_id, id),
    CONSTRAINT transactions_plan_fk FOREIGN KEY (company_id, plan_id) REFERENCES plans (company_id, id),
    CONSTRAINT transactions_user_fk FOREIGN KEY (company_id, user_id) REFERENCES users (company_id, id),
    CONSTRAINT transactions_item_fk FOREIGN KEY (company_id, item_id) REFERENCES transaction_items (company_id, id),
    CONSTRAINT transactions_person_fk FOREIGN KEY (company_id, person_id) REFERENCES persons (company_id, id),
    CONSTRAINT transactions_contract_fk FOREIGN KEY (company_id, contract_id) REFERENCES contracts (company_id, id),
    CONSTRAINT transactions_building_fk FOREIGN KEY (company_id, building_id) REFERENCES buildings (company_id, id),
    CONSTRAINT transactions_broker_fk FOREIGN KEY (company_id, broker_id) REFERENCES persons (company_id, id),
    CONSTRAINT transactions_owner_fk FOREIGN KEY (company_id, owner_id) REFERENCES persons (company_id, id),
    CONSTRAINT transactions_tenant_fk FOREIGN KEY (company_id, tenant_id) REFERENCES persons (company_id, id),
    CONSTRAINT transactions_commission_item_fk FOREIGN KEY (company_id, commission_item_id)
        REFERENCES transaction_items (company_id, id),
    CONSTRAINT transactions_reverses_fk FOREIGN KEY (company_id, reverses_id) REFERENCES transactions (company_id, id)
);
CREATE INDEX transactions_date ON transactions (company_id, date, id);
CREATE INDEX transactions_split ON transactions (company_id, split);
CREATE INDEX transactions_invoice ON transactions (company_id, invoice_id);
CREATE INDEX transactions_transfer ON transactions (company_id, transfer_id);
CREATE INDEX transactions_owner ON transactions (company_id, owner_id, date);
CREATE INDEX transactions_tenant ON transactions (company_id, tenant_id);
CREATE INDEX transactions_person ON transactions (company_id, person_id);
CREATE INDEX transactions_broker ON transactions (company_id, broker_id);
CREATE INDEX transactions_building ON transactions (company_id, building_id);
CREATE INDEX transactions_contract ON transactions (company_id, contract_id);
CREATE INDEX transactions_plan ON transactions (company_id, plan_id);
CREATE INDEX transactions_item ON transactions (company_id, item_id);
CREATE INDEX transactions_account ON transactions (company_id, account_id);
CREATE INDEX transactions_business ON transactions (company_id, business_id);
CREATE INDEX transactions_reverses ON transactions (company_id, reverses_id);

CREATE TABLE transaction_files (
    company_id     bigint NOT NULL REFERENCES companies (id),
    id             bigint GENERATED ALWAYS AS IDENTITY,
    transaction_id bigint NOT NULL,
    name           text NOT NULL,
    url            text NOT NULL,
    content_type   text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT transaction_files_transaction_fk FOREIGN KEY (company_id, transaction_id)
        REFERENCES transactions (company_id, id) ON DELETE CASCADE
);
CREATE INDEX transaction_files_transaction ON transaction_files (company_id, transaction_id);
