/**
 * The score of `agent-context eval`: each subject read off the raw transcript is a probe, kept
 * when the compacted context's text holds it: the request's first line, the file's path, the
 * command, one of the error's lines, the reference. An offloaded result is kept when it is
 * one read away with what it was: a line of the context, or of the offload index the context
 * names (read from the store), holds its reference and the gist of its call. A value may
 * appear as written or as a JSON string holds it (`"a \"quoted\" word"`), the way the
 * compaction ledger writes values.
 */
import type { Message } from '../../core/types.js';
import type { EvalSubjects } from './eval-subjects.js';

/** The kinds of probes, in the order the table lists them. */
export const PROBE_KINDS = [
  'task',
  'latest-request',
  'edited-file',
  'last-read-file',
  'last-command',
  'last-error',
  'archive',
  'offloaded-result',
] as const;

/** A kind of probe. */
export type ProbeKind = (typeof PROBE_KINDS)[number];

const PROBE_LABELS: Readonly<Record<ProbeKind, string>> = {
  task: 'the task',
  'latest-request': 'the latest request',
  'edited-file': 'every edited file',
  'last-read-file': 'the last file read',
  'last-command': 'the last command',
  'last-error': 'the last error printed',
  archive: "the archive's reference",
  'offloaded-result': 'every offloaded result',
};

/** One probe: what was looked for, and whether the compacted context holds it. */
interface ProbeResult {
  kind: ProbeKind;
  /** The value looked for (for the last error: the tool and its first failure line). */
  subject: string;
  kept: boolean;
}

/** The probes of one kind. */
interface ProbeKindScore {
  kind: ProbeKind;
  label: string;
  /** Probes of this kind: 0 when the transcript has nothing of the kind (no error, no edit). */
  probes: number;
  kept: number;
  /** The subjects not kept. */
  missing: string[];
}

/** The score of a compacted context. */
export interface EvalScore {
  /** Every probe, by kind. */
  probes: ProbeResult[];
  /** One row per kind, in {@link PROBE_KINDS} order. */
  kinds: ProbeKindScore[];
  /** Probes kept, out of all probes. */
  kept: number;
  total: number;
  /** `kept / total` (1 when there is no probe at all). */
  score: number;
}

/** What the compaction left besides the messages: the archive's reference, the offload index. */
export interface CompactionOutcome {
  /** The reference of the archive of the compacted messages, or `null` when none was written. */
  archiveReference: string | null;
  /** The offload index the compaction wrote: its reference and its text as read from the store. */
  offloadIndex?: { reference: string; text: string } | undefined;
}

function stringifyValue(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** Everything a model would read in `messages`: texts, tool calls (name and input), tool results, thinking. */
export function renderContextText(messages: readonly Message[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    if (typeof message.content === 'string') {
      parts.push(message.content);
      continue;
    }
    for (const block of message.content as unknown[]) {
      const fields = (typeof block === 'object' && block !== null ? block : {}) as Record<string, unknown>;
      if (fields.type === 'text') parts.push(stringifyValue(fields.text));
      else if (fields.type === 'tool_use') parts.push(`${stringifyValue(fields.name)} ${stringifyValue(fields.input)}`);
      else if (fields.type === 'tool_result') parts.push(stringifyValue(fields.content));
      else if (fields.type === 'thinking') parts.push(stringifyValue(fields.thinking));
    }
  }
  return parts.join('\n');
}

/** Whether `text` holds `needle`, as written or JSON-escaped. */
export function holdsText(text: string, needle: string): boolean {
  if (needle === '') return false;
  return text.includes(needle) || text.includes(JSON.stringify(needle).slice(1, -1));
}

function lineAround(text: string, start: number): string {
  const lineStart = text.lastIndexOf('\n', start) + 1;
  const lineEnd = text.indexOf('\n', start);
  return text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd);
}

/** Whether a line of `text` holds `reference` (as written or JSON-escaped) and, when there is one, `gist`. */
function holdsOnOneLine(text: string, reference: string, gist: string | undefined): boolean {
  for (const written of new Set([reference, JSON.stringify(reference).slice(1, -1)])) {
    for (let at = text.indexOf(written); at !== -1; at = text.indexOf(written, at + 1)) {
      if (gist === undefined || holdsText(lineAround(text, at), gist)) return true;
    }
  }
  return false;
}

/**
 * Scores `compacted` against the subjects of the raw transcript: one probe per subject (a
 * kind with no subject has no probe and does not count).
 */
export function scoreCompactedContext(
  subjects: EvalSubjects,
  compacted: readonly Message[],
  outcome: CompactionOutcome,
): EvalScore {
  const text = renderContextText(compacted);
  const probes: ProbeResult[] = [];
  const probe = (kind: ProbeKind, subject: string | undefined): void => {
    if (subject !== undefined) probes.push({ kind, subject, kept: holdsText(text, subject) });
  };
  const { offloadIndex } = outcome;
  // the index counts when the context names it: a model reads it from there
  const index = offloadIndex !== undefined && holdsText(text, offloadIndex.reference) ? offloadIndex.text : '';
  probe('task', subjects.task);
  probe('latest-request', subjects.latestRequest);
  // an edited file the ledger no longer lists is in the index, one search away
  for (const path of subjects.editedFiles)
    probes.push({ kind: 'edited-file', subject: path, kept: holdsText(text, path) || holdsText(index, path) });
  probe('last-read-file', subjects.lastReadFile);
  probe('last-command', subjects.lastCommand);
  if (subjects.lastError !== undefined) {
    const { toolName, lines } = subjects.lastError;
    probes.push({
      kind: 'last-error',
      subject: `${toolName}: ${lines[0] ?? '(no text)'}`,
      kept: lines.some((line) => holdsText(text, line)),
    });
  }
  if (outcome.archiveReference === null)
    probes.push({ kind: 'archive', subject: '(no archive was written)', kept: false });
  else probe('archive', outcome.archiveReference);
  for (const { reference, gist } of subjects.offloadedResults) {
    const kept = holdsOnOneLine(text, reference, gist) || holdsOnOneLine(index, reference, gist);
    probes.push({ kind: 'offloaded-result', subject: gist === undefined ? reference : `${reference} (${gist})`, kept });
  }

  const kinds = PROBE_KINDS.map((kind): ProbeKindScore => {
    const ofKind = probes.filter((result) => result.kind === kind);
    return {
      kind,
      label: PROBE_LABELS[kind],
      probes: ofKind.length,
      kept: ofKind.filter((result) => result.kept).length,
      missing: ofKind.filter((result) => !result.kept).map((result) => result.subject),
    };
  });
  const kept = probes.filter((result) => result.kept).length;
  return { probes, kinds, kept, total: probes.length, score: probes.length === 0 ? 1 : kept / probes.length };
}
