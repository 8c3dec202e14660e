/**
 * Request bodies a client compressed (`content-encoding: gzip`, `deflate`, `br`, or `zstd`, which
 * Codex sends): decoded before the history is read, and forwarded decoded. Decoding stops at the
 * proxy's body limit, so a small compressed body cannot unfold into gigabytes. zstd is decoded
 * by Node's own decoder where it has one (22.15 and later), else by `fzstd` (a small pure-JS
 * decoder). An encoding the proxy does not know is passed through unmanaged, as it came.
 */
import * as zlib from 'node:zlib';
import { Decompress } from 'fzstd';

/** Decodes a whole buffer, its output stopped at `maxOutputLength` bytes (an error past it). */
type Decode = (input: Buffer, options: { maxOutputLength: number }) => Promise<Buffer>;

function promisify(
  decode: (
    input: Buffer,
    options: { maxOutputLength: number },
    done: (error: Error | null, result: Buffer) => void,
  ) => void,
): Decode {
  return (input, options) =>
    new Promise((resolve, reject) =>
      decode(input, options, (error, result) => (error === null ? resolve(result) : reject(error))),
    );
}

/** Node's zstd decoder, where this Node has one (22.15 and later). */
const nodeZstd = (zlib as unknown as Record<string, unknown>).zstdDecompress as
  | ((input: Buffer, options: { maxOutputLength: number }, done: (error: Error | null, result: Buffer) => void) => void)
  | undefined;

/** zstd in JavaScript, stopped (as Node's decoders stop) once its output passes `maxOutputLength`. */
const decodeZstdInJs: Decode = async (input, { maxOutputLength }) => {
  const chunks: Buffer[] = [];
  let total = 0;
  const stream = new Decompress((chunk) => {
    total += chunk.length;
    if (total > maxOutputLength)
      throw Object.assign(new RangeError(`zstd output over ${maxOutputLength} bytes`), {
        code: 'ERR_BUFFER_TOO_LARGE',
      });
    chunks.push(Buffer.from(chunk));
  });
  stream.push(input, true);
  return Buffer.concat(chunks, total);
};

const DECODERS: Readonly<Record<string, Decode | undefined>> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
  zstd: nodeZstd === undefined ? decodeZstdInJs : promisify(nodeZstd),
};

/** What became of a request body's `content-encoding`. */
export type DecodedBody =
  /** The body as it came (no encoding, or `identity`). */
  | { kind: 'plain'; body: Buffer }
  /** The body decoded: it goes on without its `content-encoding`. */
  | { kind: 'decoded'; body: Buffer }
  /** An encoding this Node cannot decode, named in lower case: the request passes through unmanaged. */
  | { kind: 'unsupported'; encoding: string }
  /** Decoded, it is over `maxBytes`. */
  | { kind: 'too-large' }
  /** The bytes are not what their encoding says. */
  | { kind: 'invalid'; encoding: string; error: unknown };

/**
 * Decodes `body` by its `content-encoding` header (several encodings are undone last first),
 * stopping past `maxBytes` of output.
 */
export async function decodeRequestBody(
  body: Buffer,
  contentEncoding: string | undefined,
  maxBytes: number,
): Promise<DecodedBody> {
  const encodings = (contentEncoding ?? '')
    .split(',')
    .map((encoding) => encoding.trim().toLowerCase())
    .filter((encoding) => encoding !== '' && encoding !== 'identity');
  if (encodings.length === 0) return { kind: 'plain', body };
  for (const encoding of encodings) if (DECODERS[encoding] === undefined) return { kind: 'unsupported', encoding };
  let decoded = body;
  for (const encoding of encodings.reverse()) {
    try {
      decoded = await (DECODERS[encoding] as Decode)(decoded, { maxOutputLength: maxBytes });
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') return { kind: 'too-large' };
      return { kind: 'invalid', encoding, error };
    }
  }
  return { kind: 'decoded', body: decoded };
}
