/**
 * Where every corpus transcript comes from: a file at a commit of a public GitHub repository,
 * the harness that wrote it and the repository's licence. The build reads each one from a git
 * copy of its repository (see README.md beside this file for the commands that make them).
 */
import type { CorpusHarness } from './corpus-file.js';

/** One source file of the corpus. */
export interface CorpusSource {
  /** The transcript's name in the corpus: `<harness>-<short-name>`. */
  name: string;
  /** The harness that wrote the file. */
  harness: CorpusHarness;
  /** `owner/name` of the public GitHub repository. */
  repo: string;
  /** The ref the commit is reachable from (a branch, or `refs/pull/N/head` for a pull request). */
  ref: string;
  /** The commit the file is read at. */
  commit: string;
  /** The file's path in the repository. */
  path: string;
  /** For a JSONL file holding one run per line: the 1-based line of this transcript's run. */
  line?: number;
  /** The repository's licence (SPDX id) at that commit. */
  licence: string;
}

/** mini-swe-agent runs (deepseek-chat, tool calling) on SWE-bench tasks, committed in pull request 814. */
const MINI_PULL_REQUEST_814 = {
  repo: 'SWE-agent/mini-swe-agent',
  ref: 'refs/pull/814/head',
  commit: '3c7d1d7f8fb8630b187744215f67470b6755f60c',
  licence: 'MIT',
} as const;

/** More mini-swe-agent runs (deepseek-chat and deepseek-reasoner) on SWE-bench tasks, pull request 816. */
const MINI_PULL_REQUEST_816 = {
  repo: 'SWE-agent/mini-swe-agent',
  ref: 'refs/pull/816/head',
  commit: 'ec0e8e849fea5b1619deb1753007201000904672',
  licence: 'MIT',
} as const;

function mini814(shortName: string, instance: string): CorpusSource {
  return {
    name: `mini-swe-agent-${shortName}`,
    harness: 'mini-swe-agent',
    path: `output/deepseek_bench1/${instance}/${instance}.traj.json`,
    ...MINI_PULL_REQUEST_814,
  };
}

function mini816(shortName: string, run: string, instance: string): CorpusSource {
  return {
    name: `mini-swe-agent-${shortName}`,
    harness: 'mini-swe-agent',
    path: `output/${run}/${instance}/${instance}.traj.json`,
    ...MINI_PULL_REQUEST_816,
  };
}

const SWE_AGENT = {
  repo: 'SWE-agent/SWE-agent',
  ref: 'refs/heads/main',
  commit: '3ea751c087f32b16e039a2233dd6eefecef325d5',
  licence: 'MIT',
} as const;

const OPENHANDS = {
  repo: 'All-Hands-AI/OpenHands',
  ref: 'refs/heads/main',
  commit: '156d0686c46aafb0fa9d291da6421fb6f64dddc0',
  licence: 'MIT',
} as const;

/** OpenHands evaluation runs (Multi-SWE-bench, llama-4-maverick) kept as an example output in pull request 8834. */
const OPENHANDS_PULL_REQUEST_8834 = {
  repo: 'All-Hands-AI/OpenHands',
  ref: 'refs/pull/8834/head',
  commit: '722b168a860f7ebe55321f3f59b8663adfb40459',
  path: 'evaluation/benchmarks/multi_swe_bench/examples/output.jsonl',
  licence: 'MIT',
} as const;

/** Claude Code session logs published under CC0 in the author's archive. */
const M_CLAUDE = {
  repo: 'M-Thisness/M-Claude',
  ref: 'refs/heads/main',
  commit: '5a8d89ee3677906aec18f7beb518a5a08e72a002',
  licence: 'CC0-1.0',
} as const;

function claudeArchive(shortName: string, session: string): CorpusSource {
  return { name: `claude-code-${shortName}`, harness: 'claude-code', path: `Archives/${session}.jsonl`, ...M_CLAUDE };
}

/** Claude Code session logs kept as samples and test fixtures of a transcript viewer. */
const SESSION_SHARE = {
  repo: 'moredip/session-share',
  ref: 'refs/heads/main',
  commit: 'c82245286829af5cfe9b535885ed158f34c296b8',
  licence: 'MIT',
} as const;

