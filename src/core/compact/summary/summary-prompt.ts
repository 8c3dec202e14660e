/**
 * The summary prompt, and the rendering of messages into the text it
 * carries. Pure: no tokenizer here (sizes are the business of `summary-input.ts`).
 */
import { describeValue, InvalidOptionError } from '../../errors.js';
import { groupDigits } from '../../text/figures.js';
import { isHighSurrogate, isLowSurrogate } from '../../text/text.js';
import {
  isTextBlock,
  isThinkingBlock,
  isToolResultBlock,
  isToolUseBlock,
  type ContentBlock,
  type Message,
  type ToolUseBlock,
} from '../../types.js';

/** The five sections of every summary, in order. */
export const SUMMARY_SECTION_TITLES = [
  'Goals & Decisions',
  'File Operations',
  'Tool Calls',
  'Task Status',
  'Errors & Resolutions',
] as const;

/** One of {@link SUMMARY_SECTION_TITLES}. */
export type SummarySectionTitle = (typeof SUMMARY_SECTION_TITLES)[number];

/** The rule about the most recent messages that the prompt carries, verbatim. */
const SUMMARY_MOST_RECENT_RULE =
  'Pay special attention to the MOST RECENT messages — summarize the current task state, what was just done, and what the next logical step should be. This information is critical because the original recent messages will NOT be preserved.';

// What each section asks for. Task Status carries the rule about the most recent round.
const SECTION_INSTRUCTIONS: Readonly<Record<SummarySectionTitle, string>> = {
  'Goals & Decisions':
    "The user's goals and requests (quote the first request and the latest one; a slash command as typed, such as /review <url>), constraints and preferences the user stated, and the decisions taken, with their reasons.",
  'File Operations':
    'Every file that was read, created, modified or deleted: its path, what was done to it, and what matters about its content.',
  'Tool Calls':
    'The tool calls that mattered (commands, searches, tests, API calls), with their arguments and outcomes: what succeeded and what failed (name the failing command).',
  'Task Status':
    'What is done, what is in progress and what remains. Describe in detail the operation in progress in the most recent round of the interaction and the planned next step: what was just done, its result (a failure: its command and error), and exactly what to do next.',
  'Errors & Resolutions':
    'Each error met, its cause, and how it was resolved, or that it is still open. Quote the last error a tool printed exactly, marked as an error or not, with its command.',
};

/** Options of {@link buildSummaryPrompt}. */
export interface BuildSummaryPromptOptions {
  /** Word budget of the summary; a Chinese, Japanese or Korean character counts as a word. */
  maxWords: number;
  /**
   * The summary of the conversation before `conversationText`, when a long history is
   * summarized in sequential chunks: the reply must merge it with the new part.
   * @default undefined (the text is the whole conversation)
   */
  previousSummary?: string | undefined;
}

/**
 * Builds the summary prompt: the conversation (inside `<conversation>` tags,
 * first, as long documents go before the instructions), then the instructions: the five
 * sections (Goals & Decisions, File Operations, Tool Calls, Task Status, Errors &
 * Resolutions), the Task Status instruction about the most recent round, the MOST RECENT rule
 * verbatim and the word budget.
 *
 * With `previousSummary` the prompt carries that summary (inside `<previous_summary>` tags)
 * and asks for one updated summary of both: how a history too long for one request is
 * summarized, chunk by chunk.
 *
 * @param conversationText - The messages as text, e.g. from {@link renderMessagesForSummary}.
 * @throws {@link InvalidOptionError} when `maxWords` is not a positive integer.
 *
 * @example
 * ```ts
 * const prompt = buildSummaryPrompt(renderMessagesForSummary(rest), { maxWords: 1200 });
 * const summary = await llmClient.summarize(prompt, 'claude-haiku-4-5-20251001');
 * ```
 */
export function buildSummaryPrompt(conversationText: string, options: BuildSummaryPromptOptions): string {
  const { before, after } = buildSummaryPromptFrame(options);
  return `${before}${conversationText}${after}`;
}

