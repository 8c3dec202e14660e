/**
 * Options objects without their `undefined` fields: the library's options are optional
 * properties (`exactOptionalPropertyTypes`), and an absent flag must leave its default alone.
 */

/** Drops the fields whose value is `undefined`. */
export function keepDefinedFields<T extends Record<string, unknown>>(
  fields: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
