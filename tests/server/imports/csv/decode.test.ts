import { describe, expect, it } from 'vitest';
import { CsvBinaryError, CsvEncodingError, SNIFF_BYTES, decodeText, detectEncoding } from '../../../../server/imports/csv/decode';
import { chunked, collect, concatBytes, utf16, utf8, windows1250, windows1252 } from './sources';

const POLISH = 'Zażółć gęślą jaźń';
const POLISH_CAPITALS = 'ŁÓDŹ, ŚLĄSK, ŻÓŁW, ĆMA, ĘŃ';

async function decodeAll(source: AsyncIterable<Uint8Array>): Promise<string> {
  return (await collect(decodeText(source))).join('');
}

describe('detectEncoding', () => {
  it('reads a UTF-8 byte order mark', () => {
    expect(detectEncoding(concatBytes([0xef, 0xbb, 0xbf], utf8('a,b')))).toEqual({ encoding: 'utf-8', bomLength: 3 });
  });

  it('reads a UTF-16LE byte order mark', () => {
    expect(detectEncoding(utf16('a,b', 'le', true))).toEqual({ encoding: 'utf-16le', bomLength: 2 });
  });

  it('reads a UTF-16BE byte order mark', () => {
    expect(detectEncoding(utf16('a,b', 'be', true))).toEqual({ encoding: 'utf-16be', bomLength: 2 });
  });

  it('recognizes UTF-16LE without a BOM by the NUL byte after each ASCII character', () => {
    expect(detectEncoding(utf16(`Name;Kwota\n${POLISH};12,50\n`, 'le', false))).toEqual({ encoding: 'utf-16le', bomLength: 0 });
  });

  it('recognizes UTF-16BE without a BOM by the NUL byte before each ASCII character', () => {
    expect(detectEncoding(utf16(`Name;Kwota\n${POLISH};12,50\n`, 'be', false))).toEqual({ encoding: 'utf-16be', bomLength: 0 });
  });

  it('takes plain ASCII for UTF-8 (it reads the same in every candidate)', () => {
    expect(detectEncoding(utf8('id,amount\n1,12.50\n'))).toEqual({ encoding: 'utf-8', bomLength: 0 });
  });

  it('takes valid UTF-8 with multi-byte characters for UTF-8', () => {
    expect(detectEncoding(utf8(`${POLISH};€;😀`))).toEqual({ encoding: 'utf-8', bomLength: 0 });
  });

  it('does not doubt UTF-8 when the head ends in the middle of a character', () => {
    const bytes = utf8(`${'a'.repeat(100)}ż€😀`);
    for (let cut = 100; cut <= bytes.length; cut++) {
      expect(detectEncoding(bytes.subarray(0, cut)).encoding, `cut at ${cut}`).toBe('utf-8');
    }
  });

  it('recognizes a Windows-1250 Polish file by letters that only Windows-1250 has', () => {
    expect(detectEncoding(windows1250(`Klient;Miasto\n${POLISH};Kraków\n`))).toEqual({ encoding: 'windows-1250', bomLength: 0 });
    expect(detectEncoding(windows1250(POLISH_CAPITALS)).encoding).toBe('windows-1250');
  });

  it('recognizes Polish words with a single distinctive letter (ł) as Windows-1250', () => {
    expect(detectEncoding(windows1250('Pan Paweł;12,50\n')).encoding).toBe('windows-1250');
  });

  it('takes a Western file with letters both code pages share (é, ü) for Windows-1252, the default', () => {
    expect(detectEncoding(windows1252('Name,City\nCafé Müller,Köln\n'))).toEqual({ encoding: 'windows-1252', bomLength: 0 });
  });

  it('takes French, Italian and Nordic letters (è, à, ø, å) for Windows-1252', () => {
    expect(detectEncoding(windows1252('Crème brûlée à la carte;Søren Åberg;Perché\n')).encoding).toBe('windows-1252');
  });

  it('does not count a currency sign or superscript next to digits (£12, 5³) as Polish letters', () => {
    expect(detectEncoding(windows1252('Plan,Price,Size\nBasic,£12.50,5³\nPro,£99.00,¹2\n')).encoding).toBe('windows-1252');
  });
});

