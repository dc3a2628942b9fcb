import { describe, expect, it } from 'vitest';
import { SNIFF_BYTES } from '../../../../server/imports/csv/decode';
import { CsvFormatError, CsvRowTooLargeError, csvRows, detectDelimiter, detectNewline, type CsvFormat, type CsvRow } from '../../../../server/imports/csv/rows';
import { chunked, collect, concatBytes, utf16, utf8, windows1250 } from './sources';

/** The rows of `text` (UTF-8) read in chunks of `sizes` bytes. */
async function rowsOf(text: string | Uint8Array, ...sizes: number[]): Promise<CsvRow[]> {
  return collect(csvRows(chunked(typeof text === 'string' ? utf8(text) : text, ...sizes)));
}

async function cellsOf(text: string | Uint8Array, ...sizes: number[]): Promise<string[][]> {
  return (await rowsOf(text, ...sizes)).map((row) => row.cells);
}

async function failureOf(text: string, options: { maxRowBytes?: number } = {}, ...sizes: number[]): Promise<unknown> {
  try {
    await collect(csvRows(chunked(utf8(text), ...sizes), options));
  } catch (error) {
    return error;
  }
  throw new Error('expected the file to be refused');
}

describe('detectDelimiter', () => {
  it('finds comma, semicolon and tab from the header', () => {
    expect(detectDelimiter('id,name,amount\n1,a,2\n')).toBe(',');
    expect(detectDelimiter('id;name;amount\n1;a;2\n')).toBe(';');
    expect(detectDelimiter('id\tname\tamount\n1\ta\t2\n')).toBe('\t');
  });

  it('takes semicolon for a semicolon file with decimal commas', () => {
    expect(detectDelimiter('a;1,50;2')).toBe(';');
    expect(detectDelimiter('id;amount;units\n1;1,50;2\n2;2,75;1\n')).toBe(';');
  });

  it('ignores delimiters inside quotes', () => {
    expect(detectDelimiter('"a;b";"c;d,e"\n1,5;"x,y"\n')).toBe(';');
    expect(detectDelimiter('"Name; full","Plan"\n"Smith; John",Pro\n')).toBe(',');
  });

  it('prefers the candidate every record has as often as the header', () => {
    // Commas in the header and in every row; semicolons in the header but not in the rows.
    expect(detectDelimiter('id,note;extra,amount\n1,x,2\n2,y,3\n')).toBe(',');
  });

  it('picks, for a one-column file, a delimiter no value contains', () => {
    expect(detectDelimiter('amount\n1,50\n2,75\n')).toBe(';');
    expect(detectDelimiter('name\nAlice\n')).toBe(',');
  });

  it('defaults to comma for an empty sample', () => {
    expect(detectDelimiter('')).toBe(',');
    expect(detectDelimiter('\n\r\n')).toBe(',');
  });
});

