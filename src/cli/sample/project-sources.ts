/**
 * The source files of the sample session's project, `invoice-kit`, as the agent first reads
 * them (before its fix). The demo writes them, with the agent's edits applied, to a work
 * directory, so that compaction restores real files.
 *
 * The texts are plain TypeScript and Markdown; they avoid template literals so that they can
 * sit in `String.raw` literals here.
 */

/** `package.json` of the sample project. */
export const PACKAGE_JSON = String.raw`{
  "name": "@acme/invoice-kit",
  "version": "3.4.0",
  "description": "Invoice totals, taxes and money arithmetic in integer minor units",
  "type": "module",
  "main": "./dist/index.js",
  "types": "./dist/index.d.ts",
  "scripts": {
    "build": "tsc -p tsconfig.build.json",
    "test": "vitest run",
    "test:coverage": "vitest run --coverage",
    "lint": "eslint src tests",
    "typecheck": "tsc --noEmit"
  },
  "devDependencies": {
    "@types/node": "^20.14.9",
    "@vitest/coverage-v8": "^3.2.4",
    "eslint": "^9.6.0",
    "typescript": "^5.5.3",
    "typescript-eslint": "^8.0.0",
    "vitest": "^3.2.4"
  },
  "engines": {
    "node": ">=18"
  }
}
`;

/** `src/money/round.ts` before the fix: the half-even tie test uses `Number.EPSILON`. */
export const ROUND_SOURCE = String.raw`/**
 * Rounding of money amounts. Amounts are computed in floating point only transiently: every
 * public function returns integer minor units (cents, pence, yen).
 *
 * Since 3.4.0 (#412) the default mode is half-even ("banker's rounding"), as required by the
 * EN 16931 e-invoicing rules for VAT amounts; half-up stays available for legacy exports.
 */
import type { Currency } from './currency.js';

/** How a value exactly halfway between two minor units is rounded. */
export type RoundingMode = 'half-even' | 'half-up' | 'half-down' | 'floor' | 'ceiling';

/** The default rounding mode of every computation in the package. */
export const DEFAULT_ROUNDING_MODE: RoundingMode = 'half-even';

/**
 * Rounds to the nearest integer; ties go to the even neighbour.
 *
 *   roundHalfEven(2.5) === 2, roundHalfEven(3.5) === 4, roundHalfEven(-2.5) === -2
 */
export function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const fraction = value - floor;
  if (Math.abs(fraction - 0.5) < Number.EPSILON) {
    return floor % 2 === 0 ? floor : floor + 1;
  }
  return Math.round(value);
}

/** Rounds to the nearest integer; ties go away from zero. */
export function roundHalfUp(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value));
}

/** Rounds to the nearest integer; ties go towards zero. */
export function roundHalfDown(value: number): number {
  return Math.sign(value) * Math.ceil(Math.abs(value) - 0.5);
}

/** Rounds with the given mode. */
export function roundWithMode(value: number, mode: RoundingMode = DEFAULT_ROUNDING_MODE): number {
  switch (mode) {
    case 'half-even':
      return roundHalfEven(value);
    case 'half-up':
      return roundHalfUp(value);
    case 'half-down':
      return roundHalfDown(value);
    case 'floor':
      return Math.floor(value);
    case 'ceiling':
      return Math.ceil(value);
  }
}

/**
 * Converts a decimal amount ("12.345" or 12.345) to integer minor units of the currency,
 * rounding with the given mode: toMinorUnits("12.345", EUR) === 1234 (half-even).
 */
export function toMinorUnits(amount: string | number, currency: Currency, mode: RoundingMode = DEFAULT_ROUNDING_MODE): number {
  const value = typeof amount === 'number' ? amount : parseDecimal(amount);
  const factor = 10 ** currency.minorUnits;
  return roundWithMode(value * factor, mode);
}

/** Converts integer minor units back to a decimal string with the currency's digits. */
export function fromMinorUnits(minor: number, currency: Currency): string {
  if (!Number.isSafeInteger(minor)) {
    throw new RangeError('minor units must be a safe integer, got ' + String(minor));
  }
  if (currency.minorUnits === 0) return String(minor);
  const sign = minor < 0 ? '-' : '';
  const digits = String(Math.abs(minor)).padStart(currency.minorUnits + 1, '0');
  const split = digits.length - currency.minorUnits;
  return sign + digits.slice(0, split) + '.' + digits.slice(split);
}

/**
 * Multiplies minor units by a rate (a tax rate, a discount share) and rounds the product
 * back to minor units.
 */
export function multiplyMinor(minor: number, rate: number, mode: RoundingMode = DEFAULT_ROUNDING_MODE): number {
  return roundWithMode(minor * rate, mode);
}

/**
 * Splits minor units into parts proportional to weights, so that the parts add up exactly
 * to the whole (largest remainder method). Used to spread invoice-level discounts.
 */
export function allocateMinor(minor: number, weights: readonly number[]): number[] {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  if (total === 0) return weights.map(() => 0);
  const exact = weights.map((weight) => (minor * weight) / total);
  const parts = exact.map((value) => Math.trunc(value));
  let remainder = minor - parts.reduce((sum, part) => sum + part, 0);
  const order = exact
    .map((value, index) => ({ index, fraction: Math.abs(value - Math.trunc(value)) }))
    .sort((left, right) => right.fraction - left.fraction || left.index - right.index);
  for (const { index } of order) {
    if (remainder === 0) break;
    const step = Math.sign(remainder);
    parts[index] = (parts[index] ?? 0) + step;
    remainder -= step;
  }
  return parts;
}

const DECIMAL = /^\s*([+-])?(\d+)(?:\.(\d+))?\s*$/;

/** Parses "1234.50", "-0.5", "+12" (no exponent, no thousands separators). */
export function parseDecimal(text: string): number {
  const match = DECIMAL.exec(text);
  if (match === null) throw new SyntaxError('not a decimal amount: ' + JSON.stringify(text));
  const [, sign, whole, fraction = ''] = match;
  const value = Number(whole + '.' + (fraction === '' ? '0' : fraction));
  return sign === '-' ? -value : value;
}
`;

