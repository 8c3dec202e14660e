/**
 * Claude Code session logs (`~/.claude/projects/<project>/<session>.jsonl`), read with the
 * package's own reader (`parseTranscript`): one assistant message per API message, the tool
 * results that answer it in the next user message, sub-agent (`isSidechain`) and bookkeeping
 * lines left out. Some repositories keep a log as a test fixture with `//` comment lines on
 * top saying where it came from; those lines are not part of the log and are skipped.
 */
import { parseTranscript } from '../../src/cli/formats/parse-transcript.js';
import type { ConvertedTranscript } from './convert-openai-chat.js';

/** Converts the text of a Claude Code session log. */
export function convertClaudeCodeLog(text: string, source: string): ConvertedTranscript {
  const lines = text.split('\n');
  let first = 0;
  while (first < lines.length && (lines[first] ?? '').startsWith('//')) first += 1;
  const transcript = parseTranscript(lines.slice(first).join('\n'), source);
  if (transcript.shape !== 'claude-code')
    throw new Error(`${source}: not a Claude Code session log (read as ${transcript.shape})`);
  if (transcript.warnings !== undefined) throw new Error(`${source}: ${transcript.warnings.join('; ')}`);
  return { messages: transcript.messages };
}
