/**
 * The MessageFormat contract (testFormat) over each built-in format, on real histories typed with
 * each SDK's own message type.
 */
import { formats } from '../../../src/formats/index.js';
import { testFormat } from '../../../src/testing/index.js';
import {
  aiSdkHistory,
  aiSdkV6History,
  anthropicHistory,
  createLangchainHistory,
  geminiHistory,
  openaiAgentsHistory,
  openaiChatHistory,
  openaiResponsesHistory,
} from './sdk-samples.js';

testFormat(
  formats.anthropic,
  { 'parallel tool calls, an error result and an image': anthropicHistory },
  {
    invalid: [
      {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'tool', content: 'x' },
        ],
        path: 'messages[1].role',
      },
      { messages: [{ role: 'user', content: 42 }], path: 'messages[0].content' },
    ],
  },
);

testFormat(
  formats.openaiChat,
  { 'system, developer, parts, parallel and custom tool calls': openaiChatHistory },
  {
    invalid: [
      {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'tool', content: 'x' },
        ],
        path: 'messages[1].tool_call_id',
      },
      { messages: [{ role: 'critic', content: 'x' }], path: 'messages[0].role' },
      {
        messages: [
          { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f' } }] },
        ],
        path: 'messages[0].tool_calls[0].function.arguments',
      },
    ],
  },
);

testFormat(
  formats.openaiResponses,
  { 'messages, reasoning, calls, multi-part output, compaction, references': openaiResponsesHistory },
  {
    invalid: [
      {
        messages: [
          { role: 'user', content: 'hi' },
          { type: 'function_call_output', output: 'x' },
        ],
        path: 'messages[1].call_id',
      },
      { messages: [{ type: 'message', role: 'tool', content: 'x' }], path: 'messages[0].role' },
    ],
  },
);

testFormat(
  formats.openaiAgents,
  { 'messages, reasoning, calls, structured output, hosted tools': openaiAgentsHistory },
  {
    invalid: [
      {
        messages: [{ type: 'function_call_result', call_id: 'c', name: 'f', status: 'completed', output: 'x' }],
        path: 'messages[0].callId',
      },
      {
        messages: [{ type: 'function_call_result', callId: 'c', name: 'f', status: 'completed', output: 7 }],
        path: 'messages[0].output',
      },
    ],
  },
);

testFormat(
  formats.aiSdk,
  {
    'ai 7: reasoning, parallel calls, text, error, json and content outputs': aiSdkHistory,
    'ai 6: approvals, error-json, execution-denied': aiSdkV6History,
  },
  {
    invalid: [
      {
        messages: [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'f' }] }],
        path: 'messages[0].content[0].output',
      },
      { messages: [{ role: 'system', content: [{ type: 'text', text: 'x' }] }], path: 'messages[0].content' },
    ],
  },
);

testFormat(
  formats.langchain,
  { 'instances: native tool_use parts, parallel calls, an error status, an artifact': createLangchainHistory() },
  {
    invalid: [
      {
        messages: [
          { type: 'human', content: 'hi' },
          { type: 'tool', content: 'x' },
        ],
        path: 'messages[1].tool_call_id',
      },
      { messages: [{ role: 'user', content: 'hi' }], path: 'messages[0]' },
    ],
  },
);

testFormat(
  formats.gemini,
  { 'calls without ids, out-of-order responses, thoughts, code execution, an image': geminiHistory },
  {
    invalid: [
      {
        messages: [{ role: 'model', parts: [{ functionCall: { args: {} } }] }],
        path: 'messages[0].parts[0].functionCall.name',
      },
      { messages: [{ role: 'assistant', parts: [{ text: 'x' }] }], path: 'messages[0].role' },
      {
        messages: [{ role: 'user', parts: [{ functionResponse: { name: 'f', response: 'x' } }] }],
        path: 'messages[0].parts[0].functionResponse.response',
      },
      { messages: [{ role: 'user', parts: [{ text: 7 }] }], path: 'messages[0].parts[0].text' },
    ],
  },
);
