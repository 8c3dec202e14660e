import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { countTokens, estimateTokens, planOffload, shouldCompact } from '../../../src/index.js';
import { compactThresholdTokens } from '../../../src/summarize.js';
import type { ContentBlock, Message } from '../../../src/index.js';
import type { ContextMeasurement } from '../../../src/cli/measure-context.js';
import { fixturePath, hasAnsi, readFixtureTranscript, runInProcess } from './cli-helpers.js';

const FORMAT_FIXTURES = [
  ['messages.json', 'json'],
  ['messages.jsonl', 'jsonl'],
  ['request-body.json', 'request-body'],
  ['request-body-string-system.json', 'request-body'],
  ['claude-code-session.jsonl', 'claude-code'],
] as const;

async function countJson(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): Promise<ContextMeasurement> {
  const run = await runInProcess(['count', ...args, '--json'], { env });
  expect(run.stderr).toBe('');
  expect(run.exitCode).toBe(0);
  return JSON.parse(run.stdout) as ContextMeasurement;
}

/** Tokens of one block as the library counts it: its message's tokens minus the empty message's. */
function countBlockTokens(block: ContentBlock): number {
  return countTokens([{ role: 'user', content: [block] }]) - countTokens([{ role: 'user', content: [] }]);
}

function blocksOf(messages: readonly Message[]): ContentBlock[] {
  return messages.flatMap((message) => (typeof message.content === 'string' ? [] : message.content));
}