/** ISO 4217 codes of the sample currency table: code, numeric, minor units, name. */
const CURRENCY_ROWS = String.raw`AED 784 2 UAE Dirham
AFN 971 2 Afghani
ALL 008 2 Lek
AMD 051 2 Armenian Dram
ANG 532 2 Netherlands Antillean Guilder
AOA 973 2 Kwanza
ARS 032 2 Argentine Peso
AUD 036 2 Australian Dollar
AWG 533 2 Aruban Florin
AZN 944 2 Azerbaijan Manat
BAM 977 2 Convertible Mark
BBD 052 2 Barbados Dollar
BDT 050 2 Taka
BGN 975 2 Bulgarian Lev
BHD 048 3 Bahraini Dinar
BIF 108 0 Burundi Franc
BMD 060 2 Bermudian Dollar
BND 096 2 Brunei Dollar
BOB 068 2 Boliviano
BRL 986 2 Brazilian Real
BSD 044 2 Bahamian Dollar
BTN 064 2 Ngultrum
BWP 072 2 Pula
BYN 933 2 Belarusian Ruble
BZD 084 2 Belize Dollar
CAD 124 2 Canadian Dollar
CDF 976 2 Congolese Franc
CHF 756 2 Swiss Franc
CLP 152 0 Chilean Peso
CNY 156 2 Yuan Renminbi
COP 170 2 Colombian Peso
CRC 188 2 Costa Rican Colon
CUP 192 2 Cuban Peso
CVE 132 2 Cabo Verde Escudo
CZK 203 2 Czech Koruna
DJF 262 0 Djibouti Franc
DKK 208 2 Danish Krone
DOP 214 2 Dominican Peso
DZD 012 2 Algerian Dinar
EGP 818 2 Egyptian Pound
ERN 232 2 Nakfa
ETB 230 2 Ethiopian Birr
EUR 978 2 Euro
FJD 242 2 Fiji Dollar
FKP 238 2 Falkland Islands Pound
GBP 826 2 Pound Sterling
GEL 981 2 Lari
GHS 936 2 Ghana Cedi
GIP 292 2 Gibraltar Pound
GMD 270 2 Dalasi
GNF 324 0 Guinean Franc
GTQ 320 2 Quetzal
GYD 328 2 Guyana Dollar
HKD 344 2 Hong Kong Dollar
HNL 340 2 Lempira
HTG 332 2 Gourde
HUF 348 2 Forint
IDR 360 2 Rupiah
ILS 376 2 New Israeli Sheqel
INR 356 2 Indian Rupee
IQD 368 3 Iraqi Dinar
IRR 364 2 Iranian Rial
ISK 352 0 Iceland Krona
JMD 388 2 Jamaican Dollar
JOD 400 3 Jordanian Dinar
JPY 392 0 Yen
KES 404 2 Kenyan Shilling
KGS 417 2 Som
KHR 116 2 Riel
KMF 174 0 Comorian Franc
KPW 408 2 North Korean Won
KRW 410 0 Won
KWD 414 3 Kuwaiti Dinar
KYD 136 2 Cayman Islands Dollar
KZT 398 2 Tenge
LAK 418 2 Lao Kip
LBP 422 2 Lebanese Pound
LKR 144 2 Sri Lanka Rupee
LRD 430 2 Liberian Dollar
LSL 426 2 Loti
LYD 434 3 Libyan Dinar
MAD 504 2 Moroccan Dirham
MDL 498 2 Moldovan Leu
MGA 969 2 Malagasy Ariary
MKD 807 2 Denar
MMK 104 2 Kyat
MNT 496 2 Tugrik
MOP 446 2 Pataca
MRU 929 2 Ouguiya
MUR 480 2 Mauritius Rupee
MVR 462 2 Rufiyaa
MWK 454 2 Malawi Kwacha
MXN 484 2 Mexican Peso
MYR 458 2 Malaysian Ringgit
MZN 943 2 Mozambique Metical
NAD 516 2 Namibia Dollar
NGN 566 2 Naira
NIO 558 2 Cordoba Oro
NOK 578 2 Norwegian Krone
NPR 524 2 Nepalese Rupee
NZD 554 2 New Zealand Dollar
OMR 512 3 Rial Omani
PAB 590 2 Balboa
PEN 604 2 Sol
PGK 598 2 Kina
PHP 608 2 Philippine Peso
PKR 586 2 Pakistan Rupee
PLN 985 2 Zloty
PYG 600 0 Guarani
QAR 634 2 Qatari Rial
RON 946 2 Romanian Leu
RSD 941 2 Serbian Dinar
RUB 643 2 Russian Ruble
RWF 646 0 Rwanda Franc
SAR 682 2 Saudi Riyal
SBD 090 2 Solomon Islands Dollar
SCR 690 2 Seychelles Rupee
SDG 938 2 Sudanese Pound
SEK 752 2 Swedish Krona
SGD 702 2 Singapore Dollar
SHP 654 2 Saint Helena Pound
SLE 925 2 Leone
SOS 706 2 Somali Shilling
SRD 968 2 Surinam Dollar
SSP 728 2 South Sudanese Pound
STN 930 2 Dobra
SVC 222 2 El Salvador Colon
SYP 760 2 Syrian Pound
SZL 748 2 Lilangeni
THB 764 2 Baht
TJS 972 2 Somoni
TMT 934 2 Turkmenistan New Manat
TND 788 3 Tunisian Dinar
TOP 776 2 Pa'anga
TRY 949 2 Turkish Lira
TTD 780 2 Trinidad and Tobago Dollar
TWD 901 2 New Taiwan Dollar
TZS 834 2 Tanzanian Shilling
UAH 980 2 Hryvnia
UGX 800 0 Uganda Shilling
USD 840 2 US Dollar
UYU 858 2 Peso Uruguayo
UZS 860 2 Uzbekistan Sum
VES 928 2 Bolivar Soberano
VND 704 0 Dong
VUV 548 0 Vatu
WST 882 2 Tala
XAF 950 0 CFA Franc BEAC
XCD 951 2 East Caribbean Dollar
XOF 952 0 CFA Franc BCEAO
XPF 953 0 CFP Franc
YER 886 2 Yemeni Rial
ZAR 710 2 Rand
ZMW 967 2 Zambian Kwacha
ZWG 924 2 Zimbabwe Gold`;

