/**
 * How the agent that reads a compaction's summary opens a reference, and what the summary and
 * the offload index tell it, so that it is never pointed at a tool it does not have. Pure.
 */

/**
 * How the agent that reads the summary opens a reference it names:
 * - `'read-tool'`: with the package's read tool (`createReadOffloadedTool`, `manager.readTool`),
 *   registered with the model;
 * - `'own-tools'`: with its own tools (Claude Code's Read, a shell's `cat` or `sed -n`): an agent
 *   behind the proxy, which has no read tool of the package, and whose references are file paths.
 */
export type ReferenceReader = 'read-tool' | 'own-tools';

/** The note under the ledger's heading. */
export const LEDGER_NOTES: Readonly<Record<ReferenceReader, string>> = {
  'read-tool':
    'Facts kept by compaction. The read tool opens any reference below (pass it as ref); what a list leaves out is in the archives.',
  'own-tools':
    'Facts kept by compaction. Each reference below is a file: open it with your own tools (a large one in parts, or search it); what a list leaves out is in the archives.',
};

/** How to read a result the offload index lists. */
export const INDEX_READ_NOTES: Readonly<Record<ReferenceReader, string>> = {
  'read-tool': 'Pass a reference to the read tool as ref to read that result.',
  'own-tools': 'Each reference is a file: open it with your own tools to read that result.',
};
