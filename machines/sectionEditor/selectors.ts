import { fieldOfPointer, fieldPointers } from './draft';
import type { SectionEditorSnapshot } from './sectionEditorMachine';
import type { Draft, SectionCatalogue, SectionPreview } from './types';

/** What the section editor's view reads of its machine. */

/**
 * The page's state: loading, could not load (with Try again), the section cannot be edited
 * here (`unavailable`) or its config cannot be read (`unreadable`), the form (`editing`), the
 * save in flight, saved (on the way back to the report).
 */
export type SectionEditorPhase = 'loading' | 'loadFailed' | 'unavailable' | 'unreadable' | 'editing' | 'saving' | 'saved';

export function selectPhase(snapshot: SectionEditorSnapshot): SectionEditorPhase {
  if (snapshot.matches('loading')) return 'loading';
  if (snapshot.matches('loadFailed')) return 'loadFailed';
  if (snapshot.matches('unavailable')) return 'unavailable';
  if (snapshot.matches('unreadable')) return 'unreadable';
  if (snapshot.matches('saving')) return 'saving';
  if (snapshot.matches('saved')) return 'saved';
  return 'editing';
}

/** A new section (its title is asked for) rather than an edited one. */
export function selectIsNew(snapshot: SectionEditorSnapshot): boolean {
  return snapshot.context.sectionId === null;
}

/** Why the editor cannot show the form (loadFailed, unavailable), null otherwise. */
export function selectLoadError(snapshot: SectionEditorSnapshot): string | null {
  return snapshot.matches('loadFailed') || snapshot.matches('unavailable') ? snapshot.context.loadError : null;
}

export function selectCatalogue(snapshot: SectionEditorSnapshot): SectionCatalogue | null {
  return snapshot.context.catalogue;
}

export function selectDraft(snapshot: SectionEditorSnapshot): Draft {
  return snapshot.context.draft;
}

/** The form takes edits (not while it is being saved). */
export function selectCanEdit(snapshot: SectionEditorSnapshot): boolean {
  return snapshot.matches('editing');
}

/** The save is in flight (or done, and the page is leaving). */
export function selectSaving(snapshot: SectionEditorSnapshot): boolean {
  return snapshot.matches('saving') || snapshot.matches('saved');
}

/** The messages of the form: at each field (by its pointer, '/series/0/name'), and at the top. */
export interface SectionEditorErrors {
  fields: Record<string, string>;
  form: string[];
}

/**
 * Where every message shows: the draft's problems once a save was asked for (the first per
 * field), then the server's refusals of the last save; a message whose pointer names no field of
 * the form ('/definition_id', none) shows at the top, with the save's own messages.
 */
export function selectErrors(snapshot: SectionEditorSnapshot): SectionEditorErrors {
  const { draft, catalogue, problems, submitted, serverErrors, formErrors } = snapshot.context;
  const pointers = fieldPointers(draft, catalogue);
  const fields: Record<string, string> = {};
  const form = [...formErrors];
  const place = (pointer: string | null, message: string) => {
    const field = pointer === null ? null : fieldOfPointer(pointer, pointers);
    if (field === null) {
      if (!form.includes(message)) form.push(message);
    } else if (!(field in fields)) fields[field] = message;
  };
  if (submitted) for (const problem of problems) place(problem.pointer, problem.detail);
  for (const error of serverErrors) place(error.pointer, error.message);
  return { fields, form };
}

/**
 * The preview panel: `idle` (nothing to preview: the form has problems), `waiting` (the
 * debounce after an edit), `loading`, `shown`, `failed` (with the messages). `preview` is the
 * last chart, kept while another one is on its way.
 */
export interface PreviewView {
  status: 'idle' | 'waiting' | 'loading' | 'shown' | 'failed';
  preview: SectionPreview | null;
  errors: string[];
}

export function selectPreview(snapshot: SectionEditorSnapshot): PreviewView {
  const { preview, previewErrors } = snapshot.context;
  if (snapshot.matches({ editing: { preview: 'debouncing' } })) return { status: 'waiting', preview, errors: [] };
  if (snapshot.matches({ editing: { preview: 'loading' } })) return { status: 'loading', preview, errors: [] };
  if (snapshot.matches({ editing: { preview: 'failed' } })) return { status: 'failed', preview, errors: previewErrors ?? [] };
  if (snapshot.matches({ editing: { preview: 'idle' } })) return { status: 'idle', preview, errors: [] };
  // Shown, and while saving: the last chart.
  return { status: preview ? 'shown' : 'idle', preview, errors: [] };
}

/** The resolution the preview is computed at. */
export function selectResolution(snapshot: SectionEditorSnapshot): string {
  return snapshot.context.resolution;
}
