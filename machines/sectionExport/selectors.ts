import type { SectionExportSnapshot } from './sectionExportMachine';

/** What the section menu reads of the details export. */

/** An export is being started or runs: 'Export details' waits (one at a time). */
export function isExporting(snapshot: SectionExportSnapshot): boolean {
  return snapshot.matches('starting') || snapshot.matches('inProgress');
}

/** 'Export details' does something now. */
export function canStartExport(snapshot: SectionExportSnapshot): boolean {
  return !isExporting(snapshot);
}

/** The finished export's download url (null until one finished). */
export function downloadUrl(snapshot: SectionExportSnapshot): string | null {
  return snapshot.matches('completed') ? snapshot.context.url : null;
}

/** The last export failed to start or on the server. */
export function exportFailed(snapshot: SectionExportSnapshot): boolean {
  return snapshot.matches('failed');
}
