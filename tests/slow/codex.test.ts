/**
 * Codex CLI, unmodified, through the proxy: `codex exec` with a provider in `CODEX_HOME/config.toml`
 * whose base URL is the proxy (Codex ignores `OPENAI_BASE_URL`), the Responses API, a scripted
 * model playing more than 20 turns of large shell outputs. The same session is run once straight
 * against the model, to compare what the model received.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CODEX } from './agents.js';
import { AGENT_PROMPT } from './agent-run.js';
import { describeAgentReadingThroughProxy, describeAgentThroughProxy, type AgentSuite } from './agent-suite.js';
import { CODEX_DIALECT } from './scripted-model.js';

const suite: AgentSuite = {
  name: 'Codex CLI',
  agent: CODEX,
  dialect: CODEX_DIALECT,
  readBackTool: "Codex's shell",
  window: 24_000,
  command: (path) => ({
    command: path,
    // the sandbox needs user namespaces, which a CI container may not have: the scripted commands only print
    args: ['exec', '--skip-git-repo-check', '--sandbox', 'danger-full-access', AGENT_PROMPT],
    env: (_baseUrl, home) => ({ CODEX_HOME: join(home, '.codex'), OPENAI_API_KEY: 'sk-fake' }),
    async prepareHome(home, baseUrl) {
      await mkdir(join(home, '.codex'));
      const config = [
        'model = "gpt-5-codex"',
        'model_provider = "scripted"',
        '[model_providers.scripted]',
        'name = "scripted"',
        `base_url = "${baseUrl}/v1"`,
        'env_key = "OPENAI_API_KEY"',
        'wire_api = "responses"',
        '',
      ].join('\n');
      await writeFile(join(home, '.codex', 'config.toml'), config);
    },
  }),
};

describeAgentThroughProxy(suite);
describeAgentReadingThroughProxy(suite);
