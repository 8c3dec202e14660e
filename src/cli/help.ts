/**
 * Help texts of the command line, one per command.
 */

/** Names of the commands, in the order `--help` lists them. */
export const COMMAND_NAMES = [
  'count',
  'offload',
  'compact',
  'prune',
  'demo',
  'replay',
  'eval',
  'proxy',
  'wrap',
] as const;

/** A command name. */
export type CommandName = (typeof COMMAND_NAMES)[number];

const FORMATS_HELP = `Input (detected from the content; - reads standard input):
  a JSON array of messages; a request body { system?, messages, tools? },
  { instructions?, input, tools? } or { systemInstruction?, contents, tools? };
  JSONL with one message per line; a Claude Code session log
  (~/.claude/projects/<project>/<session>.jsonl). A JSONL file whose last line
  is cut off mid-JSON (a log still being written) is read without that line,
  with a warning.
Message formats (detected, or --format <name>): anthropic (Messages API),
  openai-chat (Chat Completions), openai-responses (Responses input items),
  openai-agents (Agents SDK items), ai-sdk (AI SDK ModelMessage), langchain
  (LangChain messages in their JSON forms), gemini (Gemini API contents). A
  history mixing formats is an error.`;

/** The --format option, as each command lists it. */
const FORMAT_OPTION = `  --format <name>         the message format, when detection is not wanted:
                          anthropic, openai-chat, openai-responses,
                          openai-agents, ai-sdk, langchain, gemini`;

/** `agent-context --help`. */
export const MAIN_HELP = `agent-context: see where an agent's context goes, and shrink it.

Usage: agent-context <command> [options]

Commands:
  count <file>     tokens by role and tool, largest tool results, what offload
                   and compaction would do
  offload <file>   write large tool results to files, keep references
  compact <file>   summarize the history; restore recently read files from
                   --work-dir
  prune <dir>      remove idle sessions' results, archives and records
                   (a dry run unless --yes)
  demo             the whole story, offline, on a sample coding-agent session
  replay <file>    replay a transcript request by request through the context
                   manager: tokens and cost with and without it, a chart
                   (--html for a page)
  eval <file>      compact a transcript and score what the context still holds
  proxy            a local HTTP proxy for any agent (Claude Code, Codex, an SDK):
                   offload and compaction on every request it sends
  wrap -- <cmd>    run an agent through the proxy: a free port, its base URLs
                   set, a one-line summary when it exits

Options:
  -h, --help       help (also: agent-context <command> --help)
  --version        the version
  --debug          stack traces on errors

${FORMATS_HELP}

Exit codes: 0 success, 1 failure (unreadable or invalid input, library error),
2 usage error (unknown command or flag, missing argument).`;

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
${FORMAT_OPTION}
  -h, --help              this help

${FORMATS_HELP}`,

  offload: `Usage: agent-context offload <file> --out <dir> [options]

Writes every tool result of at least --char-threshold chars to <dir> (when the
results that qualify reach --ratio-threshold of the history) and replaces it
with a reference such as [Content offloaded to: ./tool-result-<id>.md].
The new history goes to standard output (stats to stderr), or to -o <file>
(stats to stdout), written atomically (it may be the input file), in the
input's message format. A JSON array or a request body keeps its shape; JSONL
and Claude Code logs are written as a JSON array of messages.

Options:
  --out <dir>             directory of the offloaded results (required)
  --char-threshold <n>    min chars of a result to offload
                          (default: env OFFLOAD_CHAR_THRESHOLD, else 100)
  --ratio-threshold <r>   skip unless those results are this share of the
                          history (default: env OFFLOAD_RATIO_THRESHOLD, else 0.2)
  --exclude-tools <a,b>   tools whose results are never offloaded
  -o, --output <file>     write the new history to <file>
${FORMAT_OPTION}
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
-o <file> (stats to stdout), written atomically (it may be the input file),
in the input's shape and message format.

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
${FORMAT_OPTION}
  -h, --help              this help

Keys: ANTHROPIC_API_KEY (ANTHROPIC_BASE_URL), OPENAI_API_KEY (OPENAI_BASE_URL).
Claude Code logs restore files read with Read (input.file_path).

${FORMATS_HELP}`,

  prune: `Usage: agent-context prune <dir> --older-than <age> [options]