/** The alphabetic codes of the sample currency table. */
export function listCurrencyCodes(): string[] {
  return CURRENCY_ROWS.split('\n').map((row) => row.slice(0, 3));
}

function buildCurrencyTable(): string {
  return CURRENCY_ROWS.split('\n')
    .map((row) => {
      const [code = '', numeric = '', minorUnits = '', ...name] = row.split(' ');
      const quotedName = JSON.stringify(name.join(' ')).replace(/'/g, "\\'").replace(/^"|"$/g, "'");
      return '  ' + code + ": { code: '" + code + "', numeric: '" + numeric + "', minorUnits: " + minorUnits + ', name: ' + quotedName + ' },';
    })
    .join('\n');
}

/** `src/money/currency.ts`: the ISO 4217 table (large, and read in full by the agent). */
export function buildCurrencySource(): string {
  return (
    String.raw`/**
 * ISO 4217 currencies: alphabetic code, numeric code and number of minor units (decimal
 * digits). Generated from the SIX Group list (2024-06-25) by scripts/generate-currencies.ts;
 * do not edit by hand.
 */

/** A currency of ISO 4217. */
export interface Currency {
  /** Alphabetic code, e.g. "EUR". */
  readonly code: string;
  /** Numeric code, e.g. "978". */
  readonly numeric: string;
  /** Decimal digits of the minor unit: 2 for EUR, 0 for JPY, 3 for KWD. */
  readonly minorUnits: number;
  /** English name. */
  readonly name: string;
}

/** Every active currency, by alphabetic code. */
export const CURRENCIES = {
` +
    buildCurrencyTable() +
    String.raw`
} as const satisfies Record<string, Currency>;

/** An alphabetic code of {@link CURRENCIES}. */
export type CurrencyCode = keyof typeof CURRENCIES;

/** Whether text is a known alphabetic code. */
export function isCurrencyCode(text: string): text is CurrencyCode {
  return Object.prototype.hasOwnProperty.call(CURRENCIES, text);
}

/** The currency of a code; throws on an unknown code. */
export function getCurrency(code: string): Currency {
  if (!isCurrencyCode(code)) throw new RangeError('unknown ISO 4217 currency: ' + JSON.stringify(code));
  return CURRENCIES[code];
}
`
  );
}

/** `src/invoice/totals.ts` before the fix: tax is rounded per line (#412), not per rate. */
export const TOTALS_SOURCE = String.raw`/**
 * Invoice totals: line amounts, invoice-level discounts, tax per rate, grand total. Every
 * amount is in integer minor units of the invoice currency.
 *
 * EN 16931 (BR-CO-17): the VAT amount of a rate is the rate applied to the sum of the line
 * net amounts of that rate, rounded once. Rounding each line's tax and adding the rounded
 * values gives a different result on most real invoices.
 */
import { getCurrency, type Currency } from '../money/currency.js';
import { allocateMinor, multiplyMinor, roundWithMode, type RoundingMode, DEFAULT_ROUNDING_MODE } from '../money/round.js';
import { resolveTaxRate, type TaxCategory, type TaxRate } from './tax.js';

/** One line of an invoice. */
export interface InvoiceLine {
  /** Stable id, echoed in the totals. */
  id: string;
  /** What was sold. */
  description: string;
  /** Quantity; may be fractional (hours, kilograms). */
  quantity: number;
  /** Price of one unit, in minor units, tax excluded. */
  unitPriceMinor: number;
  /** Line discount as a share of the line amount (0.1 = 10%). */
  discountRate?: number;
  /** Tax category of the line ("S" standard, "AA" reduced, "Z" zero, "E" exempt, "AE" reverse charge). */
  taxCategory: TaxCategory;
}

/** An invoice to total. */
export interface Invoice {
  /** ISO 4217 code of every amount. */
  currency: string;
  /** Country whose tax rates apply (ISO 3166-1 alpha-2). */
  country: string;
  /** Issue date (YYYY-MM-DD), which picks the rates in force. */
  issueDate: string;
  /** The lines. */
  lines: InvoiceLine[];
  /** Invoice-level discount in minor units, spread over the lines by their net amounts. */
  discountMinor?: number;
  /** Rounding mode of every step. */
  roundingMode?: RoundingMode;
}

/** Net amount and tax of one line. */
export interface LineTotal {
  id: string;
  /** quantity × unit price − line discount, rounded. */
  grossMinor: number;
  /** Share of the invoice-level discount. */
  invoiceDiscountMinor: number;
  /** Taxable amount: gross − invoice discount share. */
  netMinor: number;
  /** The rate that applies. */
  taxRate: TaxRate;
}

/** Tax of one rate. */
export interface TaxGroup {
  category: TaxCategory;
  /** The rate as a share (0.19). */
  rate: number;
  /** Sum of the net amounts of the lines of this rate. */
  taxableMinor: number;
  /** Tax of the group, rounded once. */
  taxMinor: number;
}

/** The totals of an invoice. */
export interface InvoiceTotals {
  currency: Currency;
  lines: LineTotal[];
  /** Sum of line net amounts. */
  netMinor: number;
  /** Tax per rate, in the order rates first appear. */
  taxGroups: TaxGroup[];
  /** Sum of the groups' tax. */
  taxMinor: number;
  /** netMinor + taxMinor. */
  grossMinor: number;
}

/** Computes the line totals, before tax. */
export function computeLineTotals(invoice: Invoice): LineTotal[] {
  const mode = invoice.roundingMode ?? DEFAULT_ROUNDING_MODE;
  const gross = invoice.lines.map((line) => {
    const amount = line.quantity * line.unitPriceMinor;
    const discount = amount * (line.discountRate ?? 0);
    return roundWithMode(amount - discount, mode);
  });
  const shares = allocateMinor(invoice.discountMinor ?? 0, gross);
  return invoice.lines.map((line, index) => {
    const grossMinor = gross[index] ?? 0;
    const invoiceDiscountMinor = shares[index] ?? 0;
    return {
      id: line.id,
      grossMinor,
      invoiceDiscountMinor,
      netMinor: grossMinor - invoiceDiscountMinor,
      taxRate: resolveTaxRate(invoice.country, line.taxCategory, invoice.issueDate),
    };
  });
}

/** Computes every total of an invoice. */
export function computeTotals(invoice: Invoice): InvoiceTotals {
  if (invoice.lines.length === 0) throw new RangeError('an invoice needs at least one line');
  const currency = getCurrency(invoice.currency);
  const mode = invoice.roundingMode ?? DEFAULT_ROUNDING_MODE;
  const lines = computeLineTotals(invoice);

  const groups = new Map<string, TaxGroup>();
  for (const line of lines) {
    const key = line.taxRate.category + ':' + line.taxRate.rate;
    let group = groups.get(key);
    if (group === undefined) {
      group = { category: line.taxRate.category, rate: line.taxRate.rate, taxableMinor: 0, taxMinor: 0 };
      groups.set(key, group);
    }
    group.taxableMinor += line.netMinor;
    // #412: round the tax of each line with the invoice's mode.
    group.taxMinor += multiplyMinor(line.netMinor, line.taxRate.rate, mode);
  }

  const taxGroups = [...groups.values()];
  const netMinor = lines.reduce((sum, line) => sum + line.netMinor, 0);
  const taxMinor = taxGroups.reduce((sum, group) => sum + group.taxMinor, 0);
  return { currency, lines, netMinor, taxGroups, taxMinor, grossMinor: netMinor + taxMinor };
}

/** The amount due after prepayments, never below zero. */
export function computeAmountDue(totals: InvoiceTotals, prepaidMinor = 0): number {
  return Math.max(0, totals.grossMinor - prepaidMinor);
}
`;

/** `src/invoice/tax.ts` before the fix: inclusive prices split with half-up. */
export const TAX_SOURCE = String.raw`/**
 * Tax rates by country, category and date, and the split of tax-inclusive prices.
 */
import { roundHalfUp, type RoundingMode, DEFAULT_ROUNDING_MODE, roundWithMode } from '../money/round.js';

/** UNCL 5305 tax categories used by EN 16931. */
export type TaxCategory = 'S' | 'AA' | 'Z' | 'E' | 'AE' | 'K' | 'G' | 'O';

/** A rate in force from a date. */
export interface TaxRate {
  category: TaxCategory;
  /** Share, e.g. 0.19. */
  rate: number;
  /** First day the rate applies (YYYY-MM-DD). */
  validFrom: string;
}

/** Rates without a percentage: zero-rated, exempt, reverse charge, intra-EU, export, out of scope. */
const ZERO_CATEGORIES: readonly TaxCategory[] = ['Z', 'E', 'AE', 'K', 'G', 'O'];

/** Standard (S) and reduced (AA) rates, newest first per country. */
const RATES: Readonly<Record<string, readonly TaxRate[]>> = {
  DE: [
    { category: 'S', rate: 0.19, validFrom: '2021-01-01' },
    { category: 'AA', rate: 0.07, validFrom: '2021-01-01' },
    { category: 'S', rate: 0.16, validFrom: '2020-07-01' },
    { category: 'AA', rate: 0.05, validFrom: '2020-07-01' },
    { category: 'S', rate: 0.19, validFrom: '2007-01-01' },
    { category: 'AA', rate: 0.07, validFrom: '1983-07-01' },
  ],
  FR: [
    { category: 'S', rate: 0.2, validFrom: '2014-01-01' },
    { category: 'AA', rate: 0.1, validFrom: '2014-01-01' },
  ],
  NL: [
    { category: 'S', rate: 0.21, validFrom: '2012-10-01' },
    { category: 'AA', rate: 0.09, validFrom: '2019-01-01' },
  ],
  AT: [
    { category: 'S', rate: 0.2, validFrom: '2016-01-01' },
    { category: 'AA', rate: 0.1, validFrom: '2016-01-01' },
  ],
  CH: [
    { category: 'S', rate: 0.081, validFrom: '2024-01-01' },
    { category: 'AA', rate: 0.026, validFrom: '2024-01-01' },
    { category: 'S', rate: 0.077, validFrom: '2018-01-01' },
    { category: 'AA', rate: 0.025, validFrom: '2018-01-01' },
  ],
  JP: [
    { category: 'S', rate: 0.1, validFrom: '2019-10-01' },
    { category: 'AA', rate: 0.08, validFrom: '2019-10-01' },
  ],
};

/**
 * The rate of a category in a country on a date. Zero categories are 0 everywhere.
 * Throws when the country or the category has no rate on that date.
 */
export function resolveTaxRate(country: string, category: TaxCategory, date: string): TaxRate {
  if (ZERO_CATEGORIES.includes(category)) return { category, rate: 0, validFrom: '1970-01-01' };
  const rates = RATES[country];
  if (rates === undefined) throw new RangeError('no tax rates for country ' + JSON.stringify(country));
  const rate = rates.find((candidate) => candidate.category === category && candidate.validFrom <= date);
  if (rate === undefined) {
    throw new RangeError('no ' + category + ' rate in ' + country + ' on ' + date);
  }
  return rate;
}

/** Net and tax parts of a tax-inclusive amount. */
export interface InclusiveSplit {
  netMinor: number;
  taxMinor: number;
}

/**
 * Splits a tax-inclusive amount (a shop price) into net and tax so that they add up to the
 * amount: tax = amount × rate / (1 + rate), rounded; net = amount − tax.
 */
export function splitInclusiveAmount(amountMinor: number, rate: number, mode: RoundingMode = DEFAULT_ROUNDING_MODE): InclusiveSplit {
  const exactTax = (amountMinor * rate) / (1 + rate);
  const taxMinor = mode === DEFAULT_ROUNDING_MODE ? roundHalfUp(exactTax) : roundWithMode(exactTax, mode);
  return { netMinor: amountMinor - taxMinor, taxMinor };
}

/** Whether a category carries no tax (zero-rated, exempt, reverse charge, ...). */
export function isZeroCategory(category: TaxCategory): boolean {
  return ZERO_CATEGORIES.includes(category);
}
`;

/** `tests/invoice/totals.test.ts`: the failing suite, read by the agent. */
export const TOTALS_TEST_SOURCE = String.raw`import { describe, expect, it } from 'vitest';
import { computeAmountDue, computeLineTotals, computeTotals, type Invoice, type InvoiceLine } from '../../src/invoice/totals.js';

function line(id: string, quantity: number, unitPriceMinor: number, taxCategory: InvoiceLine['taxCategory'] = 'S', discountRate?: number): InvoiceLine {
  return { id, description: 'Item ' + id, quantity, unitPriceMinor, taxCategory, ...(discountRate === undefined ? {} : { discountRate }) };
}

function invoice(lines: InvoiceLine[], overrides: Partial<Invoice> = {}): Invoice {
  return { currency: 'EUR', country: 'DE', issueDate: '2024-05-02', lines, ...overrides };
}

describe('computeLineTotals', () => {
  it('multiplies quantity by unit price', () => {
    const [total] = computeLineTotals(invoice([line('a', 3, 1999)]));
    expect(total?.grossMinor).toBe(5997);
  });

  it('applies the line discount before rounding', () => {
    const [total] = computeLineTotals(invoice([line('a', 1, 1999, 'S', 0.15)]));
    expect(total?.grossMinor).toBe(1699);
  });

  it('handles fractional quantities (hours)', () => {
    const [total] = computeLineTotals(invoice([line('a', 2.25, 8500)]));
    expect(total?.grossMinor).toBe(19125);
  });

  it('spreads the invoice discount by net amount, exactly', () => {
    const totals = computeLineTotals(invoice([line('a', 1, 1000), line('b', 1, 2000), line('c', 1, 3000)], { discountMinor: 100 }));
    expect(totals.map((total) => total.invoiceDiscountMinor)).toEqual([17, 33, 50]);
    expect(totals.reduce((sum, total) => sum + total.invoiceDiscountMinor, 0)).toBe(100);
  });

  it('picks the rate in force on the issue date', () => {
    const [total] = computeLineTotals(invoice([line('a', 1, 1000)], { issueDate: '2020-09-15' }));
    expect(total?.taxRate.rate).toBe(0.16);
  });
});

describe('computeTotals', () => {
  it('rejects an invoice without lines', () => {
    expect(() => computeTotals(invoice([]))).toThrow(RangeError);
  });

  it('totals a single standard-rated line', () => {
    const totals = computeTotals(invoice([line('a', 1, 10000)]));
    expect(totals.netMinor).toBe(10000);
    expect(totals.taxMinor).toBe(1900);
    expect(totals.grossMinor).toBe(11900);
  });

  it('rounds tax per rate, not per line (BR-CO-17)', () => {
    // 3 lines of 0.35 at 19%: per line 0.0665 -> 0.07 each (0.21); per rate 1.05 x 19% = 0.1995 -> 0.20
    const totals = computeTotals(invoice([line('a', 1, 35), line('b', 1, 35), line('c', 1, 35)]));
    expect(totals.taxMinor).toBe(20);
  });

  it('keeps one group per rate, in order of appearance', () => {
    const totals = computeTotals(invoice([line('a', 1, 1000, 'AA'), line('b', 1, 1000), line('c', 1, 1000, 'AA')]));
    expect(totals.taxGroups.map((group) => [group.category, group.rate, group.taxableMinor])).toEqual([
      ['AA', 0.07, 2000],
      ['S', 0.19, 1000],
    ]);
  });

  it('rounds the 7% group once (BR-CO-17)', () => {
    const lines = Array.from({ length: 12 }, (_, index) => line('l' + index, 1, 250, 'AA'));
    const totals = computeTotals(invoice(lines));
    // 12 x 2.50 = 30.00 at 7% = 2.10 exactly; per line 0.175 -> 0.18 (half-even) x 12 = 2.16
    expect(totals.taxMinor).toBe(210);
  });

  it('matches the KoSIT reference invoice 01.01a (mixed rates)', () => {
    const totals = computeTotals(
      invoice([line('1', 4, 1245), line('2', 1, 3399, 'AA'), line('3', 3, 1333), line('4', 2, 899, 'AA'), line('5', 7, 115)]),
    );
    expect(totals.netMinor).toBe(14981);
    expect(totals.taxGroups.map((group) => group.taxMinor)).toEqual([1859, 364]);
    expect(totals.grossMinor).toBe(17204);
  });

  it('matches the KoSIT reference invoice 01.07 (invoice discount)', () => {
    const totals = computeTotals(invoice([line('1', 10, 333), line('2', 5, 777), line('3', 1, 4999, 'AA')], { discountMinor: 500 }));
    expect(totals.netMinor).toBe(11714);
    expect(totals.taxMinor).toBe(1651);
  });

  it('totals a JPY invoice without minor units', () => {
    const totals = computeTotals(invoice([line('a', 3, 1250), line('b', 1, 980, 'AA')], { currency: 'JPY', country: 'JP' }));
    expect(totals.taxMinor).toBe(453);
    expect(totals.grossMinor).toBe(5183);
  });

  it('uses half-up when asked (legacy exports)', () => {
    const totals = computeTotals(invoice([line('a', 1, 25), line('b', 1, 25)], { roundingMode: 'half-up' }));
    expect(totals.taxMinor).toBe(10);
  });

  it('puts reverse-charge lines in a zero group', () => {
    const totals = computeTotals(invoice([line('a', 1, 5000, 'AE'), line('b', 1, 5000)]));
    expect(totals.taxGroups).toEqual([
      { category: 'AE', rate: 0, taxableMinor: 5000, taxMinor: 0 },
      { category: 'S', rate: 0.19, taxableMinor: 5000, taxMinor: 950 },
    ]);
  });
});

describe('computeAmountDue', () => {
  it('subtracts prepayments', () => {
    const totals = computeTotals(invoice([line('a', 1, 10000)]));
    expect(computeAmountDue(totals, 5000)).toBe(6900);
  });

  it('never goes below zero', () => {
    const totals = computeTotals(invoice([line('a', 1, 10000)]));
    expect(computeAmountDue(totals, 20000)).toBe(0);
  });
});
`;

/** `docs/rounding.md`: the design note of #412, read by the agent for intent. */
export const ROUNDING_DOC = String.raw`# Rounding in invoice-kit

Status: accepted (3.4.0, #412). Replaces the half-up rounding of 1.x-3.3.

## Why half-even

EN 16931, the European e-invoicing standard, does not impose a rounding mode, but the
national validation rules that build on it (XRechnung in Germany, Factur-X in France) are
checked with reference calculators that use half-even for every VAT amount, and several of
our customers' ERPs (SAP S/4HANA, Microsoft Dynamics) do the same. With half-up, about one
invoice in 40 of our test corpus differed by one cent in a tax group from the reference, which
made the invoice fail validation at the receiving end.

Half-even ("banker's rounding") rounds a value exactly halfway between two minor units to the
even one: 0.125 -> 0.12, 0.135 -> 0.14. Over many amounts the errors cancel out instead of
drifting upwards.

## Where we round

Amounts are integer minor units everywhere. We round at exactly these points:

1. A line's gross amount: quantity x unit price - line discount, rounded once.
2. The invoice-level discount is spread over the lines with the largest remainder method
   (allocateMinor), which needs no rounding: the shares add up to the discount exactly.
3. The tax of each group of lines with the same category and rate: the rate times the sum of
   the net amounts of the group, rounded once (BR-CO-17). Never the sum of rounded line taxes.
4. A tax-inclusive price (B2C shops) is split into net and tax with the same mode as
   everything else: tax = amount x rate / (1 + rate), rounded; net = amount - tax.

## Floating point

A decimal amount such as 1.005 has no exact binary representation: 1.005 * 100 is
100.49999999999999 in IEEE 754 doubles. A tie test must therefore compare with a tolerance
relative to the magnitude of the value, not with Number.EPSILON, which is the gap between 1
and the next double and is far smaller than the error of a product of two amounts.

The tolerance we use is 1e-9 times max(1, |value|): amounts stay below 2^53 minor units, so
the relative error of one multiplication is far below it, and no real amount is within 1e-9
of a tie without being one.

## Legacy mode

roundingMode: 'half-up' on an invoice keeps the old behaviour for exports to systems that
still expect it (DATEV before 2023). It applies to every rounding point above.

## Tests

tests/money/round.test.ts covers the ties and the floating-point cases;
tests/invoice/totals.test.ts has the KoSIT reference invoices 01.01a to 01.12.
`;

/** One edit the agent makes: the file and the exact text it replaces. */
export interface SampleEdit {
  path: string;
  oldString: string;
  newString: string;
}

/** The agent's fix, as its `edit_file` calls make it. */
export const SAMPLE_EDITS: readonly SampleEdit[] = [
  {
    path: 'src/money/round.ts',
    oldString: String.raw`export function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const fraction = value - floor;
  if (Math.abs(fraction - 0.5) < Number.EPSILON) {
    return floor % 2 === 0 ? floor : floor + 1;
  }
  return Math.round(value);
}`,
    newString: String.raw`export function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const fraction = value - floor;
  // A product of two decimal amounts is off by far more than Number.EPSILON: compare with a
  // tolerance relative to the value (docs/rounding.md, "Floating point").
  const tolerance = 1e-9 * Math.max(1, Math.abs(value));
  if (Math.abs(fraction - 0.5) <= tolerance) {
    return floor % 2 === 0 ? floor : floor + 1;
  }
  return fraction < 0.5 ? floor : floor + 1;
}`,
  },
  {
    path: 'src/invoice/totals.ts',
    oldString: String.raw`    group.taxableMinor += line.netMinor;
    // #412: round the tax of each line with the invoice's mode.
    group.taxMinor += multiplyMinor(line.netMinor, line.taxRate.rate, mode);
  }

  const taxGroups = [...groups.values()];`,
    newString: String.raw`    group.taxableMinor += line.netMinor;
  }

  // BR-CO-17: the tax of a rate is rounded once, on the sum of its net amounts.
  const taxGroups = [...groups.values()].map((group) => ({
    ...group,
    taxMinor: multiplyMinor(group.taxableMinor, group.rate, mode),
  }));`,
  },
  {
    path: 'src/invoice/tax.ts',
    oldString: String.raw`  const exactTax = (amountMinor * rate) / (1 + rate);
  const taxMinor = mode === DEFAULT_ROUNDING_MODE ? roundHalfUp(exactTax) : roundWithMode(exactTax, mode);
  return { netMinor: amountMinor - taxMinor, taxMinor };`,
    newString: String.raw`  const exactTax = (amountMinor * rate) / (1 + rate);
  const taxMinor = roundWithMode(exactTax, mode);
  return { netMinor: amountMinor - taxMinor, taxMinor };`,
  },
  {
    path: 'src/invoice/tax.ts',
    oldString: String.raw`import { roundHalfUp, type RoundingMode, DEFAULT_ROUNDING_MODE, roundWithMode } from '../money/round.js';`,
    newString: String.raw`import { type RoundingMode, DEFAULT_ROUNDING_MODE, roundWithMode } from '../money/round.js';`,
  },
];

/** Every file of the project as first read, by path relative to the project root. */
export function buildOriginalSources(): Record<string, string> {
  return {
    'package.json': PACKAGE_JSON,
    'docs/rounding.md': ROUNDING_DOC,
    'src/money/round.ts': ROUND_SOURCE,
    'src/money/currency.ts': buildCurrencySource(),
    'src/invoice/totals.ts': TOTALS_SOURCE,
    'src/invoice/tax.ts': TAX_SOURCE,
    'tests/invoice/totals.test.ts': TOTALS_TEST_SOURCE,
  };
}

/** Every file after the agent's edits: what the project holds at the end of the session. */
export function buildFixedSources(): Record<string, string> {
  const sources = buildOriginalSources();
  for (const edit of SAMPLE_EDITS) {
    const before = sources[edit.path];
    if (before === undefined || !before.includes(edit.oldString)) throw new Error('sample edit does not apply to ' + edit.path);
    sources[edit.path] = before.replace(edit.oldString, () => edit.newString);
  }
  return sources;
}
