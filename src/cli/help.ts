/**
 * Help texts of the command line, one per command.
 */

/** Names of the commands, in the order `--help` lists them. */
export const COMMAND_NAMES = ['count', 'offload', 'compact', 'prune', 'demo'] as const;

/** A command name. */
export type CommandName = (typeof COMMAND_NAMES)[number];

const FORMATS_HELP = `Input formats (detected from the content; - reads standard input):
  a JSON array of messages; a request body { system?, messages, tools? };
  JSONL with one message per line; a Claude Code session log
  (~/.claude/projects/<project>/<session>.jsonl). A JSONL file whose last line
  is cut off mid-JSON (a log still being written) is read without that line,
  with a warning.`;

/** `agent-context --help`. */
export const MAIN_HELP = `agent-context: see where an agent's context goes, and shrink it.

Usage: agent-context <command> [options]

Commands:
  count <file>     tokens by role and tool, largest tool results, what offload
                   and compaction would do
  offload <file>   write large tool results to files, keep references
  compact <file>   summarize the history; restore recently read files from
                   --work-dir
  prune <dir>      remove offloaded results and archives older than an age
                   (a dry run unless --yes)
  demo             the whole story, offline, on a sample coding-agent session

Options:
  -h, --help       help (also: agent-context <command> --help)
  --version        the version
  --debug          stack traces on errors

${FORMATS_HELP}

Exit codes: 0 success, 1 failure (unreadable or invalid input, library error),
2 usage error (unknown command or flag, missing argument).`;

/** Help of each command. */
export const COMMAND_HELP: Readonly<Record<CommandName, string>> = {
  count: `Usage: agent-context count <file> [options]

Measures the context: total tokens; tokens by role; by tool (its calls' inputs
plus its results); the 10 largest tool results; what batch offload would free at
the current thresholds; whether compaction would trigger, at what share of the
window. Tokens are local estimates (o200k_base), not the provider's figures.

Options:
  --json                  print the figures as one JSON object
  --char-threshold <n>    offload forecast: min chars of a result
                          (default: env OFFLOAD_CHAR_THRESHOLD, else 100)
  --ratio-threshold <r>   offload forecast: min share of the history
                          (default: env OFFLOAD_RATIO_THRESHOLD, else 0.2)
  --exclude-tools <a,b>   offload forecast: tools whose results stay inline
  --limit <n>             context window in tokens
                          (default: env CONTEXT_TOKEN_LIMIT, else 200000)
  --ratio <r>             compaction triggers at this share of the window
                          (default: env COMPACT_THRESHOLD_RATIO, else 0.92)
  -h, --help              this help

${FORMATS_HELP}`,

  offload: `Usage: agent-context offload <file> --out <dir> [options]

Writes every tool result of at least --char-threshold chars to <dir> (when the
results that qualify reach --ratio-threshold of the history) and replaces it
with a reference such as [Content offloaded to: ./tool-result-<id>.md].
The new history goes to standard output (stats to stderr), or to -o <file>
(stats to stdout), written atomically (it may be the input file). A JSON
array or a request body keeps its shape; JSONL and Claude Code logs are
written as a JSON array of messages.

Options:
  --out <dir>             directory of the offloaded results (required)
  --char-threshold <n>    min chars of a result to offload
                          (default: env OFFLOAD_CHAR_THRESHOLD, else 100)
  --ratio-threshold <r>   skip unless those results are this share of the
                          history (default: env OFFLOAD_RATIO_THRESHOLD, else 0.2)
  --exclude-tools <a,b>   tools whose results are never offloaded
  -o, --output <file>     write the new history to <file>
  -h, --help              this help

${FORMATS_HELP}`,

  compact: `Usage: agent-context compact <file> [options]

Summarizes everything after the leading system messages into one structured
summary, when the history reaches the trigger (or with --force), and with
--work-dir restores the files the history read most recently from that
directory (without it, none: files are never taken from the current directory
by default). Before summarizing, the compacted messages are archived under
<work-dir>/.compact/ (env COMPACT_OUTPUT_DIR). Which summarizer ran is always
printed. The new history goes to standard output (stats to stderr), or to
-o <file> (stats to stdout), written atomically (it may be the input file).

Options:
  --force                 compact even below the trigger
  --limit <n>             context window in tokens
                          (default: env CONTEXT_TOKEN_LIMIT, else 200000)
  --ratio <r>             trigger at this share of the window
                          (default: env COMPACT_THRESHOLD_RATIO, else 0.92)
  --provider <name>       anthropic | openai | extractive (offline)
                          (default: anthropic when ANTHROPIC_API_KEY is set,
                          else extractive)
  --model <model>         summary model (default: env SUMMARY_MODEL, else
                          claude-haiku-4-5-20251001 for anthropic; required
                          for openai)
  --base-url <url>        API base URL (an OpenAI-compatible server, a proxy)
  --work-dir <dir>        the project directory, which must exist (for a
                          Claude Code log, the session's project): the files
                          the history read are restored from it (none without
                          it), and the archive goes under it (default: the
                          current directory)
  -o, --output <file>     write the new history to <file>
  -h, --help              this help

Keys: ANTHROPIC_API_KEY (ANTHROPIC_BASE_URL), OPENAI_API_KEY (OPENAI_BASE_URL).
Claude Code logs restore files read with Read (input.file_path).

${FORMATS_HELP}`,

  prune: `Usage: agent-context prune <dir> --older-than <age> [options]

Removes from <dir> the offloaded results and compaction archives written more
than <age> ago (by file modification time): tool-result-*.md and
compact-*.json in <dir>, and *.md and compact-*.json in its session folders
(<dir>/<session>/). Any other file, deeper folders and files being written
are never touched. A dry run by default: it lists what it would remove and
the bytes it would free; --yes deletes. The read tool answers "no offloaded
content" for a reference whose content was removed.

Options:
  --older-than <age>      required: 30m, 12h, 7d, 2w (s, m, h, d, w; 1.5d too)
  -y, --yes               delete (without it, nothing is deleted)
  --json                  print the result as one JSON object
  -h, --help              this help

Exit codes: 0 success, 1 <dir> cannot be read (or a file cannot be deleted),
2 usage error (missing <dir> or --older-than, a bad duration).`,

  demo: `Usage: agent-context demo [options]

Runs the whole story offline on a sample coding-agent session shipped with the
package (file reads, a failing test run with a long log, a search, a fix, a
passing run): count, offload, count, compact (extractive summary), count, each
step with its figures.

Options:
  --dir <dir>             where the demo writes its files (default: a new
                          directory under the system's temp directory)
  -h, --help              this help`,
};
