/**
 * Structural equality of JSON-like values: what tells a message handed back unchanged from
 * one that was edited, when the two are different objects.
 */

type Fields = Readonly<Record<string, unknown>>;

/**
 * Whether `left` and `right` hold the same JSON-like value: the same primitives, arrays of equal
 * items, plain objects with the same own keys and equal values (key order aside). Objects that
 * are not plain (a `Uint8Array`, a `URL`) are equal only when they are the same object: the
 * core's copies keep them by reference.
 */
export function isDeepEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index += 1) if (!isDeepEqual(left[index], right[index])) return false;
    return true;
  }
  if (Array.isArray(right) || !isPlainObject(left) || !isPlainObject(right)) return false;
  const leftFields = left as Fields;
  const rightFields = right as Fields;
  // for...in over a plain object sees only its own keys, without building a key array
  let fieldCount = 0;
  for (const key in leftFields) {
    if (!Object.hasOwn(rightFields, key) || !isDeepEqual(leftFields[key], rightFields[key])) return false;
    fieldCount += 1;
  }
  return fieldCount === Object.keys(rightFields).length;
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