/** Every source of the corpus, in the order the corpus lists them (a quick run takes the first of each harness). */
export const CORPUS_SOURCES: readonly CorpusSource[] = [
  claudeArchive('3cfce0ff', '3cfce0ff-0725-47be-a572-f8af8122b71e'),
  claudeArchive('43391f62', '43391f62-680a-4688-9dd8-3637467d6b23'),
  claudeArchive('abc757d1', 'abc757d1-3da3-42fb-bb7b-ffa293a4ba29'),
  claudeArchive('ff59cfd2', 'ff59cfd2-09dc-4a18-8c9f-0d46c3d4e8cd'),
  claudeArchive('ff33b5b0', 'ff33b5b0-cc51-4271-a3eb-545a85882e5f'),
  claudeArchive('f225835b', 'f225835b-3612-4093-903f-bd4538fb7cb9'),
  claudeArchive('343e3472', '343e3472-b9b6-4561-ade0-21d1a4730c11'),
  {
    name: 'claude-code-session-viewer-tool-calls',
    harness: 'claude-code',
    path: 'session-viewer/test/INTEGRATION/fixtures/general-tool-calls.jsonl',
    ...SESSION_SHARE,
  },
  {
    name: 'claude-code-session-share-sample',
    harness: 'claude-code',
    path: 'samples/claude-code-projects/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl',
    ...SESSION_SHARE,
  },
  mini814('django-11910', 'django__django-11910'),
  mini814('django-11797', 'django__django-11797'),
  mini814('django-11564', 'django__django-11564'),
  mini814('django-12470', 'django__django-12470'),
  mini814('django-12113', 'django__django-12113'),
  mini814('django-12589', 'django__django-12589'),
  mini814('django-12125', 'django__django-12125'),
  mini814('django-11019', 'django__django-11019'),
  mini814('django-11422', 'django__django-11422'),
  mini814('astropy-14182', 'astropy__astropy-14182'),
  mini816('astroid-1333', 'deepseek_chat_dev', 'pylint-dev__astroid-1333'),
  mini816('sqlfluff-1517', 'deepseek_chat_dev', 'sqlfluff__sqlfluff-1517'),
  mini816('sqlfluff-1763', 'deepseek_chat_dev', 'sqlfluff__sqlfluff-1763'),
  mini816('pvlib-1707', 'deepseek_chat_dev', 'pvlib__pvlib-python-1707'),
  mini816('sqlfluff-1733-lite', 'deepseek_lite_dev_noparallel', 'sqlfluff__sqlfluff-1733'),
  mini816('pydicom-1413-lite', 'deepseek_lite_dev_noparallel', 'pydicom__pydicom-1413'),
  mini816('sqlfluff-1733-reasoner', 'deepseek_reasoner_dev', 'sqlfluff__sqlfluff-1733'),
  mini816('sqlfluff-1517-reasoner', 'deepseek_reasoner_dev', 'sqlfluff__sqlfluff-1517'),
  { name: 'openhands-ponyc-4588', harness: 'openhands', line: 3, ...OPENHANDS_PULL_REQUEST_8834 },
  { name: 'openhands-ponyc-4593', harness: 'openhands', line: 2, ...OPENHANDS_PULL_REQUEST_8834 },
  { name: 'openhands-ponyc-4595', harness: 'openhands', line: 1, ...OPENHANDS_PULL_REQUEST_8834 },
  {
    name: 'openhands-vue-todo-app',
    harness: 'openhands',
    path: 'tests/runtime/trajs/basic_gui_mode.json',
    ...OPENHANDS,
  },
  {
    name: 'swe-agent-marshmallow-1867-function-calling',
    harness: 'swe-agent',
    path: 'trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867__function_calling_replace_from_source/marshmallow-code__marshmallow-1867.traj',
    ...SWE_AGENT,
  },
  {
    name: 'swe-agent-function-calling-simple',
    harness: 'swe-agent',
    path: 'trajectories/demonstrations/function_calling_simple.traj',
    ...SWE_AGENT,
  },
];