/**
 * The summary prompt around its conversation: {@link buildSummaryPrompt} returns
 * `before + conversationText + after`. `before` ends with `<conversation>\n` and `after` starts
 * with `\n</conversation>`, so a summarizer can build one prompt per chunk around its part.
 */
export interface SummaryPromptFrame {
  /** The text before the conversation. */
  before: string;
  /** The text after the conversation. */
  after: string;
}

/**
 * The text {@link buildSummaryPrompt} puts around the conversation.
 *
 * @throws {@link InvalidOptionError} when `maxWords` is not a positive integer.
 */
export function buildSummaryPromptFrame(options: BuildSummaryPromptOptions): SummaryPromptFrame {
  const { maxWords, previousSummary } = options;
  requireMaxWords(maxWords);
  const chunked = previousSummary !== undefined;
  const before: string[] = [
    "You are compressing the history of an AI agent's working session. The messages below will be replaced by your summary and will NOT be available afterwards: the agent must be able to continue its work from your summary alone.",
    '',
  ];
  if (chunked) {
    before.push(
      'The conversation is too long for one request, so it is summarized in parts, in order. <previous_summary> holds the summary of everything before the part in <conversation>.',
      '',
      '<previous_summary>',
      previousSummary,
      '</previous_summary>',
      '',
    );
  }
  before.push('<conversation>');
  const after: string[] = [
    '</conversation>',
    '',
    chunked
      ? 'Write one updated summary of the whole conversation so far: keep everything of the previous summary that still matters, add what the new part brings, and bring Task Status up to the end of the new part. Use Markdown with exactly these five sections, in this order:'
      : 'Write a structured summary in Markdown with exactly these five sections, in this order:',
    '',
    ...buildSectionsAndRules(maxWords),
  ];
  return { before: `${before.join('\n')}\n`, after: `\n${after.join('\n')}` };
}

function requireMaxWords(maxWords: number): void {
  if (!Number.isInteger(maxWords) || maxWords < 1) {
    throw new InvalidOptionError(`maxWords must be an integer >= 1, got ${describeValue(maxWords)}`);
  }
}

/** The five sections with what each asks for, then the rules (the MOST RECENT rule, the word budget). */
function buildSectionsAndRules(maxWords: number): string[] {
  const lines: string[] = [];
  for (const title of SUMMARY_SECTION_TITLES) {
    lines.push(`## ${title}`, SECTION_INSTRUCTIONS[title], '');
  }
  lines.push(
    'Rules:',
    `- ${SUMMARY_MOST_RECENT_RULE}`,
    '- Keep the concrete details the agent needs to continue: file paths, function and variable names, commands, error messages, values and identifiers, quoted exactly.',
    '- Do not invent anything that is not in the conversation. Write "None." under a section with nothing to report.',
    `- Use at most ${maxWords} words in total (each Chinese, Japanese or Korean character counts as one word).`,
    '- Reply with the summary only: no preamble and no closing remarks.',
  );
  return lines;
}

/** Options of {@link buildSummaryInstruction}. */
export interface BuildSummaryInstructionOptions {
  /** Word budget of the summary; a Chinese, Japanese or Korean character counts as a word. */
  maxWords: number;
}

/**
 * The user message that asks for the summary of the conversation that comes before it: the
 * instructions of {@link buildSummaryPrompt} (the five sections, the MOST RECENT rule, the word
 * budget) worded for a conversation sent as the request's own messages rather than quoted in
 * `<conversation>` tags. Used by `summaryMode: 'reuse-prefix'`, where the summary request
 * repeats the conversation's request so that the provider's prompt cache serves it; it also asks
 * the model not to call a tool, since the conversation's `tools` are sent too.
 *
 * @throws {@link InvalidOptionError} when `maxWords` is not a positive integer.
 */
