import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyEnvironment, parseProxyConfig } from '../../../src/cli/proxy-config.js';

/** Parses a config text named `agent-context.json`, for `proxy`. */
function parse(text: string): ReturnType<typeof parseProxyConfig> {
  return parseProxyConfig(text, 'agent-context.json', 'proxy');
}

describe('the config file of proxy and wrap', () => {
  it('reads JSON with comments and trailing commas', () => {
    const config = parse(`{
      // the model's window
      "proxy": { "window": 100000, },
      /* tuning */
      "offload": { "timing": "on-arrival", "excludeTools": ["Read"], "preview": { "headChars": 100, "tailChars": 0 } },
      "compaction": { "triggerRatio": 0.8, "summary": { "mode": "prompt" } },
    }`);

    expect(config).toEqual({
      proxy: { window: 100000 },
      offload: { timing: 'on-arrival', excludeTools: ['Read'], preview: { headChars: 100, tailChars: 0 } },
      compaction: { triggerRatio: 0.8, summary: { mode: 'prompt' } },
    });
  });

  it('accepts an empty object and a $schema key', () => {
    expect(parse('{ "$schema": "./schema.json" }')).toEqual({ proxy: {}, offload: undefined, compaction: undefined });
  });

  describe('unknown keys', () => {
    it('refuses a misspelt proxy setting, naming its path and the settings there are', () => {
      expect(() => parse('{ "proxy": { "uptream": "http://127.0.0.1:1" } }')).toThrow(
        'agent-context.json: proxy.uptream is not a setting: expected one of port, host, upstream, dir, window, summarizer, workDir, store, readTool, authToken',
      );
    });

    it('refuses an unknown key deep in a manager group, and at the top', () => {
      expect(() => parse('{ "compaction": { "summary": { "maxWord": 500 } } }')).toThrow(
        'agent-context.json: compaction.summary.maxWord is not a setting: expected one of model, maxWords, inputMaxTokens, maxRetries, retryBaseDelayMs, mode',
      );
      expect(() => parse('{ "offlaod": {} }')).toThrow(
        'agent-context.json: offlaod is not a setting: expected one of proxy, offload, compaction',
      );
    });

    it.each([
      [
        '{ "proxy": { "offloadTiming": "on-arrival" } }',
        'proxy.offloadTiming is not a setting any more: it is offload.timing',
      ],
      ['{ "offload": { "threshold": 1000 } }', 'offload.threshold is not a setting any more: it meant one thing'],
      [
        '{ "compaction": { "trigger": { "ratio": 0.5 } } }',
        'compaction.trigger is not a setting any more: compaction.trigger.ratio is now compaction.triggerRatio',
      ],
      [
        '{ "compaction": { "archive": { "policy": "required" } } }',
        'compaction.archive is not a setting any more: compaction.archive.policy is now compaction.archivePolicy',
      ],
    ])('refuses the removed spelling in %s, naming what replaces it', (text, message) => {
      expect(() => parse(text)).toThrow(`agent-context.json: ${message}`);
    });

    it('refuses the settings a file cannot carry (a port, a function)', () => {
      expect(() => parse('{ "compaction": { "restore": { "fileReader": {} } } }')).toThrow(
        'compaction.restore.fileReader is not a setting',
      );
    });
  });

  describe('values', () => {
    it.each([
      ['{ "proxy": { "port": "8787" } }', 'proxy.port must be an integer in [0, 65535], got "8787"'],
      ['{ "proxy": { "window": 0 } }', 'proxy.window must be an integer >= 1, got 0'],
      ['{ "proxy": { "summarizer": "llm" } }', 'proxy.summarizer must be one of "extractive", "upstream", got "llm"'],
      ['{ "proxy": { "dir": "" } }', 'proxy.dir must be a non-empty string, got ""'],
      ['{ "proxy": [] }', 'proxy must be an object, got an array of 0'],
      ['{ "offload": { "ratioThreshold": 2 } }', 'offload.ratioThreshold must be a number in [0, 1], got 2'],
      ['{ "offload": { "excludeTools": "Read" } }', 'offload.excludeTools must be an array of strings, got "Read"'],
      [
        '{ "offload": { "preview": { "headChars": -1 } } }',
        'offload.preview.headChars must be an integer >= 0, got -1',
      ],
      [
        '{ "compaction": { "triggerRatio": "high" } }',
        'compaction.triggerRatio must be a number in [0, 1], got "high"',
      ],
      ['{ "offload": { "minAgedResultChars": 0 } }', 'offload.minAgedResultChars must be an integer >= 1, got 0'],
    ])('refuses %s, naming the field, what it must be and what it is', (text, message) => {
      expect(() => parse(text)).toThrow(`agent-context.json: ${message}`);
    });
  });

  describe('a file that is not a config', () => {
    it('names the first syntax error with its line and column', () => {
      expect(() => parse('{\n  "proxy": { "port": 8787 \n}')).toThrow(
        'agent-context.json: not valid JSON (comments and trailing commas allowed): CloseBraceExpected at line 3, column 2',
      );
    });

    it('refuses a file that holds no object', () => {
      expect(() => parse('[1]')).toThrow('agent-context.json: must hold an object, got an array of 1');
    });

    it('is a usage error: exit 2', () => {
      expect(() => parse('{ "x": 1 }')).toThrow(expect.objectContaining({ exitCode: 2 }));
    });
  });
});

describe("the environment into the manager's groups", () => {
  it('puts each variable that is set where its grouped option lives, over the file, leaving the rest', () => {
    const file = {
      offload: { charThreshold: 500, excludeTools: ['Read'] },
      compaction: { triggerRatio: 0.5, summary: { maxWords: 300 } },
    };
    const groups = applyEnvironment(file, {
      OFFLOAD_CHAR_THRESHOLD: '2000',
      COMPACT_THRESHOLD_RATIO: '0.7',
      MAX_RESTORE_FILES: '2',
      SUMMARY_MAX_WORDS: ' ',
    });

    expect(groups).toEqual({
      offload: { charThreshold: 2000, excludeTools: ['Read'] },
      compaction: { triggerRatio: 0.7, summary: { maxWords: 300 }, restore: { maxFiles: 2 } },
    });
    expect(file.offload.charThreshold).toBe(500);
  });

  it('gives groups from the environment alone, and none when no variable is set', () => {
    expect(
      applyEnvironment({ offload: undefined, compaction: undefined }, { SUMMARY_MODEL: 'claude-haiku-4-5' }),
    ).toEqual({ offload: undefined, compaction: { summary: { model: 'claude-haiku-4-5' } } });
    expect(applyEnvironment({ offload: undefined, compaction: undefined }, {})).toEqual({
      offload: undefined,
      compaction: undefined,
    });
  });

  it('refuses a variable out of its range, naming it', () => {
    expect(() =>
      applyEnvironment({ offload: undefined, compaction: undefined }, { OFFLOAD_RATIO_THRESHOLD: '2' }),
    ).toThrow('OFFLOAD_RATIO_THRESHOLD must be a number in [0, 1], got "2"');
  });
});

describe('the config files the docs show', () => {
  const page = readFileSync(new URL('../../../docs/proxy.md', import.meta.url), 'utf8');
  const blocks = [...page.matchAll(/^```jsonc\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string);

  it.each(blocks.map((block, index) => [index + 1, block]))('docs/proxy.md config %i is accepted', (_index, block) => {
    expect(() => parse(block)).not.toThrow();
  });

  it('shows at least one', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });
});
