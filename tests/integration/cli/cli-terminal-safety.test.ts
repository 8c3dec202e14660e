/**
 * Terminal safety: whatever a transcript holds, what the CLI prints cannot
 * drive the terminal. A tool result, a tool name, an id and the file's own name carry a CSI
 * colour sequence, an OSC 52 clipboard write, an OSC 0 title set, a C1 CSI and a right-to-left
 * override; the CLI's stdout and stderr must hold none of them raw, and show them
 * escaped. The files it writes keep the content exactly.
 */
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../../src/index.js';
import { createTemporaryDirectory, runInProcess } from './cli-helpers.js';
import type { CliRun } from './cli-helpers.js';

const COLOUR = '\u001b[31m';
const CLIPBOARD_WRITE = '\u001b]52;c;cm0gLXJmIH4vCg==\u0007';
const TITLE_SET = '\u001b]0;pwned\u0007';
const C1_CSI = '\u009b2J';
const RIGHT_TO_LEFT = '\u202e';

const TOOL_NAME = `Read${TITLE_SET}`;
const TOOL_ID = `toolu_${COLOUR}01${RIGHT_TO_LEFT}`;
/** A tool result large enough to be offloaded and to make compaction worth it. */
const TOOL_RESULT = [
  `Result ${COLOUR}red${'\u001b[0m'} text`,
  `clipboard ${CLIPBOARD_WRITE} written`,
  `title ${TITLE_SET} set, ${RIGHT_TO_LEFT}txt.exe and ${C1_CSI} cleared`,
  ...Array.from({ length: 400 }, (_, index) => `log line ${index}: everything is fine ${COLOUR}here${'\u001b[0m'}`),
].join('\n');

const MESSAGES: Message[] = [
  { role: 'user', content: 'Read the file and tell me what it says.' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: TOOL_ID, name: TOOL_NAME, input: { file_path: `notes${TITLE_SET}.txt` } }],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: TOOL_ID, content: TOOL_RESULT }] },
  { role: 'assistant', content: `It says hello ${CLIPBOARD_WRITE}.` },
];