describe('decodeText', () => {
  it('decodes a large chunk a megabyte at a time, characters cut by a slice boundary included', async () => {
    // 'a' then 2-byte letters: every slice boundary falls inside a letter.
    const text = `a${'żółć'.repeat(400_000)}`;
    async function* one() {
      yield utf8(text);
    }
    const pieces = await collect(decodeText(one()));
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(1024 * 1024);
    expect(pieces.join('')).toBe(text);
  });

  it('drops the UTF-8 byte order mark', async () => {
    expect(await decodeAll(chunked(concatBytes([0xef, 0xbb, 0xbf], utf8('Name,€\n'))))).toBe('Name,€\n');
  });

  it.each(['le', 'be'] as const)('decodes UTF-16%s with and without a BOM, in odd-sized chunks', async (endian) => {
    const text = `Klient;Kwota\n${POLISH};12,50 zł\n😀;1\n`;
    expect(await decodeAll(chunked(utf16(text, endian, true), 3))).toBe(text);
    expect(await decodeAll(chunked(utf16(text, endian, false), 5))).toBe(text);
  });

  it('decodes a Windows-1250 Polish file', async () => {
    const text = `Klient;Miasto\n${POLISH};${POLISH_CAPITALS}\n`;
    expect(await decodeAll(chunked(windows1250(text), 4))).toBe(text);
  });

  it('decodes a Windows-1252 file', async () => {
    expect(await decodeAll(chunked(windows1252('Café Müller;Köln\n')))).toBe('Café Müller;Köln\n');
  });

  it('keeps UTF-8 characters whole when the file arrives one byte at a time', async () => {
    const text = `id,name\n1,${POLISH} 😀 €\n`;
    expect(await decodeAll(chunked(utf8(text), 1))).toBe(text);
  });

  it('keeps characters split between chunks whole after the sniffed head too', async () => {
    // Past SNIFF_BYTES the text is decoded chunk by chunk, not from one buffer.
    const text = `${'a'.repeat(SNIFF_BYTES - 1)}\n${POLISH} 😀 €\n`.repeat(2);
    expect(await decodeAll(chunked(utf8(text), 1))).toBe(text);
    expect(await decodeAll(chunked(utf8(text), 3, 1, 2))).toBe(text);
    expect(await decodeAll(chunked(utf16(text, 'le', false), 4095, 3))).toBe(text);
  });

  it('streams: yields the head before the rest of the file has been read', async () => {
    let pulled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      for (;;) {
        pulled += 1024;
        yield utf8('x'.repeat(1023) + '\n');
      }
    }
    const texts = decodeText(endless());
    const first = await texts.next();
    expect(first.done).toBe(false);
    expect(pulled).toBeLessThanOrEqual(SNIFF_BYTES + 1024);
    await texts.return(undefined);
  });

  it('releases the source when the consumer stops early', async () => {
    let released = false;
    async function* source(): AsyncGenerator<Uint8Array> {
      try {
        for (let k = 0; k < 1000; k++) yield utf8('y'.repeat(1023) + '\n');
      } finally {
        released = true;
      }
    }
    for await (const text of decodeText(source())) {
      expect(text.length).toBeGreaterThan(0);
      break;
    }
    expect(released).toBe(true);
  });

  it('yields nothing for an empty file', async () => {
    expect(await collect(decodeText(chunked(new Uint8Array(0))))).toEqual([]);
  });

  it('fails with CsvEncodingError when a file that began as UTF-8 has invalid bytes later', async () => {
    const bytes = concatBytes(utf8(`${'a'.repeat(SNIFF_BYTES)}\n`), windows1250(`${POLISH}\n`));
    await expect(decodeAll(chunked(bytes, 4096))).rejects.toThrow(CsvEncodingError);
    await expect(decodeAll(chunked(bytes, 4096))).rejects.toThrow('Save it as "CSV UTF-8"');
  });

  describe('binary files', () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);
    const refusal = async (bytes: Uint8Array, ...sizes: number[]) => {
      try {
        await decodeAll(chunked(bytes, ...sizes));
      } catch (error) {
        return error;
      }
      throw new Error('expected the file to be refused');
    };

    it.each([
      ['a PNG image', concatBytes(png, new Uint8Array(5000).fill(7))],
      ['a ZIP archive (an Excel .xlsx workbook is one)', concatBytes([0x50, 0x4b, 0x03, 0x04], utf8('[Content_Types].xml'))],
      ['a PDF document', utf8('%PDF-1.7\n1 0 obj\n')],
      ['an Excel 97-2003 workbook or another Office document', Uint8Array.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0x41])],
      ['a JPEG image', Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x41])],
      ['a gzip archive', Uint8Array.from([0x1f, 0x8b, 0x08, 0x00])],
    ])('refuses %s by its magic number', async (what, bytes) => {
      const error = await refusal(bytes, 3);
      expect(error).toBeInstanceOf(CsvBinaryError);
      expect((error as Error).message).toBe(`The file is not CSV text: it looks like ${what}. Save the data as CSV (comma-separated values) and upload that file.`);
    });

    it('refuses NUL bytes in a file that is not UTF-16, in its head or after it', async () => {
      expect(((await refusal(utf8('id,name\n1,a\u0000b\n'))) as Error).message).toMatch(/it looks like binary data \(it has NUL bytes\)/);
      const late = concatBytes(utf8(`${'1,a\n'.repeat(SNIFF_BYTES / 4 + 10)}`), [0x32, 0x2c, 0x00, 0x0a]);
      expect(await refusal(late, 4096)).toBeInstanceOf(CsvBinaryError);
    });

    it('refuses random bytes (many control characters), though they are not valid UTF-8', async () => {
      let seed = 12345;
      const random = Uint8Array.from({ length: 4096 }, () => {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        return (seed >> 8) & 0xff || 1;
      });
      const error = await refusal(random);
      expect(error).toBeInstanceOf(CsvBinaryError);
      expect((error as Error).message).toMatch(/control characters/);
    });

    it('still reads text with a stray control character (an old DOS end-of-file mark) and UTF-16 files', async () => {
      expect(await decodeAll(chunked(utf8('id,name\n1,a\n\u001a')))).toBe('id,name\n1,a\n\u001a');
      expect(await decodeAll(chunked(utf16('id;name\n1;Łódź\n', 'le', false)))).toBe('id;name\n1;Łódź\n');
    });
  });
});
