import { useQuery } from '@tanstack/react-query';
import { useCallback, useMemo, useRef } from 'react';
import { apiKey } from '../../../api/queries';
import { toastError } from '../../../notifications/toast';
import type { ReportView } from '../reportApi';
import type { ChartChoice } from './AddChartDialog';
import type { SectionActions } from './SectionEditor';
import { ADD_SECTIONS_FAILURE, DEFINITIONS_FAILURE, SAVE_CHANGES_FAILURE, UPDATE_SETTINGS_FAILURE, useSectionsApi, type SectionDefinition } from './sectionsApi';

const messageOf = (error: unknown, fallback: string) => (error instanceof Error && error.message ? error.message : fallback);

/** The sections with one moved to `target` (none when `sectionId` is not among them), positions renumbered 0..n-1. */
export function reordered<T extends { id: string; position: number }>(sections: readonly T[], sectionId: string, target: number): T[] {
  const moving = sections.find((section) => section.id === sectionId);
  const rest = sections.filter((section) => section.id !== sectionId);
  if (moving) rest.splice(Math.max(0, Math.min(target, rest.length)), 0, moving);
  return rest.map((section, position) => (section.position === position ? section : { ...section, position }));
}

interface SectionEditingInput {
  report: ReportView;
  setReport(change: (report: ReportView) => ReportView): void;
  /** Reads the report again. */
  reload(): Promise<void>;
  /** Tells the recalculation machine the server started a recalculation. */
  recalculationStarted(): void;
  /** Editors only: the definitions are fetched for them alone. */
  canEdit: boolean;
  /** A section's edit started (true) or ended (false): the page's edit mode (no filter meanwhile). */
  onEditing?(sectionId: string, editing: boolean): void;
}

/**
 * The report page's section editing: the section definitions (fetched once for editors), the
 * section actions (stable, so memoised section cards do not redraw) and the 'Add chart' dialog's
 * add. Moves, titles, descriptions and deletes update the page at once; a change that alters the
 * numbers reads the report again (its sections recalculating) and lets the recalculation
 * machine follow. Every failure shows the spec's toast.
 */
export function useSectionEditing({ report, setReport, reload, recalculationStarted, canEdit, onEditing }: SectionEditingInput) {
  const api = useSectionsApi();
  const current = useRef(report);
  current.current = report;

  const definitionsQuery = useQuery({
    queryKey: apiKey('/business_report/section_definitions'),
    queryFn: ({ signal }) => api.definitions(signal),
    enabled: canEdit,
    // The account's charts change with a release, not while a report is open.
    staleTime: Infinity,
    meta: { failureToast: DEFINITIONS_FAILURE },
  });
  const definitions: SectionDefinition[] | null | 'failed' = definitionsQuery.data ?? (definitionsQuery.isError ? 'failed' : null);

  const afterNumbersChange = useCallback(async () => {
    recalculationStarted();
    await reload();
  }, [recalculationStarted, reload]);

  const editingRef = useRef(onEditing);
  editingRef.current = onEditing;

  const actions = useMemo<SectionActions>(() => {
    /** Runs a section's edit in edit mode (started before, ended whatever its outcome). */
    const editing = <A extends unknown[], T>(run: (sectionId: string, ...args: A) => Promise<T>) =>
      async (sectionId: string, ...args: A): Promise<T> => {
        editingRef.current?.(sectionId, true);
        try {
          return await run(sectionId, ...args);
        } finally {
          editingRef.current?.(sectionId, false);
        }
      };
    return {
      move: editing(async (sectionId: string, direction: -1 | 1) => {
        const sections = current.current.sections;
        const index = sections.findIndex((section) => section.id === sectionId);
        const target = index + direction;
        if (index < 0 || target < 0 || target >= sections.length) return;
        setReport((report) => ({ ...report, sections: reordered(report.sections, sectionId, target) }));
        try {
          await api.updateSection(sectionId, { position: target }, SAVE_CHANGES_FAILURE);
        } catch (error) {
          toastError(messageOf(error, SAVE_CHANGES_FAILURE));
          setReport((report) => ({ ...report, sections: reordered(report.sections, sectionId, index) }));
          throw error;
        }
      }),
      saveText: editing(async (sectionId: string, change: { title: string } | { summary: string }) => {
        try {
          await api.updateSection(sectionId, change, SAVE_CHANGES_FAILURE);
        } catch (error) {
          toastError(messageOf(error, SAVE_CHANGES_FAILURE));
          throw error;
        }
        // An empty title shows the chart's name again: the server says which.
        if ('title' in change && change.title.trim() === '') void reload();
        else setReport((report) => ({ ...report, sections: report.sections.map((section) => (section.id === sectionId ? { ...section, ...change } : section)) }));
      }),
      saveSettings: editing(async (sectionId: string, changes: Parameters<SectionActions['saveSettings']>[1]) => {
        try {
          for (const change of changes) await api.updateSection(sectionId, change, UPDATE_SETTINGS_FAILURE);
        } catch (error) {
          toastError(messageOf(error, UPDATE_SETTINGS_FAILURE));
          void reload();
          throw error;
        }
        await afterNumbersChange();
      }),
      removeSegment: editing(async (sectionId: string, segmentId: string) => {
        try {
          await api.deleteSegment(sectionId, segmentId);
        } catch (error) {
          toastError(messageOf(error, UPDATE_SETTINGS_FAILURE));
          throw error;
        }
        await afterNumbersChange();
      }),
      expandSegment: (sectionId, segmentId) => api.expandSegment(sectionId, segmentId),
      remove: editing(async (sectionId: string) => {
        try {
          await api.deleteSection(sectionId);
        } catch (error) {
          toastError(messageOf(error, SAVE_CHANGES_FAILURE));
          throw error;
        }
        setReport((report) => ({ ...report, sections: reordered(report.sections.filter((section) => section.id !== sectionId), '', 0) }));
      }),
    };
  }, [api, setReport, reload, afterNumbersChange]);

  /** Adds the charts in order (one POST each); some failing shows the spec's toast. */
  const addCharts = useCallback(
    async (choices: ChartChoice[]) => {
      let added = 0;
      let failed = 0;
      for (const choice of choices) {
        try {
          await api.addSection(current.current.id, choice.definitionId, choice.segmentIds);
          added += 1;
        } catch {
          failed += 1;
        }
      }
      if (failed > 0) toastError(ADD_SECTIONS_FAILURE);
      if (added > 0) await afterNumbersChange();
    },
    [api, afterNumbersChange],
  );

  const definitionOf = useMemo(() => {
    const byId = new Map(Array.isArray(definitions) ? definitions.map((definition) => [definition.id, definition]) : []);
    return (definitionId: string) => byId.get(definitionId);
  }, [definitions]);

  return { definitions, definitionOf, actions, addCharts };
}
