// flow runs an integrator's first day against a propfin server with a
// client generated from its OpenAPI document (openapi-typescript types,
// openapi-fetch with its default settings): categories and types, the
// records an invoice needs, invoices, a list with an operator filter, an
// In filter and two sort keys, a PIX code, a receipt link, a payment and
// the ledger it posted. No casts, no query serializer of its own: what the
// types allow is what the server takes. It exits non-zero on the first
// answer it did not expect.
//
// PROPFIN_URL is the server (http://127.0.0.1:8080), PROPFIN_KEY an API key.
import createClient from "openapi-fetch";
import type { paths } from "./schema.js";

const baseUrl = process.env.PROPFIN_URL ?? "http://127.0.0.1:8080";
const key = process.env.PROPFIN_KEY;
if (!key) {
  fail("PROPFIN_KEY is not set");
}
const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });

function fail(message: string): never {
  console.error(`flow: FAILED: ${message}`);
  process.exit(1);
}

// answered checks an openapi-fetch result: the status wanted, and a body.
function answered<T>(step: string, want: number, r: { data?: T; error?: unknown; response: Response }): T {
  if (r.response.status !== want || r.data === undefined) {
    fail(`${step}: ${r.response.status}, want ${want}: ${JSON.stringify(r.error ?? r.data)}`);
  }
  console.log(`flow: ${step}: ${r.response.status}`);
  return r.data;
}

// present narrows a value the document leaves optional (every column of a
// record is, since fields chooses them) to one the step needs.
function present<T>(step: string, v: T | null | undefined): T {
  if (v === undefined || v === null) {
    fail(`${step}: missing in the answer`);
  }
  return v;
}