describe('csvRows', () => {
  it('reads a comma file', async () => {
    expect(await cellsOf('id,name,amount\n1,Alice,12.50\n2,Bob,7\n')).toEqual([
      ['id', 'name', 'amount'],
      ['1', 'Alice', '12.50'],
      ['2', 'Bob', '7'],
    ]);
  });

  it('reads a semicolon file with decimal commas', async () => {
    expect(await cellsOf('id;amount\n1;1,50\n2;1 234,50\n')).toEqual([
      ['id', 'amount'],
      ['1', '1,50'],
      ['2', '1 234,50'],
    ]);
  });

  it('reads a tab file', async () => {
    expect(await cellsOf('id\tname\n1\tA, B; C\n')).toEqual([
      ['id', 'name'],
      ['1', 'A, B; C'],
    ]);
  });

  it('drops the \\r of CRLF line ends, after plain and quoted last cells', async () => {
    expect(await cellsOf('id,name\r\n1,"Alice"\r\n2,Bob\r\n3,"Carol"\r', 1)).toEqual([
      ['id', 'name'],
      ['1', 'Alice'],
      ['2', 'Bob'],
      ['3', 'Carol'],
    ]);
  });

  it('reads quoted fields with delimiters, embedded newlines and doubled quotes', async () => {
    const text = 'id,note,amount\r\n1,"line one\r\nline two",5\r\n2,"He said ""hi"", then left",6\r\n3,"a\nb\n\nc",7\r\n4,x,8\r\n';
    const rows = await rowsOf(text);
    expect(rows.map((row) => row.cells)).toEqual([
      ['id', 'note', 'amount'],
      ['1', 'line one\r\nline two', '5'],
      ['2', 'He said "hi", then left', '6'],
      ['3', 'a\nb\n\nc', '7'],
      ['4', 'x', '8'],
    ]);
  });

  it('numbers a record spanning lines as one row, as a spreadsheet shows it', async () => {
    const rows = await rowsOf('id,note\n1,"two\nlines"\n2,x\n');
    expect(rows.map((row) => row.number)).toEqual([1, 2, 3]);
  });

  it('skips empty lines but keeps row numbers true to the file', async () => {
    const rows = await rowsOf('\nid,name\n\n1,a\r\n\r\n\n2,b\n\n');
    expect(rows).toEqual([
      { number: 2, cells: ['id', 'name'] },
      { number: 4, cells: ['1', 'a'] },
      { number: 7, cells: ['2', 'b'] },
    ]);
  });

  it('keeps lines of empty cells (they are not empty lines)', async () => {
    expect(await rowsOf('a,b\n,\n')).toEqual([
      { number: 1, cells: ['a', 'b'] },
      { number: 2, cells: ['', ''] },
    ]);
  });

  it('reads a file without a final line break', async () => {
    expect(await cellsOf('a;b\n1;2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('yields nothing for an empty file or one of empty lines', async () => {
    expect(await rowsOf('')).toEqual([]);
    expect(await rowsOf('\r\n\n')).toEqual([]);
  });

  it('reads Windows-1250 and UTF-16 files, without the BOM in the first header', async () => {
    expect(await cellsOf(windows1250('Klient;Miasto\nZażółć gęślą jaźń;Łódź\n'), 5)).toEqual([
      ['Klient', 'Miasto'],
      ['Zażółć gęślą jaźń', 'Łódź'],
    ]);
    expect(await cellsOf(utf16('Klient\tKwota\r\nŁukasz\t12,50\r\n', 'le', true), 3)).toEqual([
      ['Klient', 'Kwota'],
      ['Łukasz', '12,50'],
    ]);
    expect(await cellsOf(concatBytes([0xef, 0xbb, 0xbf], utf8('id,name\n1,a\n')))).toEqual([
      ['id', 'name'],
      ['1', 'a'],
    ]);
  });

  it('reports the detected encoding and delimiter before the first row', async () => {
    const formats: CsvFormat[] = [];
    const rows = csvRows(chunked(windows1250('Klient;Kwota\nPaweł;12,50\n')), { onFormat: (format) => formats.push(format) });
    await rows.next();
    expect(formats).toEqual([{ encoding: 'windows-1250', delimiter: ';' }]);
  });

  it('reads the same rows whatever the chunk sizes, across quoted newlines and CRLF', async () => {
    const lines = ['id;note;amount'];
    const expected = [['id', 'note', 'amount']];
    for (let k = 1; k <= 8000; k++) {
      const note = k % 7 === 0 ? `Zażółć\r\n"${k}"; ${'x'.repeat(k % 50)}` : `n${k}`;
      lines.push(`${k};"${note.replace(/"/g, '""')}";${k},50`);
      expected.push([String(k), note, `${k},50`]);
      if (k % 11 === 0) lines.push('');
    }
    const bytes = utf8(`${lines.join('\r\n')}\r\n`);
    expect(bytes.length).toBeGreaterThan(2 * SNIFF_BYTES);
    for (const sizes of [[1], [2, 3, 5], [4096], [65_537], [bytes.length]]) {
      expect(await cellsOf(bytes, ...sizes), `chunks of ${sizes.join(', ')}`).toEqual(expected);
    }
  });

  it('reads the file only as far as the consumer has asked (backpressure)', async () => {
    let pulled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      yield utf8('id,name\n');
      for (let k = 0; ; k++) {
        const chunk = utf8(`${k},${'n'.repeat(90)}\n`.repeat(100));
        pulled += chunk.length;
        yield chunk;
      }
    }
    const rows = csvRows(endless());
    let read = 0;
    for await (const row of rows) {
      expect(row.cells).toHaveLength(2);
      if (++read === 5_000) break;
    }
    // 5,000 rows are ~470 KB; what was read beyond them is bounded by the sniff and a parse batch.
    expect(pulled).toBeLessThan(470_000 + 2 * SNIFF_BYTES);
  });

  it('refuses a record longer than maxRowBytes, naming its row', async () => {
    const error = await failureOf(`a,b\n\n1,${'x'.repeat(100)}\n2,y\n`, { maxRowBytes: 100 });
    expect(error).toBeInstanceOf(CsvRowTooLargeError);
    expect((error as CsvRowTooLargeError).rowNumber).toBe(3);
    expect((error as Error).message).toBe('Row 3 is longer than 100 bytes');
  });

  it('accepts a record of exactly maxRowBytes', async () => {
    const rows = await collect(csvRows(chunked(utf8(`a,b\r\n1,${'x'.repeat(98)}\r\n`)), { maxRowBytes: 100 }));
    expect(rows).toHaveLength(2);
  });

  it('measures the row size in UTF-8 bytes', async () => {
    // 40 characters, 80 bytes.
    const error = await failureOf(`a\n${'ż'.repeat(40)}\n`, { maxRowBytes: 64 });
    expect(error).toBeInstanceOf(CsvRowTooLargeError);
    expect((error as Error).message).toBe('Row 2 is longer than 64 bytes');
  });

  it('refuses a record over the 64 KB default before it has been read whole', async () => {
    const huge = `id,note\n1,"${'x'.repeat(10 * 64 * 1024)}"\n`;
    const error = await failureOf(huge, {}, 1000);
    expect(error).toBeInstanceOf(CsvRowTooLargeError);
    expect((error as Error).message).toBe('Row 2 is longer than 64 KB');
  });

  it('hints at an unclosed quote when an oversized record runs over line breaks', async () => {
    const text = `id,note\n1,"oops\n${'2,fine\n'.repeat(30_000)}`;
    const error = await failureOf(text, {}, 4096);
    expect(error).toBeInstanceOf(CsvRowTooLargeError);
    expect((error as Error).message).toBe('Row 2 is longer than 64 KB (a quoted field may never be closed)');
  });

  it('refuses a quote that is never closed, naming its row', async () => {
    const error = await failureOf('id,note\n1,ok\n\n2,"never\nclosed\n', {}, 3);
    expect(error).toBeInstanceOf(CsvFormatError);
    expect((error as CsvFormatError).rowNumber).toBe(4);
    expect((error as Error).message).toBe('Row 4: a quoted field is never closed');
  });

  it('refuses text after a closing quote rather than merging lines into one cell', async () => {
    const error = await failureOf('id,product\n1,"12" screen\n2,x\n3,"y"\n');
    expect(error).toBeInstanceOf(CsvFormatError);
    expect((error as CsvFormatError).rowNumber).toBe(2);
    expect((error as Error).message).toMatch(/^Row 2: a quoted field has text after its closing quote/);
  });

  describe('line breaks', () => {
    it('tells bare CR (classic Mac OS) from LF and CRLF by the first break outside quotes', () => {
      expect(detectNewline('a,b\r1,2\r')).toBe('\r');
      expect(detectNewline('a,b\r\n1,2\r\n')).toBe('\n');
      expect(detectNewline('a,b\n1,2\n')).toBe('\n');
      expect(detectNewline('"x\ny",b\r1,2\r')).toBe('\r');
      // A CR ending the sample may be half of a CRLF: it decides nothing.
      expect(detectNewline('a,b\r')).toBe('\n');
      expect(detectNewline('a,b')).toBe('\n');
    });

    it('reads a file whose lines end with a bare CR as rows, numbered as the file shows them', async () => {
      const text = 'cus,start,end,amount\rc1,2025-01-01,2025-02-01,10\r\rc2,"a\rb",2025-02-01,10\r';
      for (const sizes of [[], [1], [3, 7]]) {
        const rows = await rowsOf(text, ...sizes);
        expect(rows.map((row) => [row.number, row.cells])).toEqual([
          [1, ['cus', 'start', 'end', 'amount']],
          [2, ['c1', '2025-01-01', '2025-02-01', '10']],
          [4, ['c2', 'a\rb', '2025-02-01', '10']],
        ]);
      }
    });

    it('detects the delimiter of a CR file from its first records', async () => {
      const formats: CsvFormat[] = [];
      await collect(csvRows(chunked(utf8('id;amount\r1;1,50\r2;2,75\r')), { onFormat: (format) => formats.push(format) }));
      expect(formats).toEqual([{ encoding: 'utf-8', delimiter: ';' }]);
    });
  });
});
