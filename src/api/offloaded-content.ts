/**
 * What names content the package offloaded or archived, by the read tool's rules: the reference
 * a model or a summary passes, and the store keys the package writes. For an adapter that lists
 * or serves that content beside the read tool (the proxy's session pages).
 */
export { isOffloadedKey } from '../core/offload/offload-names.js';
export { extractReference } from '../core/read/reference-keys.js';
