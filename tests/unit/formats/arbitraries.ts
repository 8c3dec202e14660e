/**
 * fast-check histories in each format, built from one shape of conversation: turns of user text,
 * an assistant reply with parallel tool calls, and their results (some errors, some multi-part,
 * some with images and unknown fields). `normal` histories hold only what a format builds from a
 * canonical message with no original, so a fresh build must give them back exactly.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import fc from 'fast-check';

const unit = fc.constantFrom('a', 'Z', ' ', '\n', '"', '\\', '{', '中', '😀', 'é');
const text = fc.string({ unit, maxLength: 40 });
const nonEmptyText = fc.string({ unit, minLength: 1, maxLength: 40 });
const args = fc.dictionary(fc.constantFrom('path', 'q', 'n', 'flag'), fc.oneof(text, fc.integer(), fc.boolean()), {
  maxKeys: 3,
});

interface CallSpec {
  args: Record<string, unknown>;
  output: string;
  error: boolean;
  /** A multi-part output (text and an image) instead of a string. */
  multiPart: boolean;
  /** An unknown field on the result message or part, kept by a round trip. */
  extra: boolean;
}

interface TurnSpec {
  user: string;
  /** An image part in the user message. */
  image: boolean;
  reply: string;
  calls: CallSpec[];
}

export interface ConversationSpec {
  system: string | undefined;
  turns: TurnSpec[];
}

const call: fc.Arbitrary<CallSpec> = fc.record({
  args,
  output: text,
  error: fc.boolean(),
  multiPart: fc.boolean(),
  extra: fc.boolean(),
});
const turn: fc.Arbitrary<TurnSpec> = fc.record({
  user: text,
  image: fc.boolean(),
  reply: text,
  calls: fc.array(call, { maxLength: 3 }),
});

/** A conversation: an optional system prompt and up to five turns. */
export const conversation: fc.Arbitrary<ConversationSpec> = fc.record({
  system: fc.option(nonEmptyText, { nil: undefined }),
  turns: fc.array(turn, { minLength: 1, maxLength: 5 }),
});

const IMAGE_URL = 'https://example.com/a.png';

/** Calls with their ids and names: `call_<turn>_<index>`, `tool_<index>`. */
function eachCall(spec: TurnSpec, turnIndex: number): Array<CallSpec & { id: string; name: string }> {
  return spec.calls.map((value, index) => ({ ...value, id: `call_${turnIndex}_${index}`, name: `tool_${index}` }));
}

/** Whether `normal` asks for the fresh-build shapes only (no extras, images, errors or parts the format cannot rebuild). */
type Variant = { normal: boolean };

export function toOpenAIChat(spec: ConversationSpec, { normal }: Variant): unknown[] {
  const messages: unknown[] = [];
  if (spec.system !== undefined)
    messages.push(
      normal
        ? { role: 'system', content: spec.system }
        : { role: 'developer', content: [{ type: 'text', text: spec.system }] },
    );
  spec.turns.forEach((value, turnIndex) => {
    const calls = eachCall(value, turnIndex);
    messages.push(
      !normal && value.image
        ? {
            role: 'user',
            content: [
              { type: 'text', text: value.user },
              { type: 'image_url', image_url: { url: IMAGE_URL } },
            ],
          }
        : { role: 'user', content: value.user },
    );
    if (calls.length === 0) messages.push({ role: 'assistant', content: value.reply });
    else {
      messages.push({
        role: 'assistant',
        content: value.reply === '' ? null : value.reply,
        tool_calls: calls.map(({ id, name, args: input }) => ({
          id,
          type: 'function',
          function: { name, arguments: JSON.stringify(input) },
        })),
      });
      for (const result of calls) {
        const content =
          !normal && result.multiPart
            ? [
                { type: 'text', text: result.output },
                { type: 'text', text: '!' },
              ]
            : result.output;
        messages.push(
          !normal && result.extra
            ? { role: 'tool', tool_call_id: result.id, content, x_meta: { kept: true } }
            : { role: 'tool', tool_call_id: result.id, content },
        );
      }
    }
  });
  return messages;
}

export function toOpenAIResponses(spec: ConversationSpec, { normal }: Variant): unknown[] {
  const items: unknown[] = [];
  if (spec.system !== undefined)
    items.push(normal ? { role: 'system', content: spec.system } : { role: 'developer', content: spec.system });
  spec.turns.forEach((value, turnIndex) => {
    const calls = eachCall(value, turnIndex);
    items.push(
      !normal && value.image
        ? {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: value.user },
              { type: 'input_image', image_url: IMAGE_URL, detail: 'auto' },
            ],
          }
        : { role: 'user', content: value.user },
    );
    if (calls.length > 0 && !normal)
      items.push({ type: 'reasoning', id: `rs_${turnIndex}`, summary: [{ type: 'summary_text', text: value.reply }] });
    for (const { id, name, args: input } of calls)
      items.push({ type: 'function_call', call_id: id, name, arguments: JSON.stringify(input) });
    for (const result of calls) {
      const output =
        !normal && result.multiPart
          ? [
              { type: 'input_text', text: result.output },
              { type: 'input_image', image_url: IMAGE_URL, detail: 'low' },
            ]
          : result.output;
      items.push(
        !normal && result.extra
          ? { type: 'function_call_output', call_id: result.id, output, id: `fco_${result.id}`, status: 'completed' }
          : { type: 'function_call_output', call_id: result.id, output },
      );
    }
    items.push(
      normal
        ? { role: 'assistant', content: value.reply }
        : {
            type: 'message',
            id: `msg_${turnIndex}`,
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: value.reply, annotations: [] }],
          },
    );
  });
  return items;
}

