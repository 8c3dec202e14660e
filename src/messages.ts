/**
 * `agent-context-offload/messages`: checks and guards for the message shape the package
 * works on, the test for offloaded content's reference, the message formats (`formats`,
 * `resolveFormat`, `detectFormat`, `createLangchainFormat`), and the session a history names
 * (`deriveSessionId`).
 *
 * @packageDocumentation
 */
export { isTextBlock, isThinkingBlock, isToolResultBlock, isToolUseBlock } from './core/types.js';
export { assertMessages } from './core/messages/validate-messages.js';
export { isSafePathSegment } from './core/store/safe-path.js';
export { isOffloadReference } from './core/offload/offload-reference.js';
export { formats, createLangchainFormat, detectFormat, resolveFormat } from './formats/index.js';
export { deriveSessionId, type DeriveSessionIdOptions } from './api/session-id.js';