function same(step: string, got: unknown, want: unknown): void {
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    fail(`${step}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
}

// day is a date n days from today (UTC), YYYY-MM-DD.
function day(n: number): string {
  return new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
}

// brCode builds a static PIX BR Code (EMV, CRC16/CCITT-FALSE) charging amount.
function brCode(pixKey: string, amount: string, name: string, city: string): string {
  const field = (id: string, value: string) => id + String(value.length).padStart(2, "0") + value;
  const body =
    field("00", "01") +
    field("26", field("00", "br.gov.bcb.pix") + field("01", pixKey)) +
    field("52", "0000") +
    field("53", "986") +
    field("54", amount) +
    field("58", "BR") +
    field("59", name) +
    field("60", city) +
    field("62", field("05", "***")) +
    "6304";
  let crc = 0xffff;
  for (const ch of body) {
    crc ^= ch.charCodeAt(0) << 8;
    for (let i = 0; i < 8; i++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return body + crc.toString(16).toUpperCase().padStart(4, "0");
}

async function main(): Promise<void> {
  const run = Date.now().toString(36);

  // Categories and types, read back with their category.
  const category = answered("create a category", 201,
    await client.POST("/buildings/categories", { body: { description: `Residencial ${run}`, color: "#1e88e5" } })).data;
  const categoryId = present("category id", category.id);
  for (const description of ["Apartamento", "Casa"]) {
    answered(`create the type ${description}`, 201,
      await client.POST("/buildings/types", { body: { description, category_id: categoryId } }));
  }
  const types = answered("list the category's types", 200, await client.GET("/buildings/types", {
    params: { query: { "filter[category_id]": categoryId, sort: "-description,id", fields: ["id", "description"],
      "include[category]": "id,color" } },
  })).data;
  same("the types, description descending", types.map((t) => t.description), ["Casa", "Apartamento"]);
  same("the types' category", types.map((t) => t.category?.color), ["#1e88e5", "#1e88e5"]);

  // What an invoice points at: a business, its account and billing, two
  // payers, an owner of the building charged for, a transaction item.
  const business = answered("create a business", 201,
    await client.POST("/financial/businesses", { body: { name: `Horizonte ${run}` } })).data;
  const businessId = present("business id", business.id);
  const account = answered("create an account", 201,
    await client.POST("/financial/accounts", { body: { business_id: businessId, bank: "341" } })).data;
  const accountId = present("account id", account.id);
  const billing = answered("create a billing", 201,
    await client.POST("/financial/billings", { body: { name: "Boleto", account_id: accountId } })).data;
  const payers: number[] = [];
  for (const name of ["Paula Pagadora", "Pedro Pagador"]) {
    const person = answered(`create the payer ${name}`, 201, await client.POST("/persons", { body: { name } })).data;
    payers.push(present("payer id", person.id));
  }
  const owner = answered("create an owner", 201,
    await client.POST("/persons", { body: { name: "Olga Proprietária" } })).data;
  const building = answered("create a building", 201,
    await client.POST("/buildings", { body: { title: "Aurora", reference: `AU-${run}` } })).data;
  const buildingId = present("building id", building.id);
  answered("give the building its owner", 201, await client.POST("/buildings/{building}/owners", {
    params: { path: { building: buildingId } },
    body: { person_id: present("owner id", owner.id), percentage: "100" },
  }));
  const rent = answered("create a transaction item", 201, await client.POST("/financial/transactionItems", {
    body: { description: "Aluguel", debit: "customer", credit: "owner", type: "rent" },
  })).data;
  const rentId = present("item id", rent.id);

  // Three invoices: one for the first payer, two for the second.
  const invoices: number[] = [];
  for (const [i, payer] of [payers[0], payers[1], payers[1]].entries()) {
    const total = ["1000.00", "1250.50", "980.25"][i];
    const invoice = answered(`create invoice ${i + 1}`, 201, await client.POST("/invoices", {
      body: {
        type: "single", payer_id: payer, business_id: businessId, account_id: accountId,
        billing_id: billing.id, building_id: buildingId, description: `Aluguel ${i + 1}`, total,
        date: day(-1), due_date: day(10 + i), billing_method: "ticket",
        items: [{ item_id: rentId, amount: total }],
      },
    })).data;
    invoices.push(present("invoice id", invoice.id));
  }

  // The list: an operator filter, an In filter with two values, two sort
  // keys, the columns wanted and the payer's name.
  const listed = answered("list the invoices", 200, await client.GET("/invoices", {
    params: { query: {
      "filter[id|ge]": invoices[0],
      "filter[payerIn][]": payers,
      "filter[unpaid]": true,
      sort: "-due_date,id",
      fields: ["id", "total", "due_date", "payer_id"],
      "include[payer]": "name",
      withTotal: true,
    } },
  }));
  same("the invoices, due date descending", listed.data.map((r) => r.id), [invoices[2], invoices[1], invoices[0]]);
  same("their payers", listed.data.map((r) => r.payer?.name), ["Pedro Pagador", "Pedro Pagador", "Paula Pagadora"]);
  same("the total", listed.total, 3);

  // A PIX code and a receipt link for the first invoice.
  const invoiceId = invoices[0];
  const withPix = answered("store the PIX code", 200, await client.POST("/invoices/{invoice_id}/pixCode", {
    params: { path: { invoice_id: invoiceId } },
    body: { pixCode: brCode("cobranca@horizonte.example", "1000.00", "HORIZONTE", "SAO PAULO") },
  })).data;
  if (!withPix.pix_code?.startsWith("000201")) {
    fail(`the stored PIX code: ${withPix.pix_code}`);
  }
  const link = answered("ask for a receipt link", 200, await client.GET("/invoices/{invoice_id}/receiptLink", {
    params: { path: { invoice_id: invoiceId } },
  })).data;
  const page = await fetch(link.url);
  if (page.status !== 200 || !(page.headers.get("content-type") ?? "").startsWith("text/html")) {
    fail(`the receipt page ${link.url}: ${page.status} ${page.headers.get("content-type")}`);
  }
  console.log("flow: open the receipt page: 200");

  // The payment, and the ledger entries it posted.
  const paid = answered("pay the invoice", 200, await client.PUT("/invoices/{id}", {
    params: { path: { id: invoiceId } },
    body: { billing_method: "ticket", paid: true, paid_at: day(-1) },
  })).data;
  same("the invoice's status", paid.status, "paid");
  const ledger = answered("read the ledger", 200, await client.GET("/transactions", {
    params: { query: { "filter[invoice_id]": invoiceId, sort: "id" } },
  })).data;
  if (ledger.length === 0) {
    fail("the payment posted no ledger entry");
  }
  const open = answered("list the unpaid invoices", 200, await client.GET("/invoices", {
    params: { query: { "filter[payerIn][]": payers, "filter[unpaid]": true, sort: "id", fields: ["id"] } },
  }));
  same("the unpaid invoices", open.data.map((r) => r.id), [invoices[1], invoices[2]]);
  console.log(`flow: ok (${ledger.length} ledger entries for invoice ${invoiceId})`);
}

main().catch((err: unknown) => fail(String(err)));