Removes from <dir> the offloaded results, compaction archives and session
records written more than <age> ago (by file modification time):
tool-result-*.md and compact-*.json in <dir>, and in its session folders
(<dir>/<session>/) *.md, compact-*.json and the context manager's records
(.records/*.json), and the temp files a killed writer left (older than <age>
and an hour). A session folder goes whole or not at all: when anything in it
(a result, an archive, a record) changed within <age>, the session is live
and nothing of it is removed; the report names it. Any other file, deeper
folders and files being written are never touched. A dry run by default: it
lists what it would remove and the bytes it would free; --yes deletes. The
read tool answers "no offloaded content" for a reference whose content was
removed: prune with an age longer than any pause in a conversation you may
resume.

Only a directory agent-context-offload created is pruned: it holds the file
.agent-context-offload. A directory without it (one written by version 0.3.0,
or a folder of your own) is refused; create that file in it, empty, once you
know everything in it is agent-context-offload's.

Options:
  --older-than <age>      required: 30m, 12h, 7d, 2w (s, m, h, d, w; 1.5d too)
  -y, --yes               delete (without it, nothing is deleted)
  --json                  print the result as one JSON object
  -h, --help              this help

Exit codes: 0 success, 1 <dir> cannot be read or holds no marker (or a file
cannot be deleted), 2 usage error (missing <dir> or --older-than, a bad
duration).`,

  demo: `Usage: agent-context demo [options]

Runs the whole story offline on a sample coding-agent session shipped with the
package (file reads, a failing test run with a long log, a search, a fix, a
passing run): count, offload, count, compact (extractive summary), count, each
step with its figures.

Options:
  --dir <dir>             where the demo writes its files (default: a new
                          directory under the system's temp directory)
  -h, --help              this help`,

  replay: `Usage: agent-context replay <file> [options]

Replays the transcript's model requests (one per assistant message: the history
before it is what the agent sent) through one context manager in the given
window. After each request the next real turn of the transcript is appended to
the managed history, as an agent loop does. Prints, per request, the tokens
sent without the manager (the raw history) and with it, as a chart, then the
totals: peak context, input tokens of all requests, the estimated input cost
(every token at the input price, and with prompt caching: the previous
request's identical prefix read from the cache, the rest written to it), the
tool results offloaded and the compactions. Tokens are local estimates
(o200k_base), for both lines and for the window.

Options:
  --window <n>            the context window in tokens: 30000, 100k, 1.5m
                          (default: env CONTEXT_TOKEN_LIMIT, else 200000)
  --ratio <r>             compaction triggers at this share of the window
                          (default: env COMPACT_THRESHOLD_RATIO, else 0.92)
  --threshold <n>         a tool result or input field of at least n chars is
                          offloaded on its own (offload.directThreshold;
                          default: 1000)
  --provider <name>       who writes the summaries: extractive (offline, the
                          default, whatever the environment), anthropic, openai
  --model <model>         summary model (LLM providers)
  --base-url <url>        API base URL (an OpenAI-compatible server, a proxy)
  --cost-family <name>    how the provider prices its prompt cache: anthropic
                          (read 0.1x, write 1.25x), openai (read at the
                          model's discount, write 1x), none (no cache)
                          (default: from the transcript's model, else anthropic)
  --price-per-mtok <usd>  input price per million tokens for the cost
                          estimate (default: the model's list price, else 3;
                          an example, not a quote)
  --cache-read-ratio <r>  price of a token read from the prompt cache, as a
                          share of the input price (default: the family's)
  --cache-write-ratio <r> price of a token written to the prompt cache, as a
                          share of the input price (default: the family's)
  --out <dir>             keep the offloaded results and archives in <dir>
                          (default: a temporary directory, removed)
  --html <file>           also write a self-contained page with the curves
                          (not the transcript itself)
  --json                  print every request and the totals as one JSON object
${FORMAT_OPTION}
  -h, --help              this help

Exit codes: 0 success, 1 failure (unreadable input, no assistant message to
replay), 2 usage error (a bad flag, a window not larger than the system prompt).

${FORMATS_HELP}`,

  eval: `Usage: agent-context eval <file> [options]

Compacts the transcript as the context manager does when it must (tool results
of --threshold chars or more offloaded first, then a summary with its ledger,
the compacted messages archived), then scores what the compacted context still
holds against facts read off the raw transcript: the task (a slash command as
typed), the latest request, every edited file, the last file read, the last
command, the last error a tool printed (marked as an error or not), the
archive's reference and every offloaded result. A probe is kept when its text
(a request's first line, a path, a command, an error line, a reference)
appears in the compacted messages; an offloaded result when its reference and
the gist of its call (command or path) are on one line of the compacted
messages or of the offload index they name. Prints a table per kind of probe
and the score.

Options:
  --threshold <n>         tool results of at least n chars are offloaded
                          before compaction (default: 1000)
  --provider <name>       who writes the summary: extractive (offline, the
                          default, whatever the environment), anthropic, openai
  --model <model>         summary model (LLM providers)
  --base-url <url>        API base URL (an OpenAI-compatible server, a proxy)
  --cost-family <name>    prices the next request after the compaction (its
                          prefix written again) against the uncompacted one
                          (read from the cache): anthropic, openai, none
                          (default: from the transcript's model, else anthropic)
  --cache-read-ratio <r>  price of a cached token read (default: the family's)
  --cache-write-ratio <r> price of a token written (default: the family's)
  --price-per-mtok <usd>  input price per million tokens (default: the model's
                          list price, else 3)
  --out <dir>             keep the offloaded results and the archive in <dir>
                          (default: a temporary directory, removed)
  --json                  print the score and every probe as one JSON object
${FORMAT_OPTION}
  -h, --help              this help

Exit codes: 0 success, 1 failure (unreadable input, no assistant message, a
failed summary), 2 usage error (a bad flag, an unknown --provider).

${FORMATS_HELP}`,

  proxy: `Usage: agent-context proxy [options]

Runs a proxy between an agent and its model API: every POST /v1/messages
(Anthropic), /v1/responses and /v1/chat/completions (OpenAI) and
/v1beta/models/<model>:generateContent or :streamGenerateContent (Gemini),
streamed or not, has its history prepared by the context manager before it goes on: large tool
results go to files under --dir and a reference to the file takes their place
(the agent opens it with its own tools), and a long history is compacted. Every
other request, and every header (credentials included), goes on as it came;
answers come back byte for byte. Until Ctrl-C.

  ANTHROPIC_BASE_URL=http://127.0.0.1:8787 claude
  GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8787 gemini

Options:
  --port <n>              port (default: 8787; 0 picks a free one)
  --host <address>        address to listen on (default: 127.0.0.1, this
                          machine only; any other needs --auth-token)
  --upstream <url>        where requests go on to (default: api.anthropic.com
                          for Anthropic requests, api.openai.com for OpenAI
                          ones, generativelanguage.googleapis.com for Gemini
                          ones; a key on another provider's path, or an Azure
                          key, is refused rather than sent to any)
  --dir <dir>             offloaded content and compaction archives
                          (default: .agent-context)
  --window <n>            the context window in tokens: 200000, 100k
                          (default: env CONTEXT_TOKEN_LIMIT, else 200000)
  --summarizer <name>     who writes summaries: extractive (offline, the
                          default) or upstream (the request's own model and
                          credentials)
  --offload-timing <t>    when large tool results leave the context:
                          as-they-age (the default: each new result is sent
                          whole, older ones are offloaded in batches) or
                          on-arrival (each new result of 1,000 characters or
                          more is offloaded before the model sees it)
  --work-dir <dir>        the project directory compaction restores recently
                          read files from (default: none restored)
  --store <url>           keep session records in redis://host:6379 or
                          s3://bucket/prefix, so restarts and several proxies
                          share sessions (offloaded content stays in --dir,
                          unless --read-tool proxy: then it goes there too)
  --read-tool <who>       who opens references: own-tools (the default: the
                          agent opens paths under --dir) or proxy (the proxy
                          adds read_offloaded to the request's tools and
                          answers the model's calls itself; the agent may run
                          on any machine)
  --config <file>         settings file (default: agent-context.json in the
                          working directory, when there is one)
  --auth-token <token>    every request must carry it in the header
                          x-agent-context-token, never sent on (default: env
                          AGENT_CONTEXT_TOKEN, else the config file, else none)
  -h, --help              this help

Config file (JSON with comments): the flags in camelCase under "proxy"
({ "proxy": { "window": 100000 } }) and the context manager's "offload" and
"compaction" groups ({ "offload": { "timing": "on-arrival" } }). A flag comes
before an environment variable (CONTEXT_TOKEN_LIMIT, OFFLOAD_CHAR_THRESHOLD,
...), which comes before the file; an unknown key is refused.

Sessions: the x-agent-context-session header names one (else Claude Code's
x-claude-code-session-id); without either, one is derived from the system
prompt, the first user message and a hash of the request's credential. Its own
routes: /_agent-context/health, /api/sessions, /metrics. Bodies and credentials
are never logged.`,

  wrap: `Usage: agent-context wrap [options] -- <command> [args]

Runs <command> through the proxy: starts it on a free port of 127.0.0.1, runs
the command with ANTHROPIC_BASE_URL, OPENAI_BASE_URL (ending in /v1) and
GOOGLE_GEMINI_BASE_URL (Gemini CLI) set to it, stops it when the command
exits, prints one line on stderr (requests, input tokens sent and saved,
offloads, compactions) and exits with the command's exit code (128 + the
signal's number when a signal ended it).

  agent-context wrap -- claude
  agent-context wrap --window 100k -- codex

For codex, -c flags also declare a provider on the proxy (Responses API) and
select it, since Codex reads no OPENAI_BASE_URL. SIGTERM (and SIGINT outside a
terminal) is passed on to the command.

Options: those of agent-context proxy but --port and --host: --upstream,
--dir, --window, --summarizer, --offload-timing, --work-dir, --store,
--read-tool, --config
(see agent-context proxy --help), and the same config file. No --auth-token:
the proxy listens on this machine for the command alone.

Exit codes: the command's; 2 usage error (a bad flag or config file, no
command after --); 127 command not found.`,
};
