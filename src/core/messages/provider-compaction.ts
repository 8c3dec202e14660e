/**
 * The providers' own compaction: a block a provider wrote in place of the history it compacted
 * (Anthropic's `compaction` content block, an OpenAI Responses `compaction` item with its
 * `encrypted_content`). Such a block is the head of the history: it is kept byte for byte,
 * nothing before it is offloaded or compacted again, and no summary of ours spans it.
 */
import type { ContentBlock, Message } from '../types.js';

/** Anthropic's block: every block before it in the history is dropped by the API itself. */
const ANTHROPIC_COMPACTION = 'compaction';
/** The suffix of a format's opaque block holding a compaction item (`openai-responses:compaction`). */
const OPAQUE_COMPACTION_SUFFIX = ':compaction';

/** The head of a history: the newest message holding a provider's compaction block. */
export interface ProviderCompactionHead {
  /** The index of that message. */
  index: number;
  /**
   * Whether the provider drops the messages before it (Anthropic, unless its block's content is
   * null: a failed compaction); OpenAI's compacted window keeps the user messages before its
   * compaction item, and the model reads them.
   */
  dropsEarlier: boolean;
}

/** Whether `block` is a provider's compaction block (Anthropic's, or a format's opaque compaction item). */
function isProviderCompactionBlock(block: ContentBlock): boolean {
  if (typeof block !== 'object' || block === null) return false;
  const type = (block as { type?: unknown }).type;
  return typeof type === 'string' && (type === ANTHROPIC_COMPACTION || type.endsWith(OPAQUE_COMPACTION_SUFFIX));
}

/** The compaction blocks of `message`, in order (none for string content). */
function compactionBlocksOf(message: Message): ContentBlock[] {
  return typeof message.content === 'string' ? [] : message.content.filter(isProviderCompactionBlock);
}

/**
 * The head of `messages`: the newest message holding a provider's compaction block, or
 * `undefined` when none does.
 */
export function findProviderCompactionHead(messages: readonly Message[]): ProviderCompactionHead | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const blocks = compactionBlocksOf(messages[index] as Message);
    if (blocks.length === 0) continue;
    // a block with null content is a compaction that failed, which the API takes as a no-op: it drops nothing
    const dropsEarlier = blocks.some(
      (block) =>
        (block as { type?: unknown }).type === ANTHROPIC_COMPACTION &&
        typeof (block as { content?: unknown }).content === 'string',
    );
    return { index, dropsEarlier };
  }
  return undefined;
}

/** The text a provider's compaction blocks in `message` show the model (Anthropic's `content`; an encrypted item shows none we can read). */
export function readProviderCompactionText(message: Message): string {
  let text = '';
  for (const block of compactionBlocksOf(message)) {
    const content = (block as { content?: unknown }).content;
    if (typeof content === 'string') text += content;
  }
  return text;
}
