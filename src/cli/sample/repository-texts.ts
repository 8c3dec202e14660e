/**
 * Other texts the sample agent reads: the diff of the commit that broke the suite, and a
 * KoSIT reference invoice (UBL XML) built from the totals test's lines.
 */

/** `git show 5b27a91`: the rounding change of #412, where the regression came in. */
export const ROUNDING_COMMIT_DIFF = String.raw`$ git show 5b27a91
commit 5b27a91e6f0c2d8b4a13f9e27c5d0b8a6e1f4c39
Author: Mara Lindqvist <mara.lindqvist@acme.example>
Date:   Tue Nov 18 16:42:07 2025 +0100

    Round VAT half-even by default (EN 16931 reference calculators)

    The KoSIT validator and the ERPs of several customers round VAT amounts half-even; with
    half-up, about 1 invoice in 40 of the test corpus differed by a cent in a tax group.

    - roundHalfEven, and 'half-even' as DEFAULT_ROUNDING_MODE
    - Invoice.roundingMode, applied at every rounding point
    - splitInclusiveAmount takes the mode

    Closes #398

diff --git a/CHANGELOG.md b/CHANGELOG.md
index 3f1a2b4..9e0c7d1 100644
--- a/CHANGELOG.md
+++ b/CHANGELOG.md
@@ -1,5 +1,14 @@
 # Changelog

+## 3.4.0 (unreleased)
+
+### Changed
+- VAT amounts, line amounts and inclusive-price splits are rounded half-even by default
+  (#412). Set roundingMode: 'half-up' on the invoice for the previous behaviour.
+
+### Added
+- roundHalfEven, roundHalfDown and roundWithMode in the public API.
+
 ## 3.3.2 (2025-10-30)

 ### Fixed
diff --git a/src/invoice/tax.ts b/src/invoice/tax.ts
index 41c0e9a..b7d2f58 100644
--- a/src/invoice/tax.ts
+++ b/src/invoice/tax.ts
@@ -1,7 +1,7 @@
 /**
  * Tax rates by country, category and date, and the split of tax-inclusive prices.
  */
-import { roundHalfUp } from '../money/round.js';
+import { roundHalfUp, type RoundingMode, DEFAULT_ROUNDING_MODE, roundWithMode } from '../money/round.js';

 /** UNCL 5305 tax categories used by EN 16931. */
 export type TaxCategory = 'S' | 'AA' | 'Z' | 'E' | 'AE' | 'K' | 'G' | 'O';
@@ -79,9 +79,9 @@ export interface InclusiveSplit {
  * Splits a tax-inclusive amount (a shop price) into net and tax so that they add up to the
  * amount: tax = amount × rate / (1 + rate), rounded; net = amount − tax.
  */
-export function splitInclusiveAmount(amountMinor: number, rate: number): InclusiveSplit {
+export function splitInclusiveAmount(amountMinor: number, rate: number, mode: RoundingMode = DEFAULT_ROUNDING_MODE): InclusiveSplit {
   const exactTax = (amountMinor * rate) / (1 + rate);
-  const taxMinor = roundHalfUp(exactTax);
+  const taxMinor = mode === DEFAULT_ROUNDING_MODE ? roundHalfUp(exactTax) : roundWithMode(exactTax, mode);
   return { netMinor: amountMinor - taxMinor, taxMinor };
 }

diff --git a/src/invoice/totals.ts b/src/invoice/totals.ts
index 0b8e3c1..c4a9f27 100644
--- a/src/invoice/totals.ts
+++ b/src/invoice/totals.ts
@@ -8,7 +8,7 @@
  */
 import { getCurrency, type Currency } from '../money/currency.js';
-import { allocateMinor, multiplyMinor, roundHalfUp } from '../money/round.js';
+import { allocateMinor, multiplyMinor, roundWithMode, type RoundingMode, DEFAULT_ROUNDING_MODE } from '../money/round.js';
 import { resolveTaxRate, type TaxCategory, type TaxRate } from './tax.js';

 /** One line of an invoice. */
@@ -40,6 +40,8 @@ export interface Invoice {
   lines: InvoiceLine[];
   /** Invoice-level discount in minor units, spread over the lines by their net amounts. */
   discountMinor?: number;
+  /** Rounding mode of every step. */
+  roundingMode?: RoundingMode;
 }

 /** Net amount and tax of one line. */
@@ -86,11 +88,12 @@ export interface InvoiceTotals {

 /** Computes the line totals, before tax. */
 export function computeLineTotals(invoice: Invoice): LineTotal[] {
+  const mode = invoice.roundingMode ?? DEFAULT_ROUNDING_MODE;
   const gross = invoice.lines.map((line) => {
     const amount = line.quantity * line.unitPriceMinor;
     const discount = amount * (line.discountRate ?? 0);
-    return roundHalfUp(amount - discount);
+    return roundWithMode(amount - discount, mode);
   });
   const shares = allocateMinor(invoice.discountMinor ?? 0, gross);
   return invoice.lines.map((line, index) => {
@@ -110,6 +113,7 @@ export function computeLineTotals(invoice: Invoice): LineTotal[] {
 export function computeTotals(invoice: Invoice): InvoiceTotals {
   if (invoice.lines.length === 0) throw new RangeError('an invoice needs at least one line');
   const currency = getCurrency(invoice.currency);
+  const mode = invoice.roundingMode ?? DEFAULT_ROUNDING_MODE;
   const lines = computeLineTotals(invoice);

   const groups = new Map<string, TaxGroup>();
@@ -121,13 +125,11 @@ export function computeTotals(invoice: Invoice): InvoiceTotals {
       groups.set(key, group);
     }
     group.taxableMinor += line.netMinor;
+    // #412: round the tax of each line with the invoice's mode.
+    group.taxMinor += multiplyMinor(line.netMinor, line.taxRate.rate, mode);
   }

-  const taxGroups = [...groups.values()].map((group) => ({
-    ...group,
-    taxMinor: multiplyMinor(group.taxableMinor, group.rate),
-  }));
+  const taxGroups = [...groups.values()];
   const netMinor = lines.reduce((sum, line) => sum + line.netMinor, 0);
   const taxMinor = taxGroups.reduce((sum, group) => sum + group.taxMinor, 0);
   return { currency, lines, netMinor, taxGroups, taxMinor, grossMinor: netMinor + taxMinor };
diff --git a/src/money/round.ts b/src/money/round.ts
index 7d4e1f0..2a8c6b3 100644
--- a/src/money/round.ts
+++ b/src/money/round.ts
@@ -1,24 +1,62 @@
 /**
  * Rounding of money amounts. Amounts are computed in floating point only transiently: every
  * public function returns integer minor units (cents, pence, yen).
+ *
+ * Since 3.4.0 (#412) the default mode is half-even ("banker's rounding"), as required by the
+ * EN 16931 e-invoicing rules for VAT amounts; half-up stays available for legacy exports.
  */
 import type { Currency } from './currency.js';

+/** How a value exactly halfway between two minor units is rounded. */
+export type RoundingMode = 'half-even' | 'half-up' | 'half-down' | 'floor' | 'ceiling';
+
+/** The default rounding mode of every computation in the package. */
+export const DEFAULT_ROUNDING_MODE: RoundingMode = 'half-even';
+
+/**
+ * Rounds to the nearest integer; ties go to the even neighbour.
+ *
+ *   roundHalfEven(2.5) === 2, roundHalfEven(3.5) === 4, roundHalfEven(-2.5) === -2
+ */
+export function roundHalfEven(value: number): number {
+  const floor = Math.floor(value);
+  const fraction = value - floor;
+  if (Math.abs(fraction - 0.5) < Number.EPSILON) {
+    return floor % 2 === 0 ? floor : floor + 1;
+  }
+  return Math.round(value);
+}
+
 /** Rounds to the nearest integer; ties go away from zero. */
 export function roundHalfUp(value: number): number {
   return Math.sign(value) * Math.round(Math.abs(value));
 }

+/** Rounds to the nearest integer; ties go towards zero. */
+export function roundHalfDown(value: number): number {
+  return Math.sign(value) * Math.ceil(Math.abs(value) - 0.5);
+}
+
+/** Rounds with the given mode. */
+export function roundWithMode(value: number, mode: RoundingMode = DEFAULT_ROUNDING_MODE): number {
+  switch (mode) {
+    case 'half-even':
+      return roundHalfEven(value);
+    case 'half-up':
+      return roundHalfUp(value);
+    case 'half-down':
+      return roundHalfDown(value);
+    case 'floor':
+      return Math.floor(value);
+    case 'ceiling':
+      return Math.ceil(value);
+  }
+}
+
 /**
  * Converts a decimal amount ("12.345" or 12.345) to integer minor units of the currency,
- * rounding half-up: toMinorUnits("12.345", EUR) === 1235.
+ * rounding with the given mode: toMinorUnits("12.345", EUR) === 1234 (half-even).
  */
-export function toMinorUnits(amount: string | number, currency: Currency): number {
+export function toMinorUnits(amount: string | number, currency: Currency, mode: RoundingMode = DEFAULT_ROUNDING_MODE): number {
   const value = typeof amount === 'number' ? amount : parseDecimal(amount);
   const factor = 10 ** currency.minorUnits;
-  return roundHalfUp(value * factor);
+  return roundWithMode(value * factor, mode);
 }

@@ -38,8 +76,8 @@ export function fromMinorUnits(minor: number, currency: Currency): string {
  * Multiplies minor units by a rate (a tax rate, a discount share) and rounds the product
  * back to minor units.
  */
-export function multiplyMinor(minor: number, rate: number): number {
-  return roundHalfUp(minor * rate);
+export function multiplyMinor(minor: number, rate: number, mode: RoundingMode = DEFAULT_ROUNDING_MODE): number {
+  return roundWithMode(minor * rate, mode);
 }

 /**
diff --git a/tests/money/round.test.ts b/tests/money/round.test.ts
index 55e0a7c..e81b4d9 100644
--- a/tests/money/round.test.ts
+++ b/tests/money/round.test.ts
@@ -1,9 +1,26 @@
 import { describe, expect, it } from 'vitest';
-import { allocateMinor, fromMinorUnits, multiplyMinor, parseDecimal, roundHalfUp, toMinorUnits } from '../../src/money/round.js';
+import { allocateMinor, fromMinorUnits, multiplyMinor, parseDecimal, roundHalfDown, roundHalfEven, roundHalfUp, toMinorUnits } from '../../src/money/round.js';
 import { getCurrency } from '../../src/money/currency.js';

+const ROUND_CASES: Array<[number, number]> = [
+  [0.5, 0],
+  [1.5, 2],
+  [2.5, 2],
+  [3.5, 4],
+  [-0.5, -0],
+  [-1.5, -2],
+  [-2.5, -2],
+  [2.4999, 2],
+  [2.5001, 3],
+  [1e15 + 0.5, 1e15],
+];
+
+describe('roundHalfEven', () => {
+  it.each(ROUND_CASES)('rounds %s to %s', (value, expected) => expect(roundHalfEven(value)).toBe(expected));
+});
+
 describe('roundHalfUp', () => {
   it('rounds 2.5 to 3', () => {
     expect(roundHalfUp(2.5)).toBe(3);
@@ -52,12 +69,15 @@ const MINOR_UNIT_CASES: Array<[string, string, number]> = [
   ['12.34', 'EUR', 1234],
-  ['12.345', 'EUR', 1235],
+  ['12.345', 'EUR', 1234],
   ['12.355', 'EUR', 1236],
-  ['0.125', 'USD', 13],
+  ['0.125', 'USD', 12],
   ['0.135', 'USD', 14],
   ['1.005', 'EUR', 100],
+  ['1.015', 'EUR', 102],
+  ['2.675', 'EUR', 268],
   ['1250', 'JPY', 1250],
-  ['1250.5', 'JPY', 1251],
+  ['1250.5', 'JPY', 1250],
+  ['1251.5', 'JPY', 1252],
   ['1.2345', 'KWD', 1234],
   ['1.2355', 'BHD', 1236],
-  ['-12.345', 'EUR', -1235],
+  ['-12.345', 'EUR', -1234],
   ['99999999.995', 'EUR', 10000000000],
 ];
@@ -104,6 +124,12 @@ describe('multiplyMinor', () => {
     expect(multiplyMinor(1000, 0.19)).toBe(190);
   });

+  it('rounds 2005 x 0.1 to 200 (tie in binary)', () => {
+    // 2005 * 0.1 === 200.50000000000003
+    expect(multiplyMinor(2005, 0.1)).toBe(200);
+  });
+
+  it('honours half-up', () => {
+    expect(multiplyMinor(2005, 0.1, 'half-up')).toBe(201);
+  });
 });`;

