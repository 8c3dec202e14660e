/**
 * Feedback while an LLM writes the summary: a spinner on stderr, only on a terminal, loaded
 * (`ora`) only when a request starts, so that no other path pays for it.
 */
import type { CommandOutput } from './command-io.js';

/** Shows that a request is in flight. */
export interface LlmActivity {
  /** Starts (or updates) the spinner with `text`. */
  start(text: string): Promise<void>;
  /** Stops the spinner and clears its line. */
  stop(): void;
  /** Writes a line to stderr without garbling the spinner. */
  writeLine(line: string): void;
}

interface SpinnerLike {
  text: string;
  isSpinning: boolean;
  start(): unknown;
  stop(): unknown;
  clear(): unknown;
  render(): unknown;
}

/** The spinner on `stderr`: a real one on a terminal, nothing otherwise. */
export function createLlmActivity(stderr: CommandOutput): LlmActivity {
  // A terminal that reports no width (a pty without a size) would make the spinner redraw endlessly.
  const enabled = stderr.isTTY === true && (stderr.columns ?? 0) > 0;
  let spinner: SpinnerLike | undefined;
  return {
    async start(text) {
      if (!enabled) return;
      if (spinner === undefined) {
        const { default: ora } = await import('ora');
        // stdin stays untouched: it may be the transcript, and Ctrl-C must reach our handler.
        // ora moves the cursor with the methods a terminal stream (isTTY) has.
        spinner = ora({ text, stream: stderr as NodeJS.WriteStream, discardStdin: false }) as SpinnerLike;
      }
      spinner.text = text;
      if (!spinner.isSpinning) spinner.start();
    },
    stop() {
      spinner?.stop();
    },
    writeLine(line) {
      const spinning = spinner?.isSpinning === true;
      if (spinning) spinner?.clear();
      stderr.write(`${line}\n`);
      if (spinning) spinner?.render();
    },
  };
}
