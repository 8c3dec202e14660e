import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { convertClaudeCodeLog } from '../../../../bench/corpus/convert-claude-code.js';
import { convertCodexRollout } from '../../../../bench/corpus/convert-codex.js';
import { convertMiniSweAgent, convertSweAgent } from '../../../../bench/corpus/convert-openai-chat.js';
import { convertOpenHands } from '../../../../bench/corpus/convert-openhands.js';
import {
  compressCorpusText,
  corpusFileName,
  decompressCorpusBytes,
  digest,
  serializeCorpusFile,
} from '../../../../bench/corpus/corpus-file.js';
import { CORPUS_SOURCES } from '../../../../bench/corpus/corpus-sources.js';
import { loadCorpus, readCorpusFile, readProvenance } from '../../../../bench/corpus/load-corpus.js';
import { resolveCorpusDirectory, type ProvenanceEntry } from '../../../../bench/corpus/provenance.js';
import type { Message } from '../../../../src/core/types.js';

const provenance = await readProvenance();
const corpusDirectory = resolveCorpusDirectory();
const builtEntries = provenance.filter((entry) => existsSync(join(corpusDirectory, entry.file)));

function countToolResults(messages: readonly Message[]): number {
  return messages
    .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
    .filter((block) => block.type === 'tool_result').length;
}

describe('the corpus provenance', () => {
  it('lists at least 30 transcripts from at least three harnesses', () => {
    expect(provenance.length).toBeGreaterThanOrEqual(30);
    expect(new Set(provenance.map((entry) => entry.harness)).size).toBeGreaterThanOrEqual(3);
  });

  it('lists every source of corpus-sources.ts, in order, from the commit and path named there', () => {
    const fromSources = CORPUS_SOURCES.map(({ name, repo, commit, path, line }) => ({
      name,
      repo,
      commit,
      path,
      line,
    }));
    const recorded = provenance.map(({ name, repo, commit, path, line }) => ({ name, repo, commit, path, line }));
    expect(recorded).toEqual(fromSources);
  });

  it('gives every transcript a unique name prefixed by its harness, a licence and tool results', () => {
    expect(new Set(provenance.map((entry) => entry.name)).size).toBe(provenance.length);
    for (const entry of provenance) {
      expect(entry.name.startsWith(`${entry.harness}-`)).toBe(true);
      expect(entry.file).toBe(corpusFileName(entry.name));
      expect(entry.licence).not.toBe('');
      expect(entry.toolResults).toBeGreaterThan(0);
      expect(entry.sourceSha256).toMatch(/^[0-9a-f]{64}$/);
      expect(entry.contentSha256).toMatch(/^[0-9a-f]{64}$/);
    }
  });
});

describe('the built corpus files', () => {
  // The files are built from other repositories and not committed; where they are built (or
  // ACO_CORPUS_DIR names them), each must be exactly what provenance.json records.
  it('hold, for every built transcript, the content provenance records', async () => {
    for (const entry of builtEntries) {
      const file = await readCorpusFile(corpusDirectory, entry);
      expect(file.name).toBe(entry.name);
      expect(file.harness).toBe(entry.harness);
      expect(file.messages.length).toBe(entry.messages);
      expect(countToolResults(file.messages)).toBe(entry.toolResults);
    }
  });
});

describe('loadCorpus', () => {
  let directory: string | undefined;
  afterEach(async () => {
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
    directory = undefined;
  });

  async function writeCorpusFile(entry: ProvenanceEntry, messages: Message[]): Promise<void> {
    directory ??= await mkdtemp(join(tmpdir(), 'corpus-'));
    const text = serializeCorpusFile({ name: entry.name, harness: entry.harness, messages });
    await writeFile(join(directory, entry.file), compressCorpusText(text));
  }

  it('refuses a file whose content is not the one provenance records, naming the file', async () => {
    const entry = provenance[0]!;
    await writeCorpusFile(entry, [{ role: 'user', content: 'not the recorded session' }]);
    await expect(loadCorpus({ directory: directory!, names: [entry.name] })).rejects.toThrow(
      `${entry.file} has content sha256`,
    );
  });

  it('says how to build the corpus when a file is missing', async () => {
    directory = await mkdtemp(join(tmpdir(), 'corpus-'));
    await expect(loadCorpus({ directory, limit: 1 })).rejects.toThrow('build-corpus.ts --sources');
  });
});

