/**
 * The page of `agent-context replay --html`, written by the built CLI and opened in a real
 * headless Chromium (Debian's `chromium` package; skipped, with the reason printed, only where
 * /usr/bin/chromium does not exist). Part of `npm run test:processes`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumMissing, runChromium } from '../../fixtures/chromium.js';
import { createTemporaryDirectory, REPOSITORY_ROOT, runCli } from './cli-helpers.js';

const SAMPLE = join(REPOSITORY_ROOT, 'src/cli/sample/session.json');

let directory: { path: string; remove: () => Promise<void> };

beforeEach(async () => {
  directory = await createTemporaryDirectory('aco-cli-replay-browser-');
});
afterEach(async () => {
  await directory.remove();
});

/** The pixels of an 8-bit RGB or RGBA PNG (non-interlaced), decoded with node:zlib. */
function decodePng(png: Buffer): { width: number; height: number; channels: number; pixels: Buffer } {
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.subarray(offset + 4, offset + 8).toString('latin1');
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      expect(body[8]).toBe(8);
      channels = body[9] === 6 ? 4 : body[9] === 2 ? 3 : 0;
      expect(body[12]).toBe(0);
    } else if (type === 'IDAT') data.push(body);
    offset += 12 + length;
  }
  expect(channels).toBeGreaterThan(0);
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let row = 0; row < height; row += 1) {
    const filter = raw[row * (stride + 1)];
    for (let column = 0; column < stride; column += 1) {
      const value = raw[row * (stride + 1) + 1 + column] as number;
      const left = column >= channels ? (pixels[row * stride + column - channels] as number) : 0;
      const up = row > 0 ? (pixels[(row - 1) * stride + column] as number) : 0;
      const upLeft = row > 0 && column >= channels ? (pixels[(row - 1) * stride + column - channels] as number) : 0;
      let predictor = 0;
      if (filter === 1) predictor = left;
      else if (filter === 2) predictor = up;
      else if (filter === 3) predictor = Math.floor((left + up) / 2);
      else if (filter === 4) {
        const estimate = left + up - upLeft;
        const [toLeft, toUp, toUpLeft] = [
          Math.abs(estimate - left),
          Math.abs(estimate - up),
          Math.abs(estimate - upLeft),
        ];
        predictor = toLeft <= toUp && toLeft <= toUpLeft ? left : toUp <= toUpLeft ? up : upLeft;
      }
      pixels[row * stride + column] = (value + predictor) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

/** Pixels of exactly this colour. */
function countColor(
  image: ReturnType<typeof decodePng>,
  [red, green, blue]: readonly [number, number, number],
): number {
  let count = 0;
  for (let index = 0; index < image.pixels.length; index += image.channels) {
    if (image.pixels[index] === red && image.pixels[index + 1] === green && image.pixels[index + 2] === blue)
      count += 1;
  }
  return count;
}

if (chromiumMissing)
  console.warn(
    `[skipped] replay --html in a browser (tests/integration/cli/cli-replay-browser.test.ts): ${CHROMIUM} does not exist (apt-get install -y chromium)`,
  );

describe.skipIf(chromiumMissing)('agent-context replay --html in headless Chromium', () => {
  it('writes a page the browser renders with both curves, one point per request', { timeout: 120_000 }, async () => {
    const html = join(directory.path, 'report.html');
    const run = await runCli(['replay', SAMPLE, '--window', '2500', '--html', html]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(`chart: ${html}`);
    const dom = await runChromium(['--dump-dom', `file://${html}`], join(directory.path, 'chromium-dom'));
    expect(dom.exitCode, dom.stderr).toBe(0);
    for (const [chart, series] of [
      ['chart-both', 'without'],
      ['chart-both', 'with'],
      ['chart-managed', 'with'],
    ] as const) {
      const svg = dom.stdout.slice(dom.stdout.indexOf(`<svg id="${chart}"`));
      const points =
        new RegExp(`<polyline data-series="${series}"[^>]* points="([^"]*)"`).exec(svg)?.[1]?.split(' ') ?? [];
      expect(points, `${chart} ${series}`).toHaveLength(15);
    }
    expect(dom.stdout.match(/<circle class="compaction"/g)?.length).toBeGreaterThanOrEqual(2);

    const screenshot = join(directory.path, 'report.png');
    const shot = await runChromium(
      [`--screenshot=${screenshot}`, '--window-size=1200,800', '--hide-scrollbars', `file://${html}`],
      join(directory.path, 'chromium-shot'),
    );
    expect(shot.exitCode, shot.stderr).toBe(0);
    const image = decodePng(await readFile(screenshot));
    expect([image.width, image.height]).toEqual([1200, 800]);
    // both curves are drawn: pixels of each series' colour (#d97706 without, #0f766e with)
    expect(countColor(image, [0xd9, 0x77, 0x06])).toBeGreaterThan(500);
    expect(countColor(image, [0x0f, 0x76, 0x6e])).toBeGreaterThan(500);
    const colors = new Set<number>();
    for (let index = 0; index < image.pixels.length; index += image.channels) {
      colors.add(
        ((image.pixels[index] as number) << 16) |
          ((image.pixels[index + 1] as number) << 8) |
          (image.pixels[index + 2] as number),
      );
    }
    expect(colors.size).toBeGreaterThan(50);
  });
});
