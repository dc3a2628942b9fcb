/**
 * Bytes of an uploaded CSV file to text. Spreadsheets save CSV in whatever the user's Windows
 * locale says: Excel's "CSV UTF-8" has a BOM, plain "CSV" is Windows-1250 on Polish (Central
 * European) systems and Windows-1252 on Western ones, and some tools write UTF-16. Users cannot
 * be asked which, so the encoding is sniffed from the first 64 KB and the rest is decoded as it
 * streams in.
 */

export type CsvEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1250' | 'windows-1252';

export interface DetectedEncoding {
  encoding: CsvEncoding;
  /** Bytes of byte order mark at the start of the file (not text). */
  bomLength: number;
}

/** Bytes looked at before deciding the encoding. */
export const SNIFF_BYTES = 64 * 1024;

/**
 * The file was taken for UTF-8 (its first 64 KB were valid UTF-8) but later bytes are not: most
 * likely a Windows-1250/1252 file whose first accented letter comes late. Decoding on would put
 * replacement characters into names, so the import stops and says how to fix the file.
 */
export class CsvEncodingError extends Error {
  override readonly name = 'CsvEncodingError';

  constructor() {
    super('The file is not valid UTF-8 text: its beginning looks like UTF-8 but later characters do not. Save it as "CSV UTF-8" and upload it again.');
  }
}

/**
 * The file is not text: an image, a PDF, a workbook or other binary data renamed .csv (known
 * magic numbers at its start; NUL bytes anywhere; many control characters in its head). Such a
 * file would otherwise be read as some 8-bit encoding into rows of garbage, and a NUL cannot be
 * stored in a text column at all.
 */
export class CsvBinaryError extends Error {
  override readonly name = 'CsvBinaryError';

  constructor(what: string) {
    super(`The file is not CSV text: it looks like ${what}. Save the data as CSV (comma-separated values) and upload that file.`);
  }
}

/** Known starts of binary files, and what to call them. */
const MAGIC_NUMBERS: ReadonlyArray<[bytes: readonly number[], what: string]> = [
  [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG image'],
  [[0xff, 0xd8, 0xff], 'a JPEG image'],
  [[0x47, 0x49, 0x46, 0x38], 'a GIF image'],
  [[0x25, 0x50, 0x44, 0x46, 0x2d], 'a PDF document'],
  [[0x50, 0x4b, 0x03, 0x04], 'a ZIP archive (an Excel .xlsx workbook is one)'],
  [[0x50, 0x4b, 0x05, 0x06], 'a ZIP archive'],
  [[0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], 'an Excel 97-2003 workbook or another Office document'],
  [[0x1f, 0x8b], 'a gzip archive'],
  [[0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], 'a 7-Zip archive'],
  [[0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], 'a RAR archive'],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], 'an XZ archive'],
  [[0x28, 0xb5, 0x2f, 0xfd], 'a Zstandard archive'],
  [[0x7f, 0x45, 0x4c, 0x46], 'a program'],
];

/** Binary data, as read in its first bytes (`head`, decoded as `detected` says); null for text. */
export function binaryContent(head: Uint8Array, detected: DetectedEncoding): string | null {
  for (const [magic, what] of MAGIC_NUMBERS) {
    if (head.length >= magic.length && magic.every((byte, k) => head[k] === byte)) return what;
  }
  const text = new TextDecoder(detected.encoding, { ignoreBOM: true }).decode(head.subarray(detected.bomLength));
  if (text.includes('\u0000')) return 'binary data (it has NUL bytes)';
  // Control characters other than tab, line breaks and form feed: a stray one happens (an old
  // DOS end-of-file mark), random bytes give one in nine.
  // eslint-disable-next-line no-control-regex
  const controls = text.match(/[\u0001-\u0008\u000b\u000e-\u001f\u007f]/g)?.length ?? 0;
  if (controls > 8 && controls * 100 > text.length) return 'binary data (it has control characters)';
  return null;
}

/**
 * The encoding of a file from its first bytes (`head`, up to `SNIFF_BYTES`; it may end in the
 * middle of a character). In order: a byte order mark; UTF-16 without one (NUL bytes at every
 * other position); valid UTF-8 (plain ASCII included, which reads the same in every candidate);
 * else Windows-1250 or Windows-1252 by `looksCentralEuropean`.
 */
