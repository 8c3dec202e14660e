/**
 * `agent-context-offload/node`: the Node.js implementations of the ports for your own
 * composition: the file reader of restoration and the default token counter (o200k_base through
 * gpt-tokenizer). Offloaded content is written through a store (`createFileStore` at the
 * package root); a `FileWriter` of your own goes to the `...WithWriter` entry points.
 *
 * @packageDocumentation
 */
export { NodeFileReader, createNodeFileReader } from './infrastructure/node-file-reader.js';
export { defaultTokenCounter } from './infrastructure/tokenizer.js';
