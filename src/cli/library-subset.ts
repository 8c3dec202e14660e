/**
 * The library functions that reading and measuring a transcript use (`count`, and every
 * command's input), taken from the modules that define them rather than from the package
 * root: the root also loads compaction, summarizers and the LLM client wrappers, which `count`
 * never uses (a command loads nothing it does not use). They are the very functions
 * the package root exports.
 */
export { countTokens, estimateTokens, shouldCompact } from '../api/tokens.js';
export { planOffload } from '../api/offload.js';
