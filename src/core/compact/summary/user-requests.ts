/**
 * What the person asked, read off the user messages. Agent harnesses write into user messages
 * too: Claude Code logs a slash command as markup (`<command-name>/review</command-name>` and
 * its `<command-args>`), follows a prompt command with the prompt it expands to, and adds
 * caveats, the output of local commands, system reminders and hook feedback. None of that is
 * a request, but a slash command is: `/review https://…/pull/344` is what the user typed.
 * Codex does the same with its environment, the project's instructions, an aborted turn and the
 * command prefixes the user approved. Pure.
 */

/** A text of a user or assistant message, trimmed. */
export interface Utterance {
  text: string;
  messageIndex: number;
}

/**
 * Elements a harness wraps its own text in (Claude Code's caveats, local command and `!` shell
 * output, reminders, prompt hooks, IDE context, background task notifications; Codex's
 * environment, project instructions, permissions, aborted turns and `!` shell commands): text
 * inside them is never a request.
 */
const HARNESS_ELEMENTS = [
  'local-command-caveat',
  'local-command-stdout',
  'local-command-stderr',
  'system-reminder',
  'user-prompt-submit-hook',
  'bash-input',
  'bash-stdout',
  'bash-stderr',
  'ide_opened_file',
  'ide_selection',
  'ide_diagnostics',
  'task-notification',
  'environment_context',
  'user_instructions',
  'INSTRUCTIONS',
  'permissions instructions',
  'turn_aborted',
  'user_shell_command',
  'exec_policy_amendment',
] as const;
/** The output of a local command (`/model`, `/clear`): it says the command before it was not a prompt. */
const COMMAND_OUTPUT_ELEMENTS = new Set<string>(['local-command-stdout', 'local-command-stderr']);
const CAVEAT_ELEMENT = 'local-command-caveat';
/** The elements of a slash command as Claude Code logs it, in any order. */
const COMMAND_ELEMENTS = ['command-name', 'command-message', 'command-args'] as const;

/**
 * Texts a harness writes as plain text, whole: hook feedback (`PostToolUse hook: ...`, `Stop hook
 * feedback:`), Claude Code's own continuation summary, the command prefixes a Codex user approved.
 */
const HARNESS_LINE =
  /^(?:(?:PreToolUse|PostToolUse|Stop|SubagentStop|UserPromptSubmit|SessionStart|SessionEnd|Notification|PreCompact)(?::\S*)? hook\b|This session is being continued from a previous conversation\b|Approved command prefix saved\b)/;
/**
 * Single lines a harness puts before or between its elements, with what the user typed after
 * them kept: an interruption (`[Request interrupted by user for tool use]`), the heading of
 * Codex's `AGENTS.md` instructions, the line after a background task's notification (either
 * version of Claude Code's).
 */
