/**
 * Real histories of each format, typed with the SDKs' own message types and no cast: that these
 * literals type-check is the proof that each SDK writes what the adapters read. The adapters'
 * tests and the end-to-end offload test use them.
 */
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { AgentInputItem } from '@openai/agents';
import type { ModelMessage } from 'ai';
import type { ModelMessage as ModelMessageV6 } from 'ai-v6';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import type { GeminiContent } from '../../../src/formats/gemini.js';

/** A tool output large enough for offload (20,000 characters). */
export const LARGE_OUTPUT = `${'line of a large tool output\n'.repeat(740)}end`;

/** A small PNG as base64 (the bytes do not matter to the adapters). */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export const anthropicHistory: MessageParam[] = [
  { role: 'user', content: [{ type: 'text', text: 'Read both files.', cache_control: { type: 'ephemeral' } }] },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'Two reads.', signature: 'sig' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } },
      { type: 'tool_use', id: 'toolu_2', name: 'read_file', input: { path: 'b.txt' } },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: LARGE_OUTPUT },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: 'ENOENT', is_error: true },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
    ],
  },
  { role: 'assistant', content: 'a.txt is long; b.txt is missing.' },
];

export const openaiChatHistory: ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'developer', content: [{ type: 'text', text: 'Prefer tools.' }], name: 'policy' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Read both files, and look at this.' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}`, detail: 'low' } },
      { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
      { type: 'file', file: { file_id: 'file-1', filename: 'notes.pdf' } },
    ],
  },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
      { id: 'call_2', type: 'function', function: { name: 'read_file', arguments: '{"path": "b.txt"}' } },
      { id: 'call_3', type: 'custom', custom: { name: 'grep', input: 'TODO' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: LARGE_OUTPUT },
  {
    role: 'tool',
    tool_call_id: 'call_2',
    content: [
      { type: 'text', text: 'ENOENT: ' },
      { type: 'text', text: 'b.txt' },
    ],
  },
  { role: 'tool', tool_call_id: 'call_3', content: 'no match' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Done.' },
      { type: 'refusal', refusal: 'Not the image.' },
    ],
    refusal: null,
  },
];

export const openaiResponsesHistory: ResponseInputItem[] = [
  { role: 'developer', content: 'Prefer tools.' },
  {
    type: 'message',
    role: 'user',
    content: [
      { type: 'input_text', text: 'Read both files.' },
      { type: 'input_image', image_url: `data:image/png;base64,${PNG_BASE64}`, detail: 'auto' },
    ],
  },
  { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Two reads.' }], encrypted_content: 'gAAA' },
  {
    type: 'function_call',
    call_id: 'call_1',
    name: 'read_file',
    arguments: '{"path":"a.txt"}',
    id: 'fc_1',
    status: 'completed',
  },
  { type: 'function_call', call_id: 'call_2', name: 'read_file', arguments: '{"path":"b.txt"}' },
  { type: 'function_call_output', call_id: 'call_1', output: LARGE_OUTPUT },
  {
    type: 'function_call_output',
    call_id: 'call_2',
    output: [
      { type: 'input_text', text: 'A screenshot of b.txt:' },
      { type: 'input_image', image_url: `data:image/png;base64,${PNG_BASE64}`, detail: 'low' },
    ],
  },
  { type: 'compaction', encrypted_content: 'cmp_opaque' },
  {
    type: 'message',
    id: 'msg_1',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'Both read.', annotations: [] }],
  },
  { type: 'item_reference', id: 'msg_0' },
];