describe('agent-context count --json', () => {
  it.each(FORMAT_FIXTURES)(
    '%s: prints exactly { format, messageFormat, messageCount, totalTokens, byRole, byTool, largestToolResults, offload, compaction }',
    async (name, format) => {
      const report = await countJson([fixturePath(name)]);
      expect(Object.keys(report)).toEqual([
        'format',
        'messageFormat',
        'messageCount',
        'totalTokens',
        'byRole',
        'byTool',
        'largestToolResults',
        'offload',
        'compaction',
      ]);
      expect(report.format).toBe(format);
      expect(report.messageFormat).toBe('anthropic');
    },
  );

  it.each(FORMAT_FIXTURES)('%s: the figures are the library functions on the same messages', async (name) => {
    const transcript = await readFixtureTranscript(name);
    const { messages } = transcript;
    const report = await countJson([fixturePath(name)]);
    const toolDefinitionTokens =
      transcript.toolDefinitions === undefined ? 0 : estimateTokens(JSON.stringify(transcript.toolDefinitions));

    expect(report.messageCount).toBe(messages.length);
    expect(report.totalTokens).toBe(countTokens(messages) + toolDefinitionTokens);
    for (const role of ['system', 'user', 'assistant'] as const) {
      expect(report.byRole[role]).toBe(countTokens(messages.filter((message) => message.role === role)));
    }
    expect(report.byRole.tools).toBe(transcript.toolDefinitions === undefined ? undefined : toolDefinitionTokens);
    const byRoleSum = Object.values(report.byRole).reduce((sum, tokens) => sum + tokens, 0);
    expect(byRoleSum).toBe(report.totalTokens);

    const names = new Map<string, string>();
    const expectedByTool = new Map<string, { calls: number; tokens: number }>();
    for (const block of blocksOf(messages)) {
      if (block.type === 'tool_use') {
        const call = block as { id: string; name: string };
        names.set(call.id, call.name);
        const entry = expectedByTool.get(call.name) ?? { calls: 0, tokens: 0 };
        expectedByTool.set(call.name, { calls: entry.calls + 1, tokens: entry.tokens + countBlockTokens(block) });
      } else if (block.type === 'tool_result') {
        const tool = names.get((block as { tool_use_id: string }).tool_use_id) ?? '(unmatched)';
        const entry = expectedByTool.get(tool) ?? { calls: 0, tokens: 0 };
        expectedByTool.set(tool, { calls: entry.calls, tokens: entry.tokens + countBlockTokens(block) });
      }
    }
    expect(Object.keys(report.byTool).sort()).toEqual([...expectedByTool.keys()].sort());
    for (const [tool, expected] of expectedByTool) expect(report.byTool[tool]).toMatchObject(expected);
    const toolTokens = Object.values(report.byTool).map((tool) => tool.tokens);
    expect(toolTokens).toEqual([...toolTokens].sort((left, right) => right - left));

    const results = blocksOf(messages).filter((block) => block.type === 'tool_result');
    const largest = results
      .map(countBlockTokens)
      .sort((left, right) => right - left)
      .slice(0, 10);
    expect(report.largestToolResults.map((result) => result.tokens)).toEqual(largest);

    const plan = planOffload(messages);
    expect(report.offload).toMatchObject({
      charThreshold: plan.charThreshold,
      ratioThreshold: plan.ratioThreshold,
      totalChars: plan.totalChars,
      offloadableChars: plan.offloadableChars,
      ratio: plan.ratio,
      candidateCount: plan.candidates.length,
      skippedReason: plan.skippedReason,
      wouldOffload: plan.skippedReason === null,
      freedChars: plan.skippedReason === null ? plan.offloadableChars : 0,
      toolResultCount: results.length,
    });

    expect(report.compaction).toEqual({
      contextTokenLimit: 200_000,
      compactThresholdRatio: 0.92,
      thresholdTokens: compactThresholdTokens(200_000, 0.92),
      share: report.totalTokens / 200_000,
      wouldTrigger: shouldCompact(messages),
    });
  });

  it('lists the 10 largest tool results with id, tool, tokens and first line', async () => {
    const report = await countJson([fixturePath('claude-code-session.jsonl')]);
    expect(report.largestToolResults[0]).toEqual({
      toolUseId: 'toolu_01Bash1',
      tool: 'Bash',
      tokens: expect.any(Number),
      messageIndex: 3,
      firstLine: 'RUN  v3.2.4 /home/dev/app',
    });
    expect(report.largestToolResults.map((result) => result.tool)).toEqual(['Bash', 'Read', 'Read', 'Bash', 'Edit']);
  });

  it('counts tool inputs plus results per tool, with the number of calls', async () => {
    const report = await countJson([fixturePath('claude-code-session.jsonl')]);
    expect(Object.keys(report.byTool)).toEqual(['Bash', 'Read', 'Edit']);
    expect(report.byTool.Read).toMatchObject({ calls: 2 });
    const read = report.byTool.Read!;
    expect(read.tokens).toBe(read.inputTokens + read.resultTokens);
  });

  it('follows the thresholds and the trigger from the environment', async () => {
    const messages = (await readFixtureTranscript('messages.json')).messages;
    const env = {
      OFFLOAD_CHAR_THRESHOLD: '400',
      OFFLOAD_RATIO_THRESHOLD: '0.5',
      CONTEXT_TOKEN_LIMIT: '1000',
      COMPACT_THRESHOLD_RATIO: '0.5',
    };
    const report = await countJson([fixturePath('messages.json')], env);
    const plan = planOffload(messages, { charThreshold: 400, ratioThreshold: 0.5 });
    expect(report.offload).toMatchObject({
      charThreshold: 400,
      ratioThreshold: 0.5,
      candidateCount: plan.candidates.length,
    });
    expect(report.compaction).toMatchObject({
      contextTokenLimit: 1000,
      compactThresholdRatio: 0.5,
      thresholdTokens: 500,
      wouldTrigger: true,
    });
    expect(shouldCompact(messages, { contextTokenLimit: 1000, compactThresholdRatio: 0.5 })).toBe(true);
  });

  it('follows --char-threshold, --ratio-threshold, --exclude-tools, --limit and --ratio over the environment', async () => {
    const messages = (await readFixtureTranscript('messages.json')).messages;
    const report = await countJson(
      [
        fixturePath('messages.json'),
        '--char-threshold',
        '50',
        '--ratio-threshold',
        '0.9',
        '--exclude-tools',
        'run_command',
        '--limit',
        '1100',
        '--ratio',
        '0.99',
      ],
      { OFFLOAD_CHAR_THRESHOLD: '4000', CONTEXT_TOKEN_LIMIT: '10' },
    );
    const plan = planOffload(messages, { charThreshold: 50, ratioThreshold: 0.9, excludeTools: ['run_command'] });
    expect(report.offload).toMatchObject({
      candidateCount: plan.candidates.length,
      skippedReason: 'below-ratio-threshold',
      wouldOffload: false,
      freedChars: 0,
    });
    expect(report.compaction).toMatchObject({
      contextTokenLimit: 1100,
      thresholdTokens: 1089,
      wouldTrigger: shouldCompact(messages, {
        contextTokenLimit: 1100,
        compactThresholdRatio: 0.99,
        tokenSafetyFactor: 1,
      }),
    });
  });

  it("counts a request body's tools toward the total and the trigger, as providers bill them", async () => {
    const transcript = await readFixtureTranscript('request-body.json');
    const toolTokens = estimateTokens(JSON.stringify(transcript.toolDefinitions));
    const messageTokens = countTokens(transcript.messages);
    // A window where the messages alone stay below the trigger and the tools push them over it.
    const limit = Math.floor((messageTokens + toolTokens) / 0.92);
    const report = await countJson([fixturePath('request-body.json'), '--limit', String(limit)]);
    expect(report.byRole.tools).toBe(toolTokens);
    expect(report.compaction.wouldTrigger).toBe(true);
    expect(shouldCompact(transcript.messages, { contextTokenLimit: limit, tokenSafetyFactor: 1 })).toBe(false);
  });

  it('reads standard input with -', async () => {
    const text = await readFile(fixturePath('claude-code-session.jsonl'), 'utf8');
    const run = await runInProcess(['count', '-', '--json'], { stdin: text });
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(await countJson([fixturePath('claude-code-session.jsonl')]));
  });
});