/** ESC, BEL, any other C0 control but line feed, DEL, C1, and the bidi characters. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function expectSafe(run: CliRun): void {
  expect(run.stdout).not.toMatch(UNSAFE);
  expect(run.stderr).not.toMatch(UNSAFE);
}

let directory: { path: string; remove: () => Promise<void> };
let transcriptPath: string;

beforeAll(async () => {
  directory = await createTemporaryDirectory('aco-terminal-');
  // The file's own name is hostile too.
  transcriptPath = join(directory.path, `history${TITLE_SET}.json`);
  await writeFile(transcriptPath, JSON.stringify(MESSAGES));
});
afterAll(async () => {
  await directory.remove();
});

describe('agent-context count prints nothing a terminal obeys', () => {
  it('the report shows the tool name, the id, the preview and the file name escaped', async () => {
    const run = await runInProcess(['count', transcriptPath]);
    expect(run.exitCode).toBe(0);
    expectSafe(run);
    expect(run.stdout).toContain(`history\\u001b]0;pwned\\u0007.json`);
    expect(run.stdout).toContain('Read\\u001b]0;pwned\\u0007');
    expect(run.stdout).toContain('toolu_\\u001b[31m01\\u202e');
    expect(run.stdout).toContain('Result \\u001b[31mred\\u001b[0m text');
  });

  it('--json is the same values, escaped as JSON: parsed, it holds the original text', async () => {
    const run = await runInProcess(['count', transcriptPath, '--json']);
    expect(run.exitCode).toBe(0);
    expectSafe(run);
    const report = JSON.parse(run.stdout) as {
      byTool: Record<string, unknown>;
      largestToolResults: Array<{ toolUseId: string; tool: string }>;
    };
    expect(Object.keys(report.byTool)).toEqual([TOOL_NAME]);
    expect(report.largestToolResults[0]).toMatchObject({ toolUseId: TOOL_ID, tool: TOOL_NAME });
  });

  it("with colours forced, the only escape sequences are the report's own colours", async () => {
    const run = await runInProcess(['count', transcriptPath], { env: { FORCE_COLOR: '1' } });
    expect(run.exitCode).toBe(0);
    // eslint-disable-next-line no-control-regex -- the SGR colour sequences picocolors writes
    const withoutOwnColours = run.stdout.replace(/\u001b\[\d+(;\d+)*m/g, '');
    expect(withoutOwnColours).not.toMatch(UNSAFE);
    expect(withoutOwnColours).toContain('Read\\u001b]0;pwned\\u0007');
  });
});

describe('agent-context offload prints nothing a terminal obeys, and writes the content exactly', () => {
  it('history on stdout and stats on stderr are safe; the offloaded file holds the exact result', async () => {
    const out = join(directory.path, 'offload-stdout');
    const run = await runInProcess(['offload', transcriptPath, '--out', out]);
    expect(run.exitCode).toBe(0);
    expectSafe(run);
    expect(run.stderr).toContain('offload  ');
    expect(run.stderr).toContain('history\\u001b]0;pwned\\u0007.json');
    // Still JSON, meaning the same history: only the escapes differ.
    const history = JSON.parse(run.stdout) as Message[];
    expect(history[1]).toEqual(MESSAGES[1]);
    const [file] = (await readdir(out)).filter((name) => name !== '.agent-context-offload');
    expect(await readFile(join(out, file!), 'utf8')).toBe(TOOL_RESULT);
  });

  it('-o writes the history with its characters as they are, and the report to stdout is safe', async () => {
    const out = join(directory.path, 'offload-file');
    const outputFile = join(directory.path, 'offloaded.json');
    const run = await runInProcess(['offload', transcriptPath, '--out', out, '-o', outputFile]);
    expect(run.exitCode).toBe(0);
    expectSafe(run);
    const written = await readFile(outputFile, 'utf8');
    expect(written).toContain(RIGHT_TO_LEFT);
    expect((JSON.parse(written) as Message[])[1]).toEqual(MESSAGES[1]);
  });
});

describe('agent-context compact prints nothing a terminal obeys', () => {
  it('history on stdout and stats on stderr are safe; the archive keeps the compacted messages exactly', async () => {
    const workDir = join(directory.path, 'compact-work');
    await mkdir(workDir);
    const run = await runInProcess(['compact', transcriptPath, '--force', '--work-dir', workDir]);
    expect(run.exitCode).toBe(0);
    expectSafe(run);
    expect(run.stderr).toContain('history\\u001b]0;pwned\\u0007.json');
    expect(run.stderr).toContain('summarized 4 messages');
    const history = JSON.parse(run.stdout) as Message[];
    expect(history[0]?.content).toMatch(/^\[Conversation compressed\]/);
    const [archive] = await readdir(join(workDir, '.compact', 'default'));
    expect(JSON.parse(await readFile(join(workDir, '.compact', 'default', archive!), 'utf8'))).toEqual(MESSAGES);
  });
});

describe('errors that quote a value from the transcript are escaped', () => {
  it('a role holding a C1 CSI and a bidi override is named, escaped, on one safe line', async () => {
    const path = join(directory.path, 'bad-role.json');
    await writeFile(path, JSON.stringify([{ role: `user${C1_CSI}${RIGHT_TO_LEFT}`, content: 'hi' }]));
    for (const command of [['count'], ['offload', '--out', join(directory.path, 'never')], ['compact']]) {
      const run = await runInProcess([command[0]!, path, ...command.slice(1)]);
      expect(run.exitCode).toBe(1);
      expectSafe(run);
      expect(run.stderr).toContain('\\u009b2J\\u202e');
    }
  });

  it('a missing file with a hostile name is named, escaped', async () => {
    const run = await runInProcess(['count', join(directory.path, `missing${CLIPBOARD_WRITE}.json`)]);
    expect(run.exitCode).toBe(1);
    expectSafe(run);
    expect(run.stderr).toContain('missing\\u001b]52;c;cm0gLXJmIH4vCg==\\u0007.json: no such file (ENOENT)');
  });
});
