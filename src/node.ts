/**
 * `agent-context-offload/node`: the Node.js implementations of the ports, for use with the
 * `...WithWriter` entry points or your own composition: the atomic file writer, the file
 * reader of restoration, and the default token counter (o200k_base through gpt-tokenizer).
 *
 * @packageDocumentation
 */
export { NodeFileWriter, createNodeFileWriter } from './infrastructure/node-file-writer.js';
export { NodeFileReader, createNodeFileReader } from './infrastructure/node-file-reader.js';
export { defaultTokenCounter } from './infrastructure/tokenizer.js';