export function buildSummaryInstruction(options: BuildSummaryInstructionOptions): string {
  const { maxWords } = options;
  requireMaxWords(maxWords);
  return [
    "Stop working on the task now: this session's history is being compressed. Everything above this message will be replaced by your summary and will NOT be available afterwards: the agent must be able to continue its work from your summary alone. Do not call any tool.",
    '',
    'Write a structured summary of the conversation above in Markdown with exactly these five sections, in this order:',
    '',
    ...buildSectionsAndRules(maxWords),
  ].join('\n');
}

/** Options of {@link renderMessagesForSummary}. */
export interface RenderMessagesForSummaryOptions {
  /**
   * Tool results, tool inputs and thinking texts longer than this many characters (UTF-16
   * code units) are cut in the middle, with a marker such as `[... 41,233 chars cut ...]`.
   * User and assistant text is never cut here.
   * @default Infinity (nothing is cut)
   */
  maxBlockChars?: number | undefined;
}

/**
 * Renders messages as the plain text the summary prompt carries. Each message is numbered
 * from 1 and gives its role; tool calls show their name, id and JSON input; tool results show
 * the name of the tool that produced them and whether they were an error; blocks without text
 * (images, documents, redacted thinking) appear as a `[type]` placeholder.
 *
 * @example
 * ```text
 * [1] user:
 * Fix the failing test.
 *
 * [2] assistant:
 * Reading the test first.
 * [tool_use read_file id=toolu_1]
 * {"path":"src/a.test.ts"}
 *
 * [3] user:
 * [tool_result read_file id=toolu_1]
 * import { describe } from 'vitest';
 * ```
 */
export function renderMessagesForSummary(
  messages: readonly Message[],
  options: RenderMessagesForSummaryOptions = {},
): string {
  const maxBlockChars = options.maxBlockChars ?? Number.POSITIVE_INFINITY;
  const render = createMessagePartsRenderer(messages);
  return messages.map((_, index) => joinMessageParts(render(index), maxBlockChars)).join(MESSAGE_SEPARATOR);
}

/** Text placed between two rendered messages. */
export const MESSAGE_SEPARATOR = '\n\n';

/**
 * One piece of a rendered message. `cuttable` pieces (tool results, tool inputs, thinking) may
 * be cut in the middle to make the prompt fit; the others (headers, user and assistant text)
 * are kept whole unless a single message is too large for a request on its own.
 */
export interface RenderedPart {
  text: string;
  /** Whether the piece may be cut in the middle. */
  cuttable: boolean;
}

/**
 * Renders the messages of a history to their parts one at a time, in any order, as
 * {@link renderMessagesForSummary} does before joining them (a tool result names the tool of
 * the latest `tool_use` with its id before it). Only the
 * tool names are kept between calls, so a summarizer holds the parts of the messages it is
 * working on, not those of the whole history.
 */
export function createMessagePartsRenderer(messages: readonly Message[]): (index: number) => RenderedPart[] {
  const toolNames = new Map<string, string>();
  // the names of the tools the tool results answer, in order, and where each message's start
  const resultNames: string[] = [];
  const firstResult = new Uint32Array(messages.length + 1);
  messages.forEach((message, index) => {
    firstResult[index] = resultNames.length;
    for (const block of Array.isArray(message.content) ? message.content : []) {
      if (isToolUseBlock(block)) {
        if (typeof block.id === 'string') toolNames.set(block.id, toolNameOf(block));
      } else if (isToolResultBlock(block)) {
        resultNames.push(toolNames.get(block.tool_use_id) ?? 'unknown tool');
      }
    }
  });
  firstResult[messages.length] = resultNames.length;
  return (index) => {
    const message = messages[index];
    if (message === undefined) return [];
    const parts: RenderedPart[] = [{ text: `[${index + 1}] ${String(message.role)}:`, cuttable: false }];
    if (typeof message.content === 'string') {
      parts.push({ text: message.content, cuttable: false });
      return parts;
    }
    let result = firstResult[index] ?? 0;
    for (const block of Array.isArray(message.content) ? message.content : []) {
      const resultName = isToolResultBlock(block) ? resultNames[result++] : undefined;
      renderBlock(block, resultName ?? 'unknown tool', parts);
    }
    return parts;
  };
}