const LEADING_HARNESS_LINE =
  /^(?:\[Request interrupted by user\b[^\n]*|# AGENTS\.md instructions for [^\n]*|Read the output file to retrieve the result:[^\n]*|Full transcript available at: [^\n]*)(?:\n|$)/;

/** The element `text` opens with (after spaces): its name and where it ends, or `undefined`. */
function readLeadingElement(
  text: string,
  names: readonly string[],
): { name: string; content: string; end: number } | undefined {
  const start = text.length - text.trimStart().length;
  if (text[start] !== '<') return undefined;
  for (const name of names) {
    const open = `<${name}>`;
    if (!text.startsWith(open, start)) continue;
    const close = text.indexOf(`</${name}>`, start + open.length);
    // an element left open runs to the end of the text
    const end = close === -1 ? text.length : close + name.length + 3;
    return { name, content: text.slice(start + open.length, close === -1 ? text.length : close), end };
  }
  return undefined;
}

/** `text` without its `<system-reminder>` elements, wherever they are (a harness appends them to what the user typed). */
function removeReminders(text: string): string {
  const open = '<system-reminder>';
  const close = '</system-reminder>';
  let start = text.indexOf(open);
  if (start === -1) return text;
  let kept = '';
  let from = 0;
  while (start !== -1) {
    kept += text.slice(from, start);
    const end = text.indexOf(close, start + open.length);
    if (end === -1) return kept;
    from = end + close.length;
    start = text.indexOf(open, from);
  }
  return kept + text.slice(from);
}

/**
 * The slash command `text` holds as Claude Code logs it, as the user typed it: its name (with
 * its `/`; from `<command-message>` when `<command-name>` is missing) then its arguments, if
 * any: `/review https://github.com/acme/app/pull/344`, `/init`. `undefined` for other text.
 */
export function readSlashCommand(text: string): string | undefined {
  const found = new Map<string, string>();
  let rest = text;
  for (
    let element = readLeadingElement(rest, COMMAND_ELEMENTS);
    element !== undefined;
    element = readLeadingElement(rest, COMMAND_ELEMENTS)
  ) {
    if (!found.has(element.name)) found.set(element.name, element.content.trim());
    rest = rest.slice(element.end);
  }
  // `review is running…`, or a skill's `The "pdf" skill is loading`: the name is its first word
  const name = found.get('command-name') || found.get('command-message')?.split(/\s/, 1)[0];
  if (name === undefined || name === '') return undefined;
  const args = found.get('command-args') ?? '';
  const command = name.startsWith('/') ? name : `/${name}`;
  return args === '' ? command : `${command} ${args}`;
}

type TextKind =
  { kind: 'command'; text: string } | { kind: 'caveat' } | { kind: 'command-output' } | { kind: 'text'; text: string };

function classifyText(block: string): TextKind {
  const command = readSlashCommand(block);
  if (command !== undefined) return { kind: 'command', text: command };
  let rest = removeReminders(block);
  let sawCaveat = false;
  for (;;) {
    const line = LEADING_HARNESS_LINE.exec(rest.trimStart());
    if (line !== null) {
      rest = rest.trimStart().slice(line[0].length);
      continue;
    }
    const element = readLeadingElement(rest, HARNESS_ELEMENTS);
    if (element === undefined) break;
    if (COMMAND_OUTPUT_ELEMENTS.has(element.name)) return { kind: 'command-output' };
    if (element.name === CAVEAT_ELEMENT) sawCaveat = true;
    rest = rest.slice(element.end);
  }
  const text = rest.trim();
  if (HARNESS_LINE.test(text)) return { kind: 'text', text: '' };
  return sawCaveat && text === '' ? { kind: 'caveat' } : { kind: 'text', text };
}

/**
 * Reads the requests off user messages given in order, with the assistant messages between
 * them noted: within one run of user messages (no assistant message since the last),
 * - a slash command is a request, unless a caveat came before it (and after the last local
 *   command's output) or its output follows (a local command such as `/model` or `/clear`:
 *   the harness ran it, the model was not asked);
 * - the text after a prompt command is the prompt it expanded to: the command says it already;
 * - harness text is left out, and a message of harness text alone is no request.
 */
export interface UserRequestReader {
  /** Reads a user message's text blocks (in order); `messageIndex` is where it is in the history. */
  readUserMessage(texts: readonly string[], messageIndex: number): void;
  /** Notes an assistant message: the run of user messages ends. */
  noteAssistantMessage(): void;
  /** The requests read so far, in order. */
  readonly requests: Utterance[];
}

export function createUserRequestReader(): UserRequestReader {
  const requests: Utterance[] = [];
  let caveat = false;
  let command: Utterance | undefined;
  let commandText: string | undefined;
  return {
    requests,
    noteAssistantMessage() {
      caveat = false;
      command = undefined;
      commandText = undefined;
    },
    readUserMessage(texts, messageIndex) {
      const pieces: string[] = [];
      let commandHere: string | undefined;
      for (const block of texts) {
        const read = classifyText(block);
        if (read.kind === 'caveat') caveat = true;
        else if (read.kind === 'command-output') {
          // the command before it was a local one: not a request after all; and it is done,
          // so the caveat before it says nothing of a command after it
          if (commandHere !== undefined) pieces.splice(pieces.indexOf(commandHere), 1);
          else if (command !== undefined && requests.at(-1) === command && command.text === commandText) requests.pop();
          caveat = false;
          commandHere = undefined;
          command = undefined;
          commandText = undefined;
        } else if (read.kind === 'command') {
          if (caveat || commandHere !== undefined || commandText !== undefined) continue;
          commandHere = read.text;
          pieces.push(read.text);
        } else if (read.text !== '' && commandHere === undefined && commandText === undefined) {
          pieces.push(read.text);
        }
      }
      if (pieces.length === 0) return;
      const request: Utterance = { text: pieces.join('\n'), messageIndex };
      requests.push(request);
      if (commandHere !== undefined) {
        command = request;
        commandText = commandHere;
      }
    },
  };
}
