import { describe, expect, it } from 'vitest';
import { readFiguresSections, renderFiguresFile } from '../../../bench/figures-file.js';

const ORDER = ['offload', 'manager', 'integrations'];

describe('the bench figures file', () => {
  it("replaces the sections of the modules that ran and keeps the others' as they were", () => {
    const first = renderFiguresFile(
      '',
      [
        { name: 'manager', markdown: '## Context manager\n\n| a | 1 |' },
        { name: 'offload', markdown: '## Offload\n\n| b | 2 |' },
      ],
      ORDER,
    );
    const second = renderFiguresFile(first, [{ name: 'manager', markdown: '## Context manager\n\n| a | 3 |' }], ORDER);

    expect([...readFiguresSections(second)]).toEqual([
      ['offload', '## Offload\n\n| b | 2 |'],
      ['manager', '## Context manager\n\n| a | 3 |'],
    ]);
    expect(second.startsWith('# Benchmark figures\n')).toBe(true);
  });

  it('puts the sections in the order the bench runs its modules, whatever order they were written in', () => {
    const text = renderFiguresFile(
      renderFiguresFile('', [{ name: 'integrations', markdown: '## Integrations' }], ORDER),
      [{ name: 'offload', markdown: '## Offload' }],
      ORDER,
    );
    expect([...readFiguresSections(text).keys()]).toEqual(['offload', 'integrations']);
  });

  it('writes the same text again when nothing changed', () => {
    const text = renderFiguresFile('', [{ name: 'offload', markdown: '## Offload\n\n| b | 2 |' }], ORDER);
    expect(renderFiguresFile(text, [], ORDER)).toBe(text);
  });
});