function toolNameOf(block: ToolUseBlock): string {
  return typeof block.name === 'string' ? block.name : 'unknown';
}

/** Joins the parts of one message, cutting cuttable parts longer than `maxBlockChars`. */
export function joinMessageParts(parts: readonly RenderedPart[], maxBlockChars: number): string {
  return parts
    .map((part) =>
      part.cuttable && part.text.length > maxBlockChars ? cutTextInMiddle(part.text, maxBlockChars) : part.text,
    )
    .join('\n');
}

/** Renders one block; `resultName` is the tool a tool result answers. */
function renderBlock(block: ContentBlock, resultName: string, parts: RenderedPart[]): void {
  if (isToolUseBlock(block)) {
    parts.push({ text: `[tool_use ${toolNameOf(block)} id=${String(block.id)}]`, cuttable: false });
    parts.push({ text: stringifyJson(block.input), cuttable: true });
    return;
  }
  if (isToolResultBlock(block)) {
    const name = resultName;
    const error = block.is_error === true ? ', error' : '';
    parts.push({ text: `[tool_result ${name} id=${String(block.tool_use_id)}${error}]`, cuttable: false });
    const content: unknown = block.content;
    if (Array.isArray(content)) {
      parts.push({ text: content.map(renderToolResultBlock).join('\n'), cuttable: true });
    } else {
      parts.push({ text: typeof content === 'string' ? content : '', cuttable: true });
    }
    return;
  }
  if (isTextBlock(block)) {
    if (typeof block.text === 'string') parts.push({ text: block.text, cuttable: false });
    return;
  }
  if (isThinkingBlock(block)) {
    parts.push({ text: '[thinking]', cuttable: false });
    if (typeof block.thinking === 'string') parts.push({ text: block.thinking, cuttable: true });
    return;
  }
  // server tools and other named blocks keep their name: "[server_tool_use web_search]"
  const blockName = (block as { name?: unknown }).name;
  const name = typeof blockName === 'string' ? ` ${blockName}` : '';
  parts.push({ text: `[${String(block.type)}${name}]`, cuttable: false });
}

function renderToolResultBlock(block: unknown): string {
  if (typeof block !== 'object' || block === null) return '';
  const typed = block as { type?: unknown; text?: unknown };
  if (typed.type === 'text' && typeof typed.text === 'string') return typed.text;
  return `[${String(typed.type)}]`;
}

function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    // a cyclic or BigInt input cannot be serialized; the summary loses only this input
    return '[unserializable input]';
  }
}

/**
 * Cuts `text` in the middle so that `keepChars` characters (UTF-16 code units) of it remain,
 * about half from the head and half from the tail, joined by a marker naming how many were
 * cut: `head\n[... 41,233 chars cut ...]\ntail`. Returns `text` itself when it is not longer
 * than `keepChars`. Never splits a surrogate pair (so never produces U+FFFD); the marker's own
 * characters are not counted in `keepChars`.
 */
export function cutTextInMiddle(text: string, keepChars: number): string {
  if (text.length <= keepChars) return text;
  const keep = Math.max(0, Math.floor(keepChars));
  let headEnd = Math.ceil(keep / 2);
  let tailStart = text.length - (keep - headEnd);
  // move each edge away from the middle of a pair: drop a lone high surrogate at the head's
  // end and a lone low surrogate at the tail's start
  if (headEnd > 0 && isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd -= 1;
  if (tailStart < text.length && isLowSurrogate(text.charCodeAt(tailStart))) tailStart += 1;
  const cut = tailStart - headEnd;
  return `${text.slice(0, headEnd)}\n[... ${groupDigits(cut)} chars cut ...]\n${text.slice(tailStart)}`;
}
