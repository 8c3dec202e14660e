/**
 * The generated parts of a docs page: text between `<!-- NAME:ID -->` and `<!-- /NAME:ID -->`,
 * as the option tables and the quoted command outputs are kept.
 */

/** How one kind of generated block is marked and named in errors. */
export interface BlockMarkers {
  /** The marker's name: `option-table`, `cli-output`. */
  name: string;
  /** What errors call a block: `option table`, `cli output`. */
  label: string;
  /** Whether an id is one the generator knows. @default every id */
  isKnown?: (id: string) => boolean;
}

/**
 * The blocks of `markdown`, markers included, by id.
 *
 * @throws {Error} on an unknown id, an unclosed or stray marker, or an id that appears twice.
 */
export function readMarkedBlocks(markdown: string, markers: BlockMarkers): Map<string, string> {
  const { name, label } = markers;
  const blocks = new Map<string, string>();
  let open: { id: string; start: number } | undefined;
  for (const match of markdown.matchAll(new RegExp(`<!-- (\\/?)${name}:([a-z0-9-]+) -->`, 'g'))) {
    const [marker, slash, id = ''] = match;
    if (markers.isKnown !== undefined && !markers.isKnown(id)) throw new Error(`unknown ${label} "${id}" in ${marker}`);
    if (slash === '') {
      if (open !== undefined) throw new Error(`${label} "${open.id}" is not closed before ${marker}`);
      open = { id, start: match.index };
      continue;
    }
    if (open?.id !== id) throw new Error(`${marker} closes no open ${label}`);
    if (blocks.has(id)) throw new Error(`${label} "${id}" appears twice`);
    blocks.set(id, markdown.slice(open.start, match.index + marker.length));
    open = undefined;
  }
  if (open !== undefined) throw new Error(`${label} "${open.id}" has no closing <!-- /${name}:${open.id} -->`);
  return blocks;
}
