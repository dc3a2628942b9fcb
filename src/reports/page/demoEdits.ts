import type { ReportView } from './reportApi';

/**
 * The demo report's edits (spec: demo mode performs changes locally without server calls):
 * a visitor's title and summary, kept in this browser's localStorage by report, laid over the
 * report as the server answers it.
 */
type DemoEdits = Partial<Pick<ReportView, 'title' | 'summary'>>;

const keyOf = (reportId: string) => `subscope.demoReport.${reportId}`;

function readEdits(reportId: string): DemoEdits {
  try {
    const stored = JSON.parse(localStorage.getItem(keyOf(reportId)) ?? '{}') as unknown;
    if (typeof stored !== 'object' || stored === null) return {};
    const { title, summary } = stored as Record<string, unknown>;
    return { ...(typeof title === 'string' ? { title } : {}), ...(typeof summary === 'string' ? { summary } : {}) };
  } catch {
    return {};
  }
}

export function withDemoEdits(report: ReportView): ReportView {
  return { ...report, ...readEdits(report.id) };
}

export function saveDemoEdit(reportId: string, edit: DemoEdits): void {
  try {
    localStorage.setItem(keyOf(reportId), JSON.stringify({ ...readEdits(reportId), ...edit }));
  } catch {
    // Storage full or disabled: the edit lasts as long as the page.
  }
}
