/**
 * Claude Code, unmodified, through the proxy: `claude -p` with `ANTHROPIC_BASE_URL` set to the
 * proxy and a fake key, a scripted model playing more than 20 turns of large tool outputs. The
 * same session is run once straight against the model, to compare what the model received.
 */
import { CLAUDE_CODE } from './agents.js';
import { AGENT_PROMPT } from './agent-run.js';
import { describeAgentReadingThroughProxy, describeAgentThroughProxy, type AgentSuite } from './agent-suite.js';
import { CLAUDE_CODE_DIALECT, TOOL_TURNS } from './scripted-model.js';

const suite: AgentSuite = {
  name: 'Claude Code',
  agent: CLAUDE_CODE,
  dialect: CLAUDE_CODE_DIALECT,
  readBackTool: "Claude Code's Read",
  window: 24_000,
  command: (path) => ({
    command: path,
    args: ['-p', AGENT_PROMPT, '--allowedTools', 'Bash,Read', '--max-turns', String(TOOL_TURNS + 5)],
    env: (baseUrl) => ({
      ANTHROPIC_BASE_URL: baseUrl,
      ANTHROPIC_API_KEY: 'sk-ant-fake',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    }),
  }),
};

describeAgentThroughProxy(suite);
describeAgentReadingThroughProxy(suite);
