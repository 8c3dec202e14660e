import { describe, expect, it } from 'vitest';
import {
  createSessionTally,
  exitCodeOfChild,
  formatSessionSummary,
  tallyRequest,
  wrappedArguments,
  wrappedEnvironment,
} from '../../../src/cli/wrap.js';
import type { ProxyRequestEvent } from '../../../src/proxy/proxy-options.js';

const ORIGIN = 'http://127.0.0.1:40123';

function event(overrides: Partial<ProxyRequestEvent>): ProxyRequestEvent {
  return {
    route: '/v1/messages',
    sessionId: 's',
    outcome: 'managed',
    actions: [],
    messagesIn: 3,
    messagesOut: 3,
    bytesIn: 100,
    bytesOut: 50,
    ...overrides,
  };
}

describe('the environment of a wrapped command', () => {
  it('points the Anthropic and Gemini CLI base URLs at the proxy and the OpenAI one at its /v1', () => {
    expect(wrappedEnvironment({ PATH: '/bin', ANTHROPIC_BASE_URL: 'https://elsewhere' }, ORIGIN)).toEqual({
      PATH: '/bin',
      ANTHROPIC_BASE_URL: ORIGIN,
      OPENAI_BASE_URL: `${ORIGIN}/v1`,
      GOOGLE_GEMINI_BASE_URL: ORIGIN,
    });
  });
});

describe('the arguments of a wrapped command', () => {
  it('leaves any command but codex as it is', () => {
    expect(wrappedArguments('claude', ['-p', 'hi'], ORIGIN, {})).toEqual(['-p', 'hi']);
  });

  it('gives codex a provider on the proxy that speaks the Responses API, keyed by OPENAI_API_KEY when set', () => {
    expect(wrappedArguments('/opt/bin/codex', ['exec', 'hi'], ORIGIN, { OPENAI_API_KEY: 'sk-x' })).toEqual([
      '-c',
      'model_provider="agent_context"',
      '-c',
      'model_providers.agent_context.name="agent-context proxy"',
      '-c',
      `model_providers.agent_context.base_url="${ORIGIN}/v1"`,
      '-c',
      'model_providers.agent_context.wire_api="responses"',
      '-c',
      'model_providers.agent_context.env_key="OPENAI_API_KEY"',
      'exec',
      'hi',
    ]);
  });

  it('lets codex use its own login when OPENAI_API_KEY is not set', () => {
    expect(wrappedArguments('codex', [], ORIGIN, {})).toContain(
      'model_providers.agent_context.requires_openai_auth=true',
    );
  });
});

describe('the summary of a wrapped run', () => {
  it('adds up requests, bytes, tokens estimated from the sizes, offloads and compactions', () => {
    const tally = createSessionTally();
    tallyRequest(
      tally,
      event({
        bytesIn: 400_000,
        bytesOut: 100_000,
        actions: [{ type: 'direct-offload', toolCallIds: ['a', 'b'] } as never],
        stats: { tokensBefore: 30_000, tokensAfter: 25_000 } as never,
      }),
    );
    tallyRequest(
      tally,
      event({
        outcome: 'unchanged',
        bytesIn: 4_000,
        bytesOut: 4_000,
        stats: { tokensBefore: 1_000, tokensAfter: 1_000 } as never,
      }),
    );
    tallyRequest(tally, event({ outcome: 'fail-open', bytesIn: 2_048, bytesOut: 2_048 }));

    expect(formatSessionSummary(tally)).toBe(
      'agent-context wrap: 3 requests (1 managed), 103.6 KB sent of 396.5 KB (74% less), about 26,000 input tokens sent of 101,000 (75,000 saved, estimated), about $0.23 saved at $3/MTok uncached input, 2 results offloaded, 0 compactions, 1 request sent unchanged after a manager failure',
    );
  });

  it('says when no request went through', () => {
    expect(formatSessionSummary(createSessionTally())).toBe(
      'agent-context wrap: no model request went through the proxy',
    );
  });
});

describe("a wrapped command's exit code", () => {
  it('is its own code, or 128 + the number of the signal that ended it', () => {
    expect(exitCodeOfChild(3, null)).toBe(3);
    expect(exitCodeOfChild(null, 'SIGINT')).toBe(130);
    expect(exitCodeOfChild(null, 'SIGKILL')).toBe(137);
  });
});