describe('agent-context count report', () => {
  it('shows totals, bar charts by role and by tool, the largest results, the offload forecast and the trigger', async () => {
    const run = await runInProcess(['count', fixturePath('claude-code-session.jsonl')]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    const report = run.stdout;
    const measurement = await countJson([fixturePath('claude-code-session.jsonl')]);
    expect(report).toContain('Claude Code session log, 10 messages');
    expect(report).toMatch(new RegExp(`Total  ${measurement.totalTokens.toLocaleString('en-US')} tokens`));
    expect(report).toMatch(/By role\n {2}system +0 +0\.0%\n {2}user +[\d,]+ {2}█+/);
    expect(report).toMatch(/By tool \(calls, tokens of inputs \+ results\)\n {2}Bash {2}2×/);
    expect(report).toMatch(
      /Largest tool results\n +tokens {2}tool {2}id +first line\n +[\d,]+ {2}Bash {2}toolu_01Bash1 +RUN {2}v3\.2\.4 \/home\/dev\/app/,
    );
    expect(report).toContain('Batch offload (char threshold 100, ratio threshold 0.2)');
    expect(report).toMatch(/would offload 5 of 5 tool results: 3,239 of 4,411 chars \(73\.4%\)/);
    expect(report).toMatch(
      /Compaction \(window 200,000 tokens, triggers at 92\.0% = 184,000\)\n {2}[█░│┃]+ {2}0\.8% of the window\n {2}would not trigger: 182,371 tokens to go/,
    );
  });

  it('says why batch offload would skip', async () => {
    const run = await runInProcess(['count', fixturePath('messages.json'), '--ratio-threshold', '0.9']);
    expect(run.stdout).toMatch(
      /would skip: the 3 results that qualify are 77\.8% of the history, below the ratio threshold \(90\.0%\)/,
    );
  });

  it('says when compaction would trigger', async () => {
    const run = await runInProcess(['count', fixturePath('messages.json'), '--limit', '1000']);
    expect(run.stdout).toMatch(/107\.3% of the window\n {2}would trigger\n/);
  });

  it('has no colour when piped', async () => {
    expect(hasAnsi((await runInProcess(['count', fixturePath('messages.json')])).stdout)).toBe(false);
  });

  it('has colour with FORCE_COLOR, and none when NO_COLOR is set as well', async () => {
    expect(
      hasAnsi((await runInProcess(['count', fixturePath('messages.json')], { env: { FORCE_COLOR: '1' } })).stdout),
    ).toBe(true);
    expect(
      hasAnsi(
        (await runInProcess(['count', fixturePath('messages.json')], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } }))
          .stdout,
      ),
    ).toBe(false);
  });

  it('never colours --json', async () => {
    expect(
      hasAnsi(
        (await runInProcess(['count', fixturePath('messages.json'), '--json'], { env: { FORCE_COLOR: '1' } })).stdout,
      ),
    ).toBe(false);
  });
});
