/**
 * What a tool call was, in a few words: the command a shell tool ran, else the file it named,
 * else what it looked for. The ledger and the offload index list each offloaded result with
 * this gist, so that a model knows which reference to read back without reading them all. Pure.
 */
import { isOffloadReference } from '../../offload/offload-reference.js';
import { extractReference } from '../../read/reference-keys.js';
import { findHeadEnd } from '../../text/text.js';

/** A tool that runs shell commands: `Bash`, `bash`, `shell`, `local_shell`, `run_command`, `execute_command`, ... */
const SHELL_TOOL_NAME = /bash|shell|terminal|command|^(?:sh|zsh|exec|run)$/;
/** `['bash', '-lc', 'npm test']`: the script is the command. */
const SHELL_SCRIPT_FLAG = /^-l?c$/;
/** Input fields that hold the file or folder a call was about. */
const PATH_FIELDS = [
  'file_path',
  'path',
  'filePath',
  'filepath',
  'notebook_path',
  'target_file',
  'filename',
  'file',
  'directory',
  'dir',
] as const;
/** Input fields that hold what a search looked for. */
const QUERY_FIELDS = ['pattern', 'query', 'regex', 'search', 'q'] as const;
/** Other input fields that say what a call was about, in the order they are looked at. */
const OTHER_FIELDS = ['url', 'description', 'prompt', 'name', 'id'] as const;

/** Characters of a gist at most. */
const INPUT_GIST_CHARS = 80;

/**
 * The start of each offloaded shell command, by its reference, as compaction read it back: a
 * command whose input holds only its reference is described by it.
 */
export type CommandHeads = ReadonlyMap<string, { readonly text: string }>;

/** What an offloaded command (one that is a reference) is described by when its start was not read back. */
const UNREAD_COMMAND = '(offloaded command)';

/** The command a shell tool's input runs (`command` or `cmd`, a string or an argv list), trimmed. */
export function extractCommand(toolName: string, input: unknown): string | undefined {
  if (!SHELL_TOOL_NAME.test(toolName.toLowerCase()) || typeof input !== 'object' || input === null) return undefined;
  const fields = input as { command?: unknown; cmd?: unknown };
  const value = fields.command ?? fields.cmd;
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (!Array.isArray(value) || value.length === 0 || !value.every((part) => typeof part === 'string')) return undefined;
  const parts = value as string[];
  return parts.length === 3 && SHELL_SCRIPT_FLAG.test(parts[1] as string) ? parts[2] : parts.join(' ');
}

/**
 * The gist of a call's input, on one line, at most {@link INPUT_GIST_CHARS} characters (cut
 * with `…`): a shell tool's command (for one that was offloaded, the start of its text from
 * `commandHeads`, else `(offloaded command)`); else what it searched for (and where: `TODO in src`);
 * else its path; else its URL, description, prompt, name or id; else its input as JSON; `''`
 * when it has none.
 *
 * @example
 * ```ts
 * describeInputGist('Bash', { command: 'npx vitest run' }); // 'npx vitest run'
 * describeInputGist('Read', { file_path: 'src/a.ts', limit: 50 }); // 'src/a.ts'
 * describeInputGist('Grep', { pattern: 'TODO', path: 'src' }); // 'TODO in src'
 * ```
 */
export function describeInputGist(toolName: string, input: unknown, commandHeads?: CommandHeads): string {
  let gist = extractCommand(toolName, input);
  // a reference cut to 80 characters names no file: the command's own start, or a plain note
  if (gist !== undefined && isOffloadReference(gist))
    gist = commandHeads?.get(extractReference(gist))?.text.trim() || UNREAD_COMMAND;
  if (gist === undefined && typeof input === 'object' && input !== null) {
    const fields = input as Record<string, unknown>;
    const first = (names: readonly string[]): string | undefined =>
      names
        .map((name) => fields[name])
        .find((value): value is string => typeof value === 'string' && value.trim() !== '');
    const query = first(QUERY_FIELDS);
    const path = first(PATH_FIELDS);
    gist = query === undefined ? (path ?? first(OTHER_FIELDS)) : path === undefined ? query : `${query} in ${path}`;
    if (gist === undefined && Object.keys(fields).length > 0) gist = stringifyInput(input);
  } else if (gist === undefined && typeof input === 'string') {
    gist = input;
  }
  if (gist === undefined) return '';
  // on one line, whitespace runs as one space (only the start of a long input is looked at)
  const flat = gist
    .slice(0, 4 * INPUT_GIST_CHARS)
    .replace(/\s+/g, ' ')
    .trim();
  const whole = flat.length <= INPUT_GIST_CHARS && gist.length <= 4 * INPUT_GIST_CHARS;
  return whole ? flat : `${flat.slice(0, findHeadEnd(flat, INPUT_GIST_CHARS - 1)).trimEnd()}…`;
}

function stringifyInput(input: unknown): string | undefined {
  try {
    return JSON.stringify(input);
  } catch {
    return undefined;
  }
}
