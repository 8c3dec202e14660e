/**
 * Loads LangChain lazily: the subpath `agent-context-offload/langchain` imports nothing from it
 * at load time (types only), so importing the subpath without LangChain installed works until a
 * middleware is created. What is loaded is what the middleware builds with: `createMiddleware`,
 * `tool`, and the message classes (fresh messages must be real instances, not look-alikes).
 */
import type { createMiddleware } from 'langchain';
import type { AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import type { tool } from '@langchain/core/tools';
import { importOptionalPeer, MissingDependencyError, type SdkImporter } from '../../core/errors.js';

/** The pieces of LangChain the middleware is built from. */
export interface LangchainModules {
  createMiddleware: typeof createMiddleware;
  tool: typeof tool;
  AIMessage: typeof AIMessage;
  HumanMessage: typeof HumanMessage;
  SystemMessage: typeof SystemMessage;
  ToolMessage: typeof ToolMessage;
  RemoveMessage: typeof RemoveMessage;
}

/** How each package is imported; tests pass importers that fail, to check the error. */
export interface LangchainImporters {
  langchain: SdkImporter;
  messages: SdkImporter;
  tools: SdkImporter;
}

const DEFAULT_IMPORTERS: LangchainImporters = {
  langchain: () => import('langchain'),
  messages: () => import('@langchain/core/messages'),
  tools: () => import('@langchain/core/tools'),
};

const PURPOSE = 'agent-context-offload/langchain';

function pick<T>(module: unknown, name: string, packageName: string): T {
  const value = (module as Record<string, unknown> | null)?.[name];
  if (typeof value !== 'function') {
    throw new MissingDependencyError(`${packageName} was loaded but exports no ${name}; install a supported version: \`npm install langchain@1 @langchain/core@1\``);
  }
  return value as T;
}

let loaded: Promise<LangchainModules> | undefined;

/**
 * Imports `langchain`, `@langchain/core/messages` and `@langchain/core/tools` (once per process
 * with the default importers).
 *
 * @throws {MissingDependencyError} when one is not installed, or lacks an export it needs.
 */
export function loadLangchainModules(importers?: LangchainImporters): Promise<LangchainModules> {
  if (importers !== undefined) return importLangchainModules(importers);
  // A failed load is not cached: installing the package and trying again must work.
  loaded ??= importLangchainModules(DEFAULT_IMPORTERS).catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded;
}

async function importLangchainModules(importers: LangchainImporters): Promise<LangchainModules> {
  const [langchain, messages, tools] = await Promise.all([
    importOptionalPeer('langchain', importers.langchain, PURPOSE),
    importOptionalPeer('@langchain/core', importers.messages, PURPOSE),
    importOptionalPeer('@langchain/core', importers.tools, PURPOSE),
  ]);
  return {
    createMiddleware: pick<typeof createMiddleware>(langchain, 'createMiddleware', 'langchain'),
    tool: pick<typeof tool>(tools, 'tool', '@langchain/core/tools'),
    AIMessage: pick<typeof AIMessage>(messages, 'AIMessage', '@langchain/core/messages'),
    HumanMessage: pick<typeof HumanMessage>(messages, 'HumanMessage', '@langchain/core/messages'),
    SystemMessage: pick<typeof SystemMessage>(messages, 'SystemMessage', '@langchain/core/messages'),
    ToolMessage: pick<typeof ToolMessage>(messages, 'ToolMessage', '@langchain/core/messages'),
    RemoveMessage: pick<typeof RemoveMessage>(messages, 'RemoveMessage', '@langchain/core/messages'),
  };
}