describe('corpus files', () => {
  it('compress and decompress to the same text, with the same bytes every time', () => {
    const text = serializeCorpusFile({
      name: 'x-y',
      harness: 'openhands',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(decompressCorpusBytes(compressCorpusText(text))).toBe(text);
    expect(digest(compressCorpusText(text))).toBe(digest(compressCorpusText(text)));
  });
});

describe('the harness converters', () => {
  it('read a mini-swe-agent trajectory without its exit record', () => {
    const { messages } = convertMiniSweAgent(
      {
        messages: [
          { role: 'system', content: 'You are a helpful assistant.' },
          { role: 'user', content: 'Fix the bug.' },
          {
            role: 'assistant',
            content: 'Looking.',
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
            extra: { cost: 1 },
          },
          { role: 'tool', tool_call_id: 'c1', content: 'setup.py' },
          { role: 'exit', content: 'diff --git', extra: {} },
        ],
      },
      'trajectory',
    );
    expect(messages).toEqual([
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Fix the bug.' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'c1', name: 'bash', input: { command: 'ls' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'setup.py' }] },
    ]);
  });

  it('read a SWE-agent history, answering each call by its one tool_call_ids entry', () => {
    const { messages } = convertSweAgent(
      {
        history: [
          {
            role: 'assistant',
            content: 'List.',
            tool_calls: [{ id: 'c1', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
          },
          { role: 'tool', content: 'a.py', tool_call_ids: ['c1'], agent: 'main' },
        ],
      },
      'trajectory',
    );
    expect(messages[1]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'a.py' }],
    });
  });

  it('refuse a SWE-agent tool entry answering several calls at once', () => {
    expect(() =>
      convertSweAgent({ history: [{ role: 'tool', content: 'x', tool_call_ids: ['a', 'b'] }] }, 'run.traj'),
    ).toThrow('run.traj: history[0].tool_call_ids must hold exactly one id, got ["a","b"]');
  });

  it('read an OpenHands run as one assistant message per model response and a result per observation', () => {
    const response = {
      id: 'r1',
      choices: [
        {
          message: {
            content: 'Two commands.',
            tool_calls: [
              { id: 't1', function: { name: 'execute_bash', arguments: '{"command":"ls"}' } },
              { id: 't2', function: { name: 'execute_bash', arguments: '{"command":"pwd"}' } },
            ],
          },
        },
      ],
    };
    const { messages } = convertOpenHands(
      {
        history: [
          { action: 'system', args: { content: 'You are OpenHands.' } },
          { action: 'message', source: 'user', args: { content: 'Fix it.' } },
          { observation: 'recall', content: 'workspace context' },
          { action: 'run', tool_call_metadata: { tool_call_id: 't1', model_response: response } },
          { action: 'run', tool_call_metadata: { tool_call_id: 't2', model_response: response } },
          { observation: 'run', content: 'a.py', tool_call_metadata: { tool_call_id: 't1' } },
          { observation: 'run', content: '/workspace', tool_call_metadata: { tool_call_id: 't2' } },
          { observation: 'agent_state_changed', content: '' },
        ],
      },
      'output.jsonl',
    );
    expect(messages).toEqual([
      { role: 'system', content: 'You are OpenHands.' },
      { role: 'user', content: 'Fix it.' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Two commands.' },
          { type: 'tool_use', id: 't1', name: 'execute_bash', input: { command: 'ls' } },
          { type: 'tool_use', id: 't2', name: 'execute_bash', input: { command: 'pwd' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.py' }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: '/workspace' }] },
    ]);
  });

  it('read the response items of a Codex CLI rollout and nothing else', () => {
    const lines = [
      { type: 'session_meta', payload: { id: 's1' } },
      {
        type: 'response_item',
        payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Run the tests.' }] },
      },
      {
        type: 'response_item',
        payload: { type: 'function_call', call_id: 'k1', name: 'shell', arguments: '{"command":["npm","test"]}' },
      },
      { type: 'event_msg', payload: { type: 'token_count' } },
      { type: 'response_item', payload: { type: 'function_call_output', call_id: 'k1', output: '3 passed' } },
    ];
    const { messages } = convertCodexRollout(lines.map((line) => JSON.stringify(line)).join('\n'), 'rollout.jsonl');
    expect(countToolResults(messages)).toBe(1);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('read a Claude Code log under leading comment lines', () => {
    const log = [
      '// Source: a shared session',
      JSON.stringify({
        type: 'user',
        uuid: 'u1',
        parentUuid: null,
        sessionId: 's',
        message: { role: 'user', content: 'List files.' },
      }),
      JSON.stringify({
        type: 'assistant',
        uuid: 'a1',
        parentUuid: 'u1',
        sessionId: 's',
        message: {
          id: 'm1',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'x1', name: 'Bash', input: { command: 'ls' } }],
        },
      }),
      JSON.stringify({
        type: 'user',
        uuid: 'u2',
        parentUuid: 'a1',
        sessionId: 's',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x1', content: 'a.ts' }] },
      }),
    ].join('\n');
    const { messages } = convertClaudeCodeLog(log, 'session.jsonl');
    expect(countToolResults(messages)).toBe(1);
    expect(messages[0]).toEqual({ role: 'user', content: 'List files.' });
  });
});
