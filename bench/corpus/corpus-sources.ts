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
  /** The repository's licence (SPDX id) at that commit. */
  licence: string;
}

const MINI_PULL_REQUEST = {
  repo: 'SWE-agent/mini-swe-agent',
  ref: 'refs/pull/814/head',
  commit: '3c7d1d7f8fb8630b187744215f67470b6755f60c',
  licence: 'MIT',
} as const;

/** A mini-swe-agent run (deepseek-chat, tool calling) on a SWE-bench task, committed in a pull request. */
function mini(shortName: string, path: string): CorpusSource {
  return { name: `mini-swe-agent-${shortName}`, harness: 'mini-swe-agent', path, ...MINI_PULL_REQUEST };
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

/** Every source of the corpus, in the order the corpus lists them. */
export const CORPUS_SOURCES: readonly CorpusSource[] = [
  mini('django-11910', 'output/deepseek_bench1/django__django-11910/django__django-11910.traj.json'),
  mini('django-11797', 'output/deepseek_bench1/django__django-11797/django__django-11797.traj.json'),
  mini('django-11564', 'output/deepseek_bench1/django__django-11564/django__django-11564.traj.json'),
  mini('django-12470', 'output/deepseek_bench1/django__django-12470/django__django-12470.traj.json'),
  mini('django-12113', 'output/deepseek_bench1/django__django-12113/django__django-12113.traj.json'),
  mini('django-12589', 'output/deepseek_bench1/django__django-12589/django__django-12589.traj.json'),
  mini('django-12125', 'output/deepseek_bench1/django__django-12125/django__django-12125.traj.json'),
  mini('django-11019', 'output/deepseek_bench1/django__django-11019/django__django-11019.traj.json'),
  mini('django-11422', 'output/deepseek_bench1/django__django-11422/django__django-11422.traj.json'),
  mini('django-12284', 'output/deepseek_bench1/django__django-12284/django__django-12284.traj.json'),
  mini('django-11964', 'output/deepseek_bench1/django__django-11964/django__django-11964.traj.json'),
  mini('django-12747', 'output/deepseek_bench1/django__django-12747/django__django-12747.traj.json'),
  mini('django-11848', 'output/deepseek_bench1/django__django-11848/django__django-11848.traj.json'),
  mini('django-13033', 'output/deepseek_bench1/django__django-13033/django__django-13033.traj.json'),
  {
    name: 'swe-agent-marshmallow-1867-function-calling',
    harness: 'swe-agent',
    path: 'trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867__function_calling_replace_from_source/marshmallow-code__marshmallow-1867.traj',
    ...SWE_AGENT,
  },
  {
    name: 'openhands-vue-todo-app',
    harness: 'openhands',
    path: 'tests/runtime/trajs/basic_gui_mode.json',
    ...OPENHANDS,
  },
  {
    name: 'openhands-basic',
    harness: 'openhands',
    path: 'tests/runtime/trajs/basic.json',
    ...OPENHANDS,
  },
];
