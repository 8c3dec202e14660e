#!/usr/bin/env node
/**
 * `agent-context`: the command line over real transcripts. {@link runCommandLine} does the work
 * on the process's own streams; this file only ties it to the process.
 */
import { createProcessIo } from './command-io.js';
import { isBrokenPipe } from './io.js';
import { runCommandLine } from './run-command-line.js';

// A closed pipe also surfaces as an 'error' event; without a listener it would crash the process.
process.stdout.on('error', (error) => {
  if (!isBrokenPipe(error)) throw error;
});
// Set the exit code rather than exiting, so that pending writes to a pipe are flushed.
process.exitCode = await runCommandLine(process.argv.slice(2), createProcessIo());
