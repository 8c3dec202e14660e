/**
 * LangChain.js histories as JSON files hold them. LangChain messages are class instances; on
 * disk they take one of two forms: what `JSON.stringify` writes (`toJSON()`:
 * `{ lc: 1, type: 'constructor', id: [..., 'HumanMessage'], kwargs }`, read back with `load`)
 * or what a chat history store keeps (`mapChatMessagesToStoredMessages`: `{ type: 'human',
 * data }`, read back with `mapStoredMessagesToChatMessages`). The format adapter builds a new
 * message (a summary, a restored file) as a plain message-like `{ type: 'human', content }`;
 * in a file of one of those forms it is rewritten in that form, so LangChain's own loader
 * reads the whole file back.
 */
import { isRecord } from '../fields.js';

/** The on-disk forms of a LangChain message. */
type LangchainJsonForm = 'serialized' | 'stored';

/** Message kind (`_getType()`) -> class name, as `toJSON()` names it. */
const CLASS_OF_KIND: Readonly<Record<string, string>> = {
  human: 'HumanMessage',
  ai: 'AIMessage',
  system: 'SystemMessage',
  tool: 'ToolMessage',
  generic: 'ChatMessage',
  function: 'FunctionMessage',
  remove: 'RemoveMessage',
};

function formOf(item: unknown): LangchainJsonForm | undefined {
  if (!isRecord(item)) return undefined;
  if (item.lc === 1 && item.type === 'constructor' && isRecord(item.kwargs)) return 'serialized';
  if (typeof item.type === 'string' && isRecord(item.data) && !('content' in item)) return 'stored';
  return undefined;
}

/** A plain message-like (`{ type: 'human', content, ... }`) of a kind LangChain serializes. */
function isPlainMessage(item: unknown): item is Record<string, unknown> & { type: string } {
  return (
    isRecord(item) &&
    typeof item.type === 'string' &&
    item.type in CLASS_OF_KIND &&
    'content' in item &&
    formOf(item) === undefined
  );
}

function toForm(item: Record<string, unknown> & { type: string }, form: LangchainJsonForm): Record<string, unknown> {
  const { type, ...fields } = item;
  if (form === 'stored') return { type, data: fields };
  return { lc: 1, type: 'constructor', id: ['langchain_core', 'messages', CLASS_OF_KIND[type]], kwargs: fields };
}

/**
 * `written` with every plain message-like rewritten in the form all of `original` is in
 * (`serialized` or `stored`); unchanged when the original mixes forms or uses neither.
 */
export function matchLangchainJsonForm(written: readonly unknown[], original: readonly unknown[]): unknown[] {
  const forms = new Set(original.map(formOf));
  const [form] = forms;
  if (forms.size !== 1 || form === undefined) return [...written];
  return written.map((item) => (isPlainMessage(item) ? toForm(item, form) : item));
}
