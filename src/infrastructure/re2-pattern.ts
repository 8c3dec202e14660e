/**
 * The read tool's pattern engine: `re2js`, RE2's pure-JavaScript port. RE2 matches in time
 * linear in the text (no backtracking), so a pattern such as `(\w+\s*)+:` that freezes a
 * backtracking engine for hours on a 40-character line returns at once; the price is its
 * syntax, without backreferences or lookaround, which it refuses at compile time.
 */
import { RE2JS } from 're2js';
import type { CompilePattern } from '../core/read/search-pattern.js';

/** Compiles a pattern with RE2; throws RE2's syntax error (its message names the fault). */
export const compileRe2Pattern: CompilePattern = (source, flags) => {
  const regex = RE2JS.compile(
    source,
    (flags.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) |
      (flags.multiline ? RE2JS.MULTILINE : 0) |
      (flags.dotAll ? RE2JS.DOTALL : 0),
  );
  return {
    // test() runs on RE2's lazy DFA; find() needs positions, which the slower NFA gives
    test: (line) => regex.test(line),
    find(line) {
      const matcher = regex.matcher(line);
      if (!matcher.find()) return undefined;
      return { index: matcher.start(), length: matcher.end() - matcher.start() };
    },
  };
};