export function detectEncoding(head: Uint8Array): DetectedEncoding {
  const bom = bomOf(head);
  if (bom) return bom;
  const utf16 = utf16ByNuls(head);
  if (utf16) return { encoding: utf16, bomLength: 0 };
  if (isUtf8(head)) return { encoding: 'utf-8', bomLength: 0 };
  return { encoding: looksCentralEuropean(head) ? 'windows-1250' : 'windows-1252', bomLength: 0 };
}

function bomOf(head: Uint8Array): DetectedEncoding | null {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', bomLength: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bomLength: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bomLength: 2 };
  return null;
}

/**
 * UTF-16 without a BOM. CSV text is mostly ASCII (digits, delimiters, header names), which in
 * UTF-16 is a NUL byte next to every character: at odd offsets in little endian, at even ones in
 * big endian. Text in the 8-bit encodings has no NUL bytes at all. A third of the code units
 * being ASCII is plenty for any CSV, so that is the threshold, and the other half must be
 * (nearly) free of NULs.
 */
function utf16ByNuls(head: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  const units = head.length >> 1;
  if (units === 0) return null;
  let evenNuls = 0;
  let oddNuls = 0;
  for (let i = 0; i + 1 < head.length; i += 2) {
    if (head[i] === 0) evenNuls++;
    if (head[i + 1] === 0) oddNuls++;
  }
  const many = units / 3;
  const few = units / 20;
  if (oddNuls >= many && evenNuls <= few) return 'utf-16le';
  if (evenNuls >= many && oddNuls <= few) return 'utf-16be';
  return null;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Whether `head` is valid UTF-8, forgiving a character cut off by the end of the head. */
function isUtf8(head: Uint8Array): boolean {
  try {
    strictUtf8.decode(head.subarray(0, completeUtf8Length(head)));
    return true;
  } catch {
    return false;
  }
}

/**
 * Length of `bytes` without a trailing, incomplete UTF-8 sequence: the head is cut at 64 KB
 * wherever that falls, and a 2-4 byte character split there is not a reason to doubt UTF-8.
 * Looks back over at most three continuation bytes to the lead byte and drops the sequence if it
 * is shorter than the lead byte announces.
 */
function completeUtf8Length(bytes: Uint8Array): number {
  const end = bytes.length;
  let lead = end - 1;
  while (lead >= 0 && lead >= end - 4 && ((bytes[lead] as number) & 0xc0) === 0x80) lead--;
  if (lead < 0 || lead < end - 4) return end;
  const byte = bytes[lead] as number;
  const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return lead + length > end ? lead : end;
}

/**
 * Bytes that are letters in Windows-1250 but symbols, unassigned or rare letters in
 * Windows-1252: ą Ą ł Ł ś Ś ź Ź ż Ż (Polish), ť Ť ľ Ľ (Czech, Slovak). In Western text
 * they read ¹ ¥ ³ £ œ Œ Ÿ (undefined) ¿ ¯ (undefined) ¼ ¾.
 */
const CENTRAL_EUROPEAN_LETTERS = new Set([0xb9, 0xa5, 0xb3, 0xa3, 0x9c, 0x8c, 0x9f, 0x8f, 0xbf, 0xaf, 0x9d, 0x8d, 0xbe, 0xbc]);

/**
 * Bytes that are common letters in Western languages (à è ì ò ù ã õ å ø æ and capitals: French,
 * Italian, Spanish, Portuguese, Nordic) and never appear in Polish text, where Windows-1250 has
 * ŕ č ě ň ů ă ő ĺ ř ć... at the same positions. Letters shared by both code pages (é ó ü ö ß)
 * are no evidence either way.
 */
const WESTERN_LETTERS = new Set([0xc0, 0xc8, 0xcc, 0xd2, 0xd9, 0xc3, 0xd5, 0xc5, 0xd8, 0xe0, 0xe8, 0xec, 0xf2, 0xf9, 0xe3, 0xf5, 0xe5, 0xf8]);

/**
 * Windows-1250 or Windows-1252, for a head that is not UTF-8. Each byte from either set above
 * counts as a vote, but only inside a word (next to an ASCII letter or another non-ASCII byte):
 * '£12.50' and '5³' are a Western currency sign and a superscript, 'Łódź' is Polish. More
 * Central European votes than Western ones mean Windows-1250; ties (including no evidence at
 * all) mean Windows-1252, the more common default. Tuned for Polish: Czech, where č ě ř ů sit on
 * the Western letters, reads as Windows-1252 unless it has ť/ľ; such files should be UTF-8.
 */
function looksCentralEuropean(head: Uint8Array): boolean {
  let central = 0;
  let western = 0;
  for (let i = 0; i < head.length; i++) {
    const byte = head[i] as number;
    if (byte < 0x80) continue;
    const isCentral = CENTRAL_EUROPEAN_LETTERS.has(byte);
    const isWestern = WESTERN_LETTERS.has(byte);
    if (!isCentral && !isWestern) continue;
    if (!isWordByte(head[i - 1]) && !isWordByte(head[i + 1])) continue;
    if (isCentral) central++;
    else western++;
  }
  return central > western;
}

/** An ASCII letter or any non-ASCII byte (part of a word in an 8-bit code page). */
function isWordByte(byte: number | undefined): boolean {
  if (byte === undefined) return false;
  return byte >= 0x80 || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
}

/**
 * The text of a file streamed as byte chunks, in chunks. Reads up to `SNIFF_BYTES` first to
 * detect the encoding (the only part held at once), then decodes chunk by chunk; the streaming
 * `TextDecoder` carries characters split between chunks over. The byte order mark is dropped.
 * UTF-8 is decoded strictly: see `CsvEncodingError`. `onEncoding` hears what was detected
 * (before the first text), for the import's record of the file.
 */
/** Most bytes decoded (and so parsed) at once. */
const DECODE_SLICE_BYTES = 1024 * 1024;

export async function* decodeText(source: AsyncIterable<Uint8Array>, onEncoding?: (detected: DetectedEncoding) => void): AsyncGenerator<string> {
  const iterator = source[Symbol.asyncIterator]();
  const { bytes: head, done } = await readHead(iterator, SNIFF_BYTES);
  const detected = detectEncoding(head);
  const binary = binaryContent(head, detected);
  if (binary) {
    if (!done) await iterator.return?.();
    throw new CsvBinaryError(binary);
  }
  onEncoding?.(detected);
  const { encoding, bomLength } = detected;
  const decoder = new TextDecoder(encoding, { fatal: encoding === 'utf-8', ignoreBOM: true });
  const decode = (bytes?: Uint8Array, stream = true): string => {
    let text: string;
    try {
      text = bytes ? decoder.decode(bytes, { stream }) : decoder.decode();
    } catch (error) {
      if (error instanceof TypeError) throw new CsvEncodingError();
      throw error;
    }
    // Binary data after a text head: no text column could hold it.
    if (text.includes('\u0000')) throw new CsvBinaryError('binary data (it has NUL bytes)');
    return text;
  };

  // Large chunks (a stored file's are 8 MB) are decoded a slice at a time: the reader parses
  // what it is given at once, and a slice's rows are what it holds in memory.
  function* slices(bytes: Uint8Array): Generator<string> {
    for (let at = 0; at < bytes.length; at += DECODE_SLICE_BYTES) {
      const text = decode(bytes.subarray(at, at + DECODE_SLICE_BYTES));
      if (text) yield text;
    }
  }
  let finished = done;
  try {
    yield* slices(head.subarray(bomLength));
    while (!finished) {
      const next = await iterator.next();
      if (next.done) finished = true;
      else yield* slices(next.value);
    }
    const rest = decode();
    if (rest) yield rest;
  } finally {
    // A consumer that stops early (an error in row 3) releases the file it was reading.
    if (!finished) await iterator.return?.();
  }
}

/**
 * Chunks from `iterator` until at least `size` bytes (or the end), joined. The last chunk is
 * taken whole, so the head may be a little longer than `size`.
 */
async function readHead(iterator: AsyncIterator<Uint8Array>, size: number): Promise<{ bytes: Uint8Array; done: boolean }> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  while (length < size) {
    const next = await iterator.next();
    if (next.done) return { bytes: concat(chunks, length), done: true };
    chunks.push(next.value);
    length += next.value.length;
  }
  return { bytes: concat(chunks, length), done: false };
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}
