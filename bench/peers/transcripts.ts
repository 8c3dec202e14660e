/**
 * The transcripts the peer benchmark replays: the package's own samples (the demo's session,
 * the command-line fixtures in the formats they stand for), and a long session made of the
 * demo's sample repeated to 1 MB, so that both windows fill up many times.
 *
 * Every transcript is put in one normal form before anyone sees it: a user message holding
 * tool results is split into one message per result (its text, if any, in a message of its
 * own). That is the shape LangChain's `ToolMessage`s and the AI SDK's tool messages come back
 * in, so every system's requests are counted in the same shape and their token figures
 * compare.
 */
import { join } from 'node:path';
import { buildOneMegabyteHistory, ROOT } from '../cli-process.js';
import { createProcessIo } from '../../src/cli/command-io.js';
import { countToolDefinitionTokens } from '../../src/cli/measure-context.js';
import { readTranscript } from '../../src/cli/read-transcript.js';
import type { ContentBlock, Message } from '../../src/core/types.js';

/** One transcript to replay. */
export interface PeerTranscript {
  /** How the report names it. */
  name: string;
  /** The conversation in normal form, system prompt first when it has one. */
  messages: Message[];
  /** Tokens of the tool definitions every request sends besides the messages (0 when unknown). */
  toolDefinitionTokens: number;
}

const normalForms = new WeakMap<Message, Message[]>();

/** `message` in normal form: one message, or several when it mixes tool results with other blocks. */
function normalizeMessage(message: Message): Message[] {
  const known = normalForms.get(message);
  if (known !== undefined) return known;
  let normal: Message[] = [message];
  const blocks = message.content;
  if (
    message.role === 'user' &&
    Array.isArray(blocks) &&
    blocks.length > 1 &&
    blocks.some((block) => block.type === 'tool_result')
  ) {
    normal = [];
    let others: ContentBlock[] = [];
    const flush = (): void => {
      if (others.length > 0) normal.push({ role: 'user', content: others });
      others = [];
    };
    for (const block of blocks) {
      if (block.type !== 'tool_result') {
        others.push(block);
        continue;
      }
      flush();
      normal.push({ role: 'user', content: [block] });
    }
    flush();
  }
  normalForms.set(message, normal);
  return normal;
}

/**
 * `messages` in normal form: each user message mixing tool results with other blocks split
 * into one message per result. Memoized per message object, so an unchanged message keeps
 * its normal form's objects (and their cached token counts) from one request to the next.
 */
export function normalizeMessages(messages: readonly Message[]): Message[] {
  return messages.flatMap(normalizeMessage);
}

/** The package's sample transcripts, relative to the repository root. */
const SAMPLE_FILES: ReadonlyArray<{ name: string; path: string }> = [
  { name: 'demo session (invoice-kit)', path: 'src/cli/sample/session.json' },
  { name: 'Claude Code session log', path: 'tests/fixtures/cli/claude-code-session.jsonl' },
  { name: 'request body with tools', path: 'tests/fixtures/cli/request-body.json' },
  { name: 'parallel calls and an error', path: 'tests/fixtures/cli/formats/anthropic-body.json' },
];

async function loadSample(name: string, path: string): Promise<PeerTranscript> {
  const transcript = await readTranscript(join(ROOT, path), createProcessIo());
  return {
    name,
    messages: normalizeMessages(transcript.messages),
    toolDefinitionTokens: countToolDefinitionTokens(transcript),
  };
}

/**
 * The transcripts to replay. `quick` keeps the two that exercise the most (the demo session
 * and the Claude Code log); the full set adds the other fixtures and the 1 MB session.
 */
export async function loadPeerTranscripts(quick: boolean): Promise<PeerTranscript[]> {
  const files = quick ? SAMPLE_FILES.slice(0, 2) : SAMPLE_FILES;
  const transcripts = await Promise.all(files.map(({ name, path }) => loadSample(name, path)));
  if (!quick) {
    transcripts.push({
      name: 'long session (the demo session repeated to 1 MB)',
      messages: normalizeMessages(await buildOneMegabyteHistory()),
      toolDefinitionTokens: 0,
    });
  }
  return transcripts;
}
