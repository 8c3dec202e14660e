import { groupDigits } from '../../core/text/figures.js';
import { formatPercent } from './format-figures.js';

/** The plan figures the explanation needs (from `planOffload`). */
export interface OffloadSkipFigures {
  skippedReason: string | null;
  charThreshold: number;
  ratioThreshold: number;
  ratio: number;
  candidateCount: number;
}

/** Explains a skip, e.g. `the 3 results that qualify are 12.0% of the history, below the ratio threshold (20.0%)`. */
export function describeOffloadSkip(figures: OffloadSkipFigures): string {
  switch (figures.skippedReason) {
    case 'no-content':
      return 'the history holds no text';
    case 'nothing-to-offload':
      return `no tool result has ${groupDigits(figures.charThreshold)} chars or more (char threshold)`;
    case 'below-ratio-threshold':
      return `the ${groupDigits(figures.candidateCount)} results that qualify are ${formatPercent(figures.ratio)} of the history, below the ratio threshold (${formatPercent(figures.ratioThreshold)})`;
    default:
      return String(figures.skippedReason);
  }
}
