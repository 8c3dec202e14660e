/**
 * The failed calls of a history as the extractive summarizer tells them: which calls failed
 * (marked `is_error`, or printing an error line though not marked), the line that says what
 * went wrong, what the assistant said next and how the next call of the same tool went.
 */
import { truncateToWords } from '../../text/words.js';
import type { ConversationFacts, ToolCall, Utterance } from './conversation-facts.js';
import { errorLine, findErrorLine, firstLine, printsItsOwnErrors } from './error-lines.js';
import { describeInputGist } from './input-gist.js';
import type { LedgerError } from './ledger.js';

/** Marks a quote that was cut short (punctuation only: it costs no word). */
export const CUT_MARK = ' […]';

/** `text` cut to `maxWords` words, marked `[…]` when cut. */
export function capWords(text: string, maxWords: number): string {
  const cut = truncateToWords(text, maxWords);
  return cut.length < text.length ? cut + CUT_MARK : text;
}

/** `text` in backticks, unless it holds one. */
export function formatCode(text: string): string {
  return text.includes('`') ? text : `\`${text}\``;
}

/** `` `Bash` `npm test` ``: the tool, and the gist of what it was asked when there is one. */
export function nameCall(call: ToolCall): string {
  const gist = describeInputGist(call.name, call.input);
  return gist === '' ? formatCode(call.name) : `${formatCode(call.name)} ${formatCode(gist)}`;
}

/**
 * Returns, for a call, the line that says how it failed, or `undefined` when it did not: a
 * result marked `is_error` always failed (its error line, else its first line); an unmarked
 * one failed when it holds an error line and its tool does not fetch content. `lastError`, the
 * error compaction found (maybe read back from the store, its result being only a reference
 * here), is taken for its call. Each result is read once.
 */
export function createFailureReader(lastError: LedgerError | undefined): (call: ToolCall) => string | undefined {
  const lines = new Map<ToolCall, string | undefined>();
  return (call) => {
    if (lines.has(call)) return lines.get(call);
    const { result } = call;
    let line: string | undefined;
    if (lastError !== undefined && lastError.toolUseId === call.id) line = lastError.message;
    else if (result?.isError === true) line = errorLine(result.text) || '(no message)';
    else if (result !== undefined && printsItsOwnErrors(call.name)) line = findErrorLine(result.text);
    lines.set(call, line);
    return line;
  };
}

/**
 * Returns the Errors & Resolutions line of a failed call: its tool, its error line, what the
 * assistant said next and how the next call of the same tool went. Both are looked up in
 * tables built once, not searched from the start for each failure: a long history has
 * thousands of them.
 */
export function createErrorDescriber(
  facts: ConversationFacts,
  failureOf: (call: ToolCall) => string | undefined,
): (call: ToolCall) => string {
  const nextStatements = indexNextStatements(facts.statements, facts.messageCount);
  const retries = indexRetries(facts.calls);
  // many failures in a row share the statement that follows them: quote each statement once
  const quotes = new Map<Utterance, string>();
  return (call) => {
    const resultIndex = call.result?.messageIndex ?? call.messageIndex;
    let text = `- ${formatCode(call.name)} failed: ${capWords(failureOf(call) ?? '(no message)', 30)}`;
    const next = nextStatements[resultIndex];
    if (next !== undefined) {
      let quote = quotes.get(next);
      if (quote === undefined) {
        quote = capWords(firstLine(next.text), 25);
        quotes.set(next, quote);
      }
      text += ` Then: "${quote}"`;
    }
    const retry = retries.get(call);
    if (retry !== undefined) {
      const outcome =
        retry.result === undefined ? 'has no result yet' : failureOf(retry) !== undefined ? 'failed too' : 'succeeded';
      text += ` The next ${formatCode(call.name)} call ${outcome}.`;
    }
    return text;
  };
}

/** For each message index, the first statement in a later message. */
function indexNextStatements(statements: readonly Utterance[], messageCount: number): Array<Utterance | undefined> {
  const next = new Array<Utterance | undefined>(messageCount);
  let position = statements.length;
  for (let messageIndex = messageCount - 1; messageIndex >= 0; messageIndex -= 1) {
    while (position > 0 && (statements[position - 1] as Utterance).messageIndex > messageIndex) position -= 1;
    next[messageIndex] = statements[position];
  }
  return next;
}

/**
 * For each call, the first call of the same tool in a later message (calls of one message are
 * not retries of each other). One pass from the end, a message at a time.
 */
function indexRetries(calls: readonly ToolCall[]): Map<ToolCall, ToolCall> {
  const retries = new Map<ToolCall, ToolCall>();
  const nextByName = new Map<string, ToolCall>();
  let end = calls.length;
  while (end > 0) {
    const messageIndex = (calls[end - 1] as ToolCall).messageIndex;
    let start = end - 1;
    while (start > 0 && (calls[start - 1] as ToolCall).messageIndex === messageIndex) start -= 1;
    const group = calls.slice(start, end);
    for (const call of group) {
      const retry = nextByName.get(call.name);
      if (retry !== undefined) retries.set(call, retry);
    }
    // last to first, so that the earliest call of each tool in this message is kept
    for (const call of group.reverse()) nextByName.set(call.name, call);
    end = start;
  }
  return retries;
}
