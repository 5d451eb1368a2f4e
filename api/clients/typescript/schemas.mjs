// schemas compiles every component schema of an OpenAPI 3.1 document with
// Ajv's JSON Schema 2020-12 validator in strict mode, the way an integrator
// validating answers would, and checks money amounts against the schemas of
// decimals: every amount 0.00 to 999.99 must be valid. Usage:
// node schemas.mjs openapi.json
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const file = process.argv[2];
if (!file) {
  console.error("usage: node schemas.mjs openapi.json");
  process.exit(2);
}
const doc = JSON.parse(readFileSync(file, "utf8"));
const schemas = doc.components?.schemas ?? {};
// No keyword is added: strict mode refuses any it does not know, vendor
// extensions (x-...) included, as it would in an integrator's code.
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
// The components as one schema's $defs, their references moved with them.
const defs = JSON.parse(JSON.stringify(schemas).replaceAll('"#/components/schemas/', '"#/$defs/'));
// Each is checked against the meta-schema and compiled on its own below, so
// that every refused schema is named.
ajv.addSchema({ $id: "openapi.json", $defs: defs }, undefined, undefined, false);

let failed = 0;
for (const name of Object.keys(schemas)) {
  try {
    if (!ajv.validateSchema(defs[name])) {
      throw new Error(ajv.errorsText(ajv.errors));
    }
    ajv.getSchema(`openapi.json#/$defs/${pointer(name)}`);
  } catch (err) {
    failed++;
    console.error(`schemas: ${name}: ${err.message}`);
  }
}
for (const name of Object.keys(schemas).filter((n) => /^Decimal2/.test(n))) {
  const validate = ajv.getSchema(`openapi.json#/$defs/${pointer(name)}`);
  const text = name.endsWith("Text");
  let refused = 0;
  for (let cents = 0; cents < 100_000; cents++) {
    const amount = (cents / 100).toFixed(2);
    if (!validate(text ? amount : Number(amount))) {
      refused++;
    }
  }
  if (refused > 0) {
    failed++;
    console.error(`schemas: ${name} refuses ${refused} of the 100,000 amounts 0.00 to 999.99`);
  }
}
// A multipleOf that is not a whole number is tested on binary floats, where
// 19.99 is no multiple of 0.01: default validators refuse valid amounts.
JSON.stringify(doc, (k, v) => {
  if (k === "multipleOf" && !Number.isInteger(v)) {
    failed++;
    console.error(`schemas: multipleOf ${v}: validators refuse valid amounts against it`);
  }
  return v;
});
if (failed > 0) {
  console.error(`schemas: FAILED: ${failed} problems`);
  process.exit(1);
}
console.log(`schemas: ${Object.keys(schemas).length} component schemas compile with Ajv 2020 in strict mode`);

function pointer(name) {
  return encodeURIComponent(name.replace(/~/g, "~0").replace(/\//g, "~1"));
}