export function toOpenAIAgents(spec: ConversationSpec, { normal }: Variant): unknown[] {
  const items: unknown[] = [];
  if (spec.system !== undefined) items.push({ role: 'system', content: spec.system });
  spec.turns.forEach((value, turnIndex) => {
    const calls = eachCall(value, turnIndex);
    items.push(
      !normal && value.image
        ? {
            role: 'user',
            content: [
              { type: 'input_text', text: value.user },
              { type: 'input_image', image: IMAGE_URL },
            ],
          }
        : { role: 'user', content: value.user },
    );
    for (const { id, name, args: input } of calls)
      items.push({ type: 'function_call', callId: id, name, arguments: JSON.stringify(input) });
    for (const result of calls) {
      const output = !normal && result.multiPart ? { type: 'text', text: result.output } : result.output;
      const item = { type: 'function_call_result', callId: result.id, name: result.name, status: 'completed', output };
      items.push(!normal && result.extra ? { ...item, providerData: { kept: true } } : item);
    }
    items.push({ role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: value.reply }] });
  });
  return items;
}

export function toAiSdk(spec: ConversationSpec, { normal }: Variant): unknown[] {
  const messages: unknown[] = [];
  if (spec.system !== undefined) messages.push({ role: 'system', content: spec.system });
  spec.turns.forEach((value, turnIndex) => {
    const calls = eachCall(value, turnIndex);
    messages.push(
      !normal && value.image
        ? {
            role: 'user',
            content: [
              { type: 'text', text: value.user },
              { type: 'image', image: new URL(IMAGE_URL) },
            ],
          }
        : { role: 'user', content: value.user },
    );
    if (calls.length === 0) {
      messages.push({ role: 'assistant', content: value.reply });
      return;
    }
    messages.push({
      role: 'assistant',
      content: [
        ...(normal ? [] : [{ type: 'reasoning', text: value.reply }]),
        { type: 'text', text: value.reply },
        ...calls.map(({ id, name, args: input }) => ({ type: 'tool-call', toolCallId: id, toolName: name, input })),
      ],
    });
    messages.push({
      role: 'tool',
      content: calls.map((result) => {
        let output: unknown = { type: result.error ? 'error-text' : 'text', value: result.output };
        if (!normal && result.multiPart)
          output = result.error
            ? { type: 'error-json', value: { message: result.output } }
            : {
                type: 'content',
                value: [
                  { type: 'text', text: result.output },
                  { type: 'image-data', data: 'AAAA', mediaType: 'image/png' },
                ],
              };
        const part = { type: 'tool-result', toolCallId: result.id, toolName: result.name, output };
        return !normal && result.extra ? { ...part, providerOptions: { test: { kept: true } } } : part;
      }),
    });
  });
  return messages;
}

export function toLangchain(spec: ConversationSpec, { normal }: Variant): BaseMessage[] {
  const messages: BaseMessage[] = [];
  if (spec.system !== undefined) messages.push(new SystemMessage(spec.system));
  spec.turns.forEach((value, turnIndex) => {
    const calls = eachCall(value, turnIndex);
    messages.push(
      new HumanMessage(
        !normal && value.image
          ? {
              content: [
                { type: 'text', text: value.user },
                { type: 'image_url', image_url: { url: IMAGE_URL } },
              ],
            }
          : value.user,
      ),
    );
    messages.push(
      new AIMessage({
        content: value.reply,
        tool_calls: calls.map(({ id, name, args: input }) => ({ id, name, args: input, type: 'tool_call' as const })),
      }),
    );
    for (const result of calls) {
      messages.push(
        new ToolMessage({
          content: !normal && result.multiPart ? [{ type: 'text', text: result.output }] : result.output,
          tool_call_id: result.id,
          name: result.name,
          ...(result.error ? { status: 'error' as const } : {}),
          ...(!normal && result.extra ? { artifact: { kept: true } } : {}),
        }),
      );
    }
  });
  return messages;
}

/** Gemini contents: calls without ids (as the API sends them), responses with the client's ids in the extras. */
export function toGemini(spec: ConversationSpec, { normal }: Variant): unknown[] {
  const contents: unknown[] = [];
  spec.turns.forEach((value, turnIndex) => {
    const calls = eachCall(value, turnIndex);
    const userParts: unknown[] = [{ text: value.user }];
    if (!normal && value.image) userParts.push({ inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } });
    contents.push({ role: 'user', parts: userParts });
    if (calls.length > 0) {
      contents.push({
        role: 'model',
        parts: calls.map(({ name, args: input, extra }) =>
          !normal && extra
            ? { functionCall: { name, args: input }, thoughtSignature: 'c2ln' }
            : { functionCall: { name, args: input } },
        ),
      });
      contents.push({
        role: 'user',
        parts: calls.map((result) => {
          const response =
            result.error && (normal || !result.multiPart)
              ? { error: result.output }
              : !normal && result.multiPart
                ? { output: result.output, exitCode: 0 }
                : { output: result.output };
          return !normal && result.extra
            ? { functionResponse: { id: `${result.name}-${result.id}`, name: result.name, response } }
            : { functionResponse: { name: result.name, response } };
        }),
      });
    }
    contents.push({ role: 'model', parts: [{ text: value.reply }] });
  });
  return contents;
}
