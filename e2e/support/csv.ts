import type { Locator, Page, TestInfo } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes a CSV file (one line per item, newline-terminated) under the test's output directory; returns its path. */
export function writeCsv(testInfo: TestInfo, name: string, lines: readonly string[]): string {
  const file = testInfo.outputPath(name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** Chooses `file` the way a user does: clicks the file input's button and answers the browser's file chooser. */
export async function chooseFile(page: Page, trigger: Locator, file: string): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await trigger.click();
  await (await chooser).setFiles(file);
}