/** Lines of the KoSIT reference invoice 01.01a, as in the totals test. */
const REFERENCE_LINES: ReadonlyArray<{ id: string; name: string; quantity: number; unitPriceMinor: number; category: 'S' | 'AA'; unit: string }> = [
  { id: '1', name: 'Beratung Rechnungsprüfung (Stunden)', quantity: 4, unitPriceMinor: 1245, category: 'S', unit: 'HUR' },
  { id: '2', name: 'Fachbuch E-Rechnung, 2. Auflage', quantity: 1, unitPriceMinor: 3399, category: 'AA', unit: 'C62' },
  { id: '3', name: 'Lizenz Validator, Monat', quantity: 3, unitPriceMinor: 1333, category: 'S', unit: 'MON' },
  { id: '4', name: 'Zeitschrift Steuerpraxis, Heft', quantity: 2, unitPriceMinor: 899, category: 'AA', unit: 'C62' },
  { id: '5', name: 'Versandpauschale je Paket', quantity: 7, unitPriceMinor: 115, category: 'S', unit: 'C62' },
];

function formatMajor(minor: number): string {
  return (minor / 100).toFixed(2);
}

/** `tests/fixtures/kosit/01.01a.xml`: a UBL 2.1 XRechnung invoice. */
export function buildReferenceInvoiceXml(): string {
  const lines = REFERENCE_LINES.map((line) => {
    const amount = line.quantity * line.unitPriceMinor;
    const percent = line.category === 'S' ? '19' : '7';
    return String.raw`  <cac:InvoiceLine>
    <cbc:ID>` + line.id + String.raw`</cbc:ID>
    <cbc:InvoicedQuantity unitCode="` + line.unit + '">' + line.quantity + String.raw`</cbc:InvoicedQuantity>
    <cbc:LineExtensionAmount currencyID="EUR">` + formatMajor(amount) + String.raw`</cbc:LineExtensionAmount>
    <cac:OrderLineReference>
      <cbc:LineID>` + line.id + String.raw`</cbc:LineID>
    </cac:OrderLineReference>
    <cac:Item>
      <cbc:Description>` + line.name + String.raw`</cbc:Description>
      <cbc:Name>` + line.name + String.raw`</cbc:Name>
      <cac:SellersItemIdentification>
        <cbc:ID>ART-` + line.id.padStart(4, '0') + String.raw`</cbc:ID>
      </cac:SellersItemIdentification>
      <cac:ClassifiedTaxCategory>
        <cbc:ID>` + line.category + String.raw`</cbc:ID>
        <cbc:Percent>` + percent + String.raw`</cbc:Percent>
        <cac:TaxScheme>
          <cbc:ID>VAT</cbc:ID>
        </cac:TaxScheme>
      </cac:ClassifiedTaxCategory>
    </cac:Item>
    <cac:Price>
      <cbc:PriceAmount currencyID="EUR">` + formatMajor(line.unitPriceMinor) + String.raw`</cbc:PriceAmount>
      <cbc:BaseQuantity unitCode="` + line.unit + String.raw`">1</cbc:BaseQuantity>
    </cac:Price>
  </cac:InvoiceLine>`;
  });
  return (
    String.raw`<?xml version="1.0" encoding="UTF-8"?>
<!-- KoSIT XRechnung test suite, business case 01.01a: mixed VAT rates, no allowances. -->
<ubl:Invoice xmlns:ubl="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
             xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
             xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0</cbc:CustomizationID>
  <cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>
  <cbc:ID>RE-2024-0501</cbc:ID>
  <cbc:IssueDate>2024-05-02</cbc:IssueDate>
  <cbc:DueDate>2024-06-01</cbc:DueDate>
  <cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>
  <cbc:Note>#ADU#Es gelten unsere Allgem. Geschäftsbedingungen, die Sie unter www.acme.example/agb finden.</cbc:Note>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cbc:BuyerReference>04011000-12345-34</cbc:BuyerReference>
  <cac:AccountingSupplierParty>
    <cac:Party>
      <cbc:EndpointID schemeID="EM">rechnung@lieferant.example</cbc:EndpointID>
      <cac:PartyName>
        <cbc:Name>Lieferant GmbH</cbc:Name>
      </cac:PartyName>
      <cac:PostalAddress>
        <cbc:StreetName>Lieferantenstraße 20</cbc:StreetName>
        <cbc:CityName>München</cbc:CityName>
        <cbc:PostalZone>80333</cbc:PostalZone>
        <cac:Country>
          <cbc:IdentificationCode>DE</cbc:IdentificationCode>
        </cac:Country>
      </cac:PostalAddress>
      <cac:PartyTaxScheme>
        <cbc:CompanyID>DE123456789</cbc:CompanyID>
        <cac:TaxScheme>
          <cbc:ID>VAT</cbc:ID>
        </cac:TaxScheme>
      </cac:PartyTaxScheme>
      <cac:PartyLegalEntity>
        <cbc:RegistrationName>Lieferant GmbH</cbc:RegistrationName>
        <cbc:CompanyID>HRB 123456</cbc:CompanyID>
      </cac:PartyLegalEntity>
      <cac:Contact>
        <cbc:Name>Hans Muster</cbc:Name>
        <cbc:Telephone>+49 89 1234567</cbc:Telephone>
        <cbc:ElectronicMail>hans.muster@lieferant.example</cbc:ElectronicMail>
      </cac:Contact>
    </cac:Party>
  </cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty>
    <cac:Party>
      <cbc:EndpointID schemeID="EM">einkauf@kunde.example</cbc:EndpointID>
      <cac:PostalAddress>
        <cbc:StreetName>Kundenstraße 15</cbc:StreetName>
        <cbc:CityName>Frankfurt am Main</cbc:CityName>
        <cbc:PostalZone>60311</cbc:PostalZone>
        <cac:Country>
          <cbc:IdentificationCode>DE</cbc:IdentificationCode>
        </cac:Country>
      </cac:PostalAddress>
      <cac:PartyLegalEntity>
        <cbc:RegistrationName>Kunden AG Mitte</cbc:RegistrationName>
      </cac:PartyLegalEntity>
    </cac:Party>
  </cac:AccountingCustomerParty>
  <cac:PaymentMeans>
    <cbc:PaymentMeansCode>58</cbc:PaymentMeansCode>
    <cac:PayeeFinancialAccount>
      <cbc:ID>DE75512108001245126199</cbc:ID>
    </cac:PayeeFinancialAccount>
  </cac:PaymentMeans>
  <cac:PaymentTerms>
    <cbc:Note>Zahlbar innerhalb von 30 Tagen netto bis 01.06.2024.</cbc:Note>
  </cac:PaymentTerms>
  <cac:TaxTotal>
    <cbc:TaxAmount currencyID="EUR">22.23</cbc:TaxAmount>
    <cac:TaxSubtotal>
      <cbc:TaxableAmount currencyID="EUR">97.84</cbc:TaxableAmount>
      <cbc:TaxAmount currencyID="EUR">18.59</cbc:TaxAmount>
      <cac:TaxCategory>
        <cbc:ID>S</cbc:ID>
        <cbc:Percent>19</cbc:Percent>
        <cac:TaxScheme>
          <cbc:ID>VAT</cbc:ID>
        </cac:TaxScheme>
      </cac:TaxCategory>
    </cac:TaxSubtotal>
    <cac:TaxSubtotal>
      <cbc:TaxableAmount currencyID="EUR">51.97</cbc:TaxableAmount>
      <cbc:TaxAmount currencyID="EUR">3.64</cbc:TaxAmount>
      <cac:TaxCategory>
        <cbc:ID>AA</cbc:ID>
        <cbc:Percent>7</cbc:Percent>
        <cac:TaxScheme>
          <cbc:ID>VAT</cbc:ID>
        </cac:TaxScheme>
      </cac:TaxCategory>
    </cac:TaxSubtotal>
  </cac:TaxTotal>
  <cac:LegalMonetaryTotal>
    <cbc:LineExtensionAmount currencyID="EUR">149.81</cbc:LineExtensionAmount>
    <cbc:TaxExclusiveAmount currencyID="EUR">149.81</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="EUR">172.04</cbc:TaxInclusiveAmount>
    <cbc:PayableAmount currencyID="EUR">172.04</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
` +
    lines.join('\n') +
    '\n</ubl:Invoice>\n'
  );
}