export const openaiAgentsHistory: AgentInputItem[] = [
  { role: 'system', content: 'You are terse.' },
  {
    role: 'user',
    content: [
      { type: 'input_text', text: 'Read both files.' },
      { type: 'input_image', image: `data:image/png;base64,${PNG_BASE64}` },
    ],
  },
  { type: 'reasoning', content: [{ type: 'input_text', text: 'Two reads.' }], providerData: { encrypted: 'x' } },
  {
    type: 'function_call',
    callId: 'call_1',
    name: 'read_file',
    arguments: '{"path":"a.txt"}',
    status: 'completed',
    id: 'fc_1',
  },
  { type: 'function_call', callId: 'call_2', name: 'read_file', arguments: '{"path":"b.txt"}' },
  { type: 'function_call_result', callId: 'call_1', name: 'read_file', status: 'completed', output: LARGE_OUTPUT },
  {
    type: 'function_call_result',
    callId: 'call_2',
    name: 'read_file',
    status: 'completed',
    output: { type: 'text', text: 'ENOENT' },
  },
  { type: 'hosted_tool_call', name: 'web_search', arguments: '{"q":"x"}', status: 'completed', output: 'results' },
  { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Both read.' }] },
];

export const aiSdkHistory: ModelMessage[] = [
  { role: 'system', content: 'You are terse.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Read both files.' },
      { type: 'image', image: new URL('https://example.com/a.png'), mediaType: 'image/png' },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Two reads.', providerOptions: { anthropic: { signature: 'sig' } } },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'readFile', input: { path: 'a.txt' } },
      { type: 'tool-call', toolCallId: 'call_2', toolName: 'readFile', input: { path: 'b.txt' } },
      { type: 'tool-call', toolCallId: 'call_3', toolName: 'search', input: { q: 'x' } },
      { type: 'tool-call', toolCallId: 'call_4', toolName: 'screenshot', input: {} },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'readFile',
        output: { type: 'text', value: LARGE_OUTPUT },
      },
      {
        type: 'tool-result',
        toolCallId: 'call_2',
        toolName: 'readFile',
        output: { type: 'error-text', value: 'ENOENT' },
      },
      {
        type: 'tool-result',
        toolCallId: 'call_3',
        toolName: 'search',
        output: { type: 'json', value: { hits: [1, 2] } },
        providerOptions: { x: { y: 1 } },
      },
      {
        type: 'tool-result',
        toolCallId: 'call_4',
        toolName: 'screenshot',
        output: {
          type: 'content',
          value: [
            { type: 'text', text: 'The screen:' },
            { type: 'image-data', data: PNG_BASE64, mediaType: 'image/png' },
          ],
        },
      },
    ],
  },
  { role: 'assistant', content: 'Both read.' },
];

export const aiSdkV6History: ModelMessageV6[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Read the file, then delete it.' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading.' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'readFile', input: { path: 'a.txt' } },
      { type: 'tool-call', toolCallId: 'call_2', toolName: 'deleteFile', input: { path: 'a.txt' } },
      { type: 'tool-approval-request', approvalId: 'ap_1', toolCallId: 'call_2' },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'readFile',
        output: { type: 'error-json', value: { error: LARGE_OUTPUT } },
      },
      { type: 'tool-approval-response', approvalId: 'ap_1', approved: false, reason: 'no deleting' },
      {
        type: 'tool-result',
        toolCallId: 'call_2',
        toolName: 'deleteFile',
        output: { type: 'execution-denied', reason: 'no deleting' },
      },
    ],
  },
];

/** LangChain messages, built with the real classes: a fresh history each call (instances are objects the tests compare). */
export function createLangchainHistory(): BaseMessage[] {
  return [
    new SystemMessage('You are terse.'),
    new HumanMessage({
      content: [
        { type: 'text', text: 'Read both files.' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
      ],
      id: 'h1',
    }),
    new AIMessage({
      content: [
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a.txt' } },
      ],
      tool_calls: [
        { id: 'call_1', name: 'read_file', args: { path: 'a.txt' }, type: 'tool_call' },
        { id: 'call_2', name: 'read_file', args: { path: 'b.txt' }, type: 'tool_call' },
      ],
      response_metadata: { model: 'fake' },
    }),
    new ToolMessage({ content: LARGE_OUTPUT, tool_call_id: 'call_1', name: 'read_file', artifact: { bytes: 20_000 } }),
    new ToolMessage({ content: 'ENOENT', tool_call_id: 'call_2', name: 'read_file', status: 'error' }),
    new AIMessage('Both read.'),
  ];
}

/**
 * A Gemini CLI session's contents: calls without ids (the API's own), responses carrying the
 * CLI's ids, parallel calls answered out of order, a thought signature, code execution, an
 * inline image, a JSON response and an error.
 */
export const geminiHistory: GeminiContent[] = [
  {
    role: 'user',
    parts: [{ text: 'Read both files and look at this.' }, { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } }],
  },
  {
    role: 'model',
    parts: [
      { text: 'Two reads.', thought: true, thoughtSignature: 'c2lnLTE=' },
      { functionCall: { name: 'read_file', args: { path: 'a.txt' } }, thoughtSignature: 'c2lnLTI=' },
      { functionCall: { name: 'read_file', args: { path: 'b.txt' } } },
      { functionCall: { name: 'list_directory', args: { path: '.' } } },
    ],
  },
  {
    role: 'user',
    parts: [
      {
        functionResponse: {
          id: 'list_directory-1-a',
          name: 'list_directory',
          response: { files: ['a.txt'], total: 1 },
        },
      },
      { functionResponse: { id: 'read_file-1-b', name: 'read_file', response: { output: LARGE_OUTPUT } } },
      { functionResponse: { id: 'read_file-1-c', name: 'read_file', response: { error: 'ENOENT: b.txt' } } },
    ],
  },
  {
    role: 'model',
    parts: [
      { executableCode: { language: 'PYTHON', code: 'print(1 + 1)' } },
      { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '2\n' } },
      { text: 'a.txt is long; b.txt is missing.' },
    ],
  },
];
