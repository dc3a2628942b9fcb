import { describe, expect, it } from 'vitest';
import { initialReportPageContext, reportPageMachine } from '../../../machines/reportPage/reportPageMachine';
import type { ReportPageSnapshot } from '../../../machines/reportPage/reportPageMachine';
import { filterAvailable, filterBlocked, isEditing, pageReport, pickerOpen, savingSettings, showsFilterWarning } from '../../../machines/reportPage/selectors';
import type { ReportPageContext } from '../../../machines/reportPage/types';
import type { modelReport} from './reportPageModel';
import { FIRST_SECTION, modelInput, SETTINGS_CHANGES } from './reportPageModel';

type Regions = { picker: 'closed' | 'open'; warning: 'hidden' | 'shown'; edit: 'viewing' | 'editing'; settings: 'idle' | 'saving' };
const REST: Regions = { picker: 'closed', warning: 'hidden', edit: 'viewing', settings: 'idle' };

function at(regions: Partial<Regions> = {}, context: Partial<ReportPageContext> = {}): ReportPageSnapshot {
  return reportPageMachine.resolveState({ value: { ...REST, ...regions }, context: { ...initialReportPageContext(modelInput), ...context } });
}

describe('report page selectors', () => {
  it('gives the report as the page holds it', () => {
    expect(pageReport<typeof modelReport>(at()).sections.map((section) => section.value)).toEqual([100, 5]);
  });

  it('offers the filter except on a shared report', () => {
    expect(filterAvailable(at())).toBe(true);
    expect(filterAvailable(at({}, { shared: true }))).toBe(false);
  });

  it('refuses filtering while a recalculation runs or a section is edited, never on a shared report (it has no filter)', () => {
    expect(filterBlocked(at())).toBe(false);
    expect(filterBlocked(at({}, { recalculating: true }))).toBe(true);
    expect(filterBlocked(at({ edit: 'editing' }, { editing: [FIRST_SECTION] }))).toBe(true);
    expect(filterBlocked(at({}, { recalculating: true, shared: true }))).toBe(false);
  });

  it('reads the regions: picker, warning, edit mode, settings being saved', () => {
    expect(pickerOpen(at({ picker: 'open' }))).toBe(true);
    expect(pickerOpen(at())).toBe(false);
    expect(showsFilterWarning(at({ warning: 'shown' }))).toBe(true);
    expect(isEditing(at({ edit: 'editing' }, { editing: [FIRST_SECTION] }))).toBe(true);
    expect(savingSettings(at({ settings: 'saving' }, { settingsQueue: [SETTINGS_CHANGES.currency] }))).toBe(true);
    expect(savingSettings(at())).toBe(false);
  });
});
