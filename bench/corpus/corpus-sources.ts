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

/** Claude Code sessions of code-review experiments, published with the experiments' write-ups. */
const CHARMING_WITH_CLAUDE = {
  repo: 'tonyandrewmeyer/charming-with-claude',
  ref: 'refs/heads/main',
  commit: '887451e91d0fa58a6efa4feb86e9aeb85ccc1127',
  licence: 'CC-BY-4.0',
} as const;

function charming(shortName: string, folder: string, session: string): CorpusSource {
  return {
    name: `claude-code-${shortName}`,
    harness: 'claude-code',
    path: `experiments/2026-03-13-code-review-skills-our-data/${folder}.claude/transcripts/${session}/${session}.jsonl`,
    ...CHARMING_WITH_CLAUDE,
  };
}

/** A Claude Code session log kept as a test fixture of a transcript viewer. */
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
  charming('review-0a0eb7b7', '', '0a0eb7b7-3abb-4e69-aa2b-0ff2d27f24e8'),
  charming('charming-0b6fff8a', 'charming-analysis/', '0b6fff8a-4d86-4dbd-b022-9e7a745a9eae'),
  charming('charm-tech-e5e8aca0', 'charm-tech-analysis/', 'e5e8aca0-600f-46b8-b456-dddcb9f328ee'),
  charming('charming-727104af', 'charming-analysis/', '727104af-66bb-4918-b81e-0c90a4511e07'),
  charming('operator-8d655624', 'operator-analysis/', '8d655624-4852-4974-b2ed-bed5f3b9eacc'),
  charming('operator-9cfd6e0a', 'operator-analysis/', '9cfd6e0a-1756-4452-9524-ec866855c9de'),
  charming('charming-960cec30', 'charming-analysis/', '960cec30-d8bb-4d4c-92f3-ec634d923f8e'),
  charming('charming-282fceea', 'charming-analysis/', '282fceea-d848-47e9-98f3-78bf9b6db456'),
  charming('charming-58b4f056', 'charming-analysis/', '58b4f056-70da-42df-bc8e-fa516d8816f7'),
  charming('review-9265f0e5', '', '9265f0e5-0af7-4fa9-834a-5f146d1f9afa'),
  mini814('django-11910', 'django__django-11910'),
  mini814('django-11797', 'django__django-11797'),
  mini814('django-11564', 'django__django-11564'),
  mini814('django-12470', 'django__django-12470'),
  mini814('django-12113', 'django__django-12113'),
  mini814('django-12589', 'django__django-12589'),
  mini814('django-12125', 'django__django-12125'),
  mini814('django-11019', 'django__django-11019'),
  mini814('django-12284', 'django__django-12284'),
  mini816('astroid-1333', 'deepseek_chat_dev', 'pylint-dev__astroid-1333'),
  mini816('sqlfluff-1517', 'deepseek_chat_dev', 'sqlfluff__sqlfluff-1517'),
  mini816('sqlfluff-1763', 'deepseek_chat_dev', 'sqlfluff__sqlfluff-1763'),
  mini816('sqlfluff-1733', 'deepseek_chat_dev', 'sqlfluff__sqlfluff-1733'),
  mini816('pvlib-1707', 'deepseek_chat_dev', 'pvlib__pvlib-python-1707'),
  mini816('astroid-1333-lite', 'deepseek_lite_dev_noparallel', 'pylint-dev__astroid-1333'),
  mini816('sqlfluff-1733-lite', 'deepseek_lite_dev_noparallel', 'sqlfluff__sqlfluff-1733'),
  mini816('pydicom-1413-lite', 'deepseek_lite_dev_noparallel', 'pydicom__pydicom-1413'),
  mini816('sqlfluff-1733-reasoner', 'deepseek_reasoner_dev', 'sqlfluff__sqlfluff-1733'),
  mini816('sqlfluff-1517-reasoner', 'deepseek_reasoner_dev', 'sqlfluff__sqlfluff-1517'),
  mini816('sqlfluff-1763-reasoner', 'deepseek_reasoner_dev', 'sqlfluff__sqlfluff-1763'),
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
