/**
 * Ctrl-C during a command that waits on the library (`compact`, `replay`, `eval`): the first
 * SIGINT aborts the library's work through a signal, so that it stops between steps and the
 * command still cleans up (a temporary directory, the spinner) before it exits.
 */
import { CliError } from './errors.js';

/** Exit code after Ctrl-C, as shells report a process ended by SIGINT. */
const INTERRUPTED_EXIT_CODE = 130;

/** A SIGINT listener for one command's run. */
export interface Interruption {
  /** Aborted, with a `CliError('interrupted')` of exit code 130, when Ctrl-C is pressed. */
  signal: AbortSignal;
  /** Removes the listener: Ctrl-C is the default again (call it in a `finally`). */
  stop(): void;
}

/** Listens for the next SIGINT until {@link Interruption.stop} is called. */
export function listenForInterrupt(): Interruption {
  const controller = new AbortController();
  const interrupt = (): void => controller.abort(new CliError('interrupted', INTERRUPTED_EXIT_CODE));
  process.once('SIGINT', interrupt);
  return { signal: controller.signal, stop: () => process.removeListener('SIGINT', interrupt) };
}
