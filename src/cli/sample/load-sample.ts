/**
 * The sample transcript shipped with the package, for `agent-context demo`: a coding agent
 * fixes the failing test suite of `invoice-kit` after a rounding change. It reads files, runs
 * the failing suite (a long log), searches, edits three places, re-runs twice and checks
 * types — a session of ~76K tokens, most of them tool results, as in real agent work.
 *
 * The data are JSON files next to this module, read at run time (no import attributes):
 * - `session.json`: the conversation, system prompt first, in the package's message format
 *   (the file `demo` writes as `sample-session.json`, and a valid input for `count`);
 * - `project-files.json`: the project at the end of the session (edits applied), each file's
 *   relative path mapped to its lines (joined with `\n`; a final `""` is a final newline).
 */
import { readFile } from 'node:fs/promises';
import { assertMessages } from '../../messages.js';
import type { Message } from '../../index.js';

/** The sample session and the project it works on. */
export interface SampleSession {
  /** Name of the project directory. */
  projectName: string;
  /** The conversation, system prompt first. */
  messages: Message[];
  /** The project's files at the end of the session (edits applied), by relative path. */
  projectFiles: Record<string, string>;
  /** Name of the tool that reads files, and its path field (for compaction's restoration). */
  readToolName: string;
  /** Field of the read tool's input holding the path. */
  pathField: string;
}

async function readJsonAsset(name: string): Promise<unknown> {
  const url = new URL(`./${name}`, import.meta.url);
  try {
    return JSON.parse(await readFile(url, 'utf8')) as unknown;
  } catch (error) {
    throw new Error(
      `cannot load the demo's sample ${name}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

function toProjectFiles(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error("the demo's sample project-files.json must be an object of path → lines");
  }
  const files: Record<string, string> = {};
  for (const [path, lines] of Object.entries(value)) {
    if (!Array.isArray(lines) || !lines.every((line) => typeof line === 'string')) {
      throw new Error(`the demo's sample project-files.json: "${path}" must be an array of lines (strings)`);
    }
    files[path] = lines.join('\n');
  }
  return files;
}

/** Loads the sample session; each call reads the files again and returns fresh values. */
export async function loadSampleSession(): Promise<SampleSession> {
  const [messages, projectFiles] = await Promise.all([
    readJsonAsset('session.json'),
    readJsonAsset('project-files.json'),
  ]);
  assertMessages(messages, 'session.json');
  return {
    projectName: 'invoice-kit',
    messages,
    projectFiles: toProjectFiles(projectFiles),
    readToolName: 'read_file',
    pathField: 'path',
  };
}
