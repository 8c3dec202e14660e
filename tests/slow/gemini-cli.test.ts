/**
 * Gemini CLI, unmodified, through the proxy: `gemini -p` in headless mode with a Gemini API key
 * and `GOOGLE_GEMINI_BASE_URL` on the proxy (or straight on the model), every tool call approved
 * (`--yolo`), a scripted model playing more than 20 turns of large shell outputs. The same
 * session is run once straight against the model, to compare what the model received.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GEMINI_CLI } from './agents.js';
import { AGENT_PROMPT } from './agent-run.js';
import { describeAgentThroughProxy } from './agent-suite.js';
import { GEMINI_CLI_DIALECT } from './scripted-model.js';

describeAgentThroughProxy({
  name: 'Gemini CLI',
  agent: GEMINI_CLI,
  dialect: GEMINI_CLI_DIALECT,
  readBackTool: "Gemini CLI's read_file",
  window: 24_000,
  command: (path) => ({
    command: path,
    // a model named on the command line: no routing requests to a second model
    args: ['--model', 'gemini-2.5-pro', '--yolo', '--prompt', AGENT_PROMPT],
    env: (baseUrl) => ({
      GEMINI_API_KEY: 'gemini-fake-key',
      GOOGLE_GEMINI_BASE_URL: baseUrl,
      // the temp project is not a folder the user trusted: headless runs trust it for this session
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    }),
    async prepareHome(home) {
      await mkdir(join(home, '.gemini'));
      const settings = {
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
      };
      await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
    },
  }),
});
