/**
 * Builds the corpus: reads every source of `corpus-sources.ts` from a git copy of its
 * repository, converts it into canonical messages with its harness's converter, and writes
 * `<out>/<name>.json.gz` for each, plus `bench/corpus/provenance.json`.
 *
 *     npx tsx bench/corpus/build-corpus.ts --sources <dir> [--out <dir>] [--only <name>[,<name>]]
 *
 * `--sources` holds one git copy per repository, named `<owner>+<name>`: a bare or mirror
 * clone (`<owner>+<name>/repo` or `<owner>+<name>` itself) or a working clone; README.md beside
 * this file gives the clone commands. `--out` defaults to `bench/corpus/transcripts` (or
 * `ACO_CORPUS_DIR`). The same sources always give the same bytes: nothing in a file depends on
 * the time or the machine, and a transcript's `convertedAt` moves only when its content does.
 * A source that cannot be converted as it is stops the build (fix the converter or drop the
 * source: a transcript is never edited to fit).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { countMessageChars } from '../../src/core/text/char-count.js';
import type { Message } from '../../src/core/types.js';
import { convertClaudeCodeLog } from './convert-claude-code.js';
import { convertCodexRollout } from './convert-codex.js';
import { convertMiniSweAgent, convertSweAgent, type ConvertedTranscript } from './convert-openai-chat.js';
import { convertOpenHands } from './convert-openhands.js';
import { compressCorpusText, corpusFileName, digest, serializeCorpusFile, type CorpusHarness } from './corpus-file.js';
import { CORPUS_SOURCES, type CorpusSource } from './corpus-sources.js';
import { PROVENANCE_FILE, resolveCorpusDirectory, type CorpusProvenance, type ProvenanceEntry } from './provenance.js';

/** The JSON value a source holds: the whole file, or one line of a JSONL file holding one run per line. */
function parseSource(text: string, source: string, line: number | undefined): unknown {
  if (line === undefined) return JSON.parse(text) as unknown;
  const record = text.split('\n')[line - 1];
  if (record === undefined || record.trim() === '') throw new Error(`${source}: no line ${line}`);
  return JSON.parse(record) as unknown;
}

const CONVERTERS: Record<CorpusHarness, (text: string, source: string, line?: number) => ConvertedTranscript> = {
  'mini-swe-agent': (text, source, line) => convertMiniSweAgent(parseSource(text, source, line), source),
  'swe-agent': (text, source, line) => convertSweAgent(parseSource(text, source, line), source),
  openhands: (text, source, line) => convertOpenHands(parseSource(text, source, line), source),
  'codex-cli': (text, source) => convertCodexRollout(text, source),
  'claude-code': convertClaudeCodeLog,
};

function readFlag(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

/** The git arguments that reach a repository's copy under `sources`. */
function locateRepository(sources: string, repo: string): string[] {
  const base = join(sources, repo.replace('/', '+'));
  if (existsSync(join(base, 'repo', 'HEAD'))) return ['--git-dir', join(base, 'repo')];
  if (existsSync(join(base, 'HEAD'))) return ['--git-dir', base];
  if (existsSync(join(base, '.git'))) return ['-C', base];
  throw new Error(`--sources: no git copy of ${repo} at ${base} (see bench/corpus/README.md for the clone commands)`);
}

function readSource(sources: string, source: CorpusSource): Buffer {
  return execFileSync('git', [...locateRepository(sources, source.repo), 'show', `${source.commit}:${source.path}`], {
    maxBuffer: 256 * 1024 * 1024,
  });
}

function countToolResults(messages: readonly Message[]): number {
  let count = 0;
  for (const message of messages)
    if (Array.isArray(message.content))
      for (const block of message.content) if (block.type === 'tool_result') count += 1;
  return count;
}

async function readPreviousProvenance(): Promise<Map<string, ProvenanceEntry>> {
  if (!existsSync(PROVENANCE_FILE)) return new Map();
  const previous = JSON.parse(await readFile(PROVENANCE_FILE, 'utf8')) as CorpusProvenance;
  return new Map(previous.transcripts.map((entry) => [entry.name, entry]));
}

async function writeAtomically(path: string, content: string | Uint8Array): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content);
  await rename(temporary, path);
}

async function build(): Promise<void> {
  const sources = readFlag('--sources');
  if (sources === undefined) throw new Error('--sources must name the directory holding the git copies, got nothing');
  const out = resolve(readFlag('--out') ?? resolveCorpusDirectory());
  const only = readFlag('--only')?.split(',');
  const names = new Set<string>();
  for (const source of CORPUS_SOURCES) {
    if (names.has(source.name)) throw new Error(`corpus-sources: the name ${source.name} is used twice`);
    names.add(source.name);
  }
  await mkdir(out, { recursive: true });
  const previous = await readPreviousProvenance();
  const entries: ProvenanceEntry[] = [];
  for (const source of CORPUS_SOURCES) {
    if (only !== undefined && !only.includes(source.name)) {
      const kept = previous.get(source.name);
      if (kept !== undefined) entries.push(kept);
      continue;
    }
    const bytes = readSource(sources, source);
    const where = `${source.repo}@${source.commit.slice(0, 7)}:${source.path}${source.line === undefined ? '' : `:${source.line}`}`;
    const { messages, tools } = CONVERTERS[source.harness](bytes.toString('utf8'), where, source.line);
    const text = serializeCorpusFile({
      name: source.name,
      harness: source.harness,
      messages,
      ...(tools ? { tools } : {}),
    });
    const contentSha256 = digest(text);
    const toolResults = countToolResults(messages);
    if (toolResults === 0) throw new Error(`${where}: no tool results, nothing for context management to do`);
    await writeAtomically(join(out, corpusFileName(source.name)), compressCorpusText(text));
    const earlier = previous.get(source.name);
    entries.push({
      ...source,
      file: corpusFileName(source.name),
      sourceBytes: bytes.length,
      sourceSha256: digest(bytes),
      contentSha256,
      messages: messages.length,
      toolResults,
      characters: messages.reduce((sum, message) => sum + countMessageChars(message), 0),
      convertedAt:
        earlier?.contentSha256 === contentSha256 ? earlier.convertedAt : new Date().toISOString().slice(0, 10),
    });
    console.log(`${source.name}: ${messages.length} messages, ${toolResults} tool results`);
  }
  const provenance: CorpusProvenance = { transcripts: entries };
  await writeAtomically(PROVENANCE_FILE, `${JSON.stringify(provenance, null, 2)}\n`);
  console.log(`${entries.length} transcripts in ${out}; provenance in ${PROVENANCE_FILE}`);
}

await build();
