/**
 * Colour, only where it helps: on a terminal, never when `NO_COLOR` is set (no-color.org) or
 * the output is piped or redirected. `FORCE_COLOR` (other than `0`) turns it on, as most
 * command lines do.
 */
import picocolors from 'picocolors';

/** The colour functions of one output stream; each returns its input unchanged when colour is off. */
export type TerminalStyle = ReturnType<typeof picocolors.createColors>;

/** A stream that may be a terminal. */
export interface OutputStream {
  isTTY?: boolean | undefined;
  columns?: number | undefined;
}

/** Whether to colour output written to `stream`, given the environment. */
export function isColorEnabled(
  stream: OutputStream,
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0';
  return stream.isTTY === true;
}

/** The style for `stream`: colours when {@link isColorEnabled}, plain text otherwise. */
export function createTerminalStyle(stream: OutputStream): TerminalStyle {
  return picocolors.createColors(isColorEnabled(stream));
}

/** Width to lay a report out in: the terminal's (capped for readability), or 100 when piped. */
export function measureLineWidth(stream: OutputStream): number {
  const columns = stream.isTTY === true ? stream.columns : undefined;
  return Math.max(60, Math.min(columns ?? 100, 120));
}
