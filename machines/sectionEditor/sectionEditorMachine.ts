import { assign, setup } from 'xstate';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { CUSTOM_SAVE_FAILURE, USER_FILTERED_DEFINITION_ID } from '../../models/customSections';
import type { CustomSectionConfig } from '../../models/customSections';
import { applyEdit, DEFAULT_RESOLUTION, draftFromConfig, draftProblems, editedPointer, isUnder, newDraft, previewRequestKey, readableConfig, requestConfig, titleOf } from './draft';
import { loadFailureMessage, previewFailureMessages, sectionEditorActors, servicesNotProvided, toSaveFailure } from './sectionEditorActors';
import type { LoadedEditor } from './sectionEditorActors';
import { NOT_A_CUSTOM_SECTION, SECTION_NOT_FOUND } from './messages';
import type { Draft, DraftEdit, LoadedSection, SectionEditorContext, SectionEditorEvent, SectionEditorInput, SectionPreview, SectionSavedNotice } from './types';

/** The preview is asked for this long after the last edit. */
export const PREVIEW_DEBOUNCE_MS = 600;

export function initialSectionEditorContext(input: SectionEditorInput): SectionEditorContext {
  return {
    secret: input.secret,
    sectionId: input.sectionId,
    catalogue: null,
    reportId: null,
    resolution: DEFAULT_RESOLUTION,
    draft: newDraft(),
    problems: [],
    submitted: false,
    serverErrors: [],
    formErrors: [],
    preview: null,
    previewFor: null,
    previewErrors: null,
    loadError: null,
    savedId: null,
  };
}

type Loaded = { loaded: LoadedEditor };
type Edited = { edit: DraftEdit };
const loadedOf = ({ event }: { event: { output: LoadedEditor } }): Loaded => ({ loaded: event.output });
const editOf = ({ event }: { event: SectionEditorEvent }): Edited => ({ edit: event.type === 'editor.edit' ? event.edit : { kind: 'title', title: '' } });

/** The section being edited in what was loaded (undefined for a new section, or when it is not in the report). */
function sectionOf(context: SectionEditorContext, loaded: LoadedEditor): LoadedSection | undefined {
  return context.sectionId === null ? undefined : loaded.report.sections.find((section) => section.id === context.sectionId);
}

/** The form the editor starts with: a new section's, or the edited section's config (null when it cannot be read). */
function startingDraft(context: SectionEditorContext, loaded: LoadedEditor): Draft | null {
  if (context.sectionId === null) return newDraft();
  const section = sectionOf(context, loaded);
  const config = section ? readableConfig(section.config) : null;
  return section && config ? draftFromConfig(config, section.title) : null;
}

const editedDraft = (context: SectionEditorContext, edit: DraftEdit): Draft => applyEdit(context.draft, edit, context.catalogue);
const requestOf = (context: SectionEditorContext): string | null => previewRequestKey(context.draft, context.resolution, context.catalogue);
const configOf = (context: SectionEditorContext): CustomSectionConfig => requestConfig(context.draft, context.catalogue) as CustomSectionConfig;

/**
 * The custom section editor (`/reports/:secret/new-section`, and `/:sectionId` to change a
 * custom section's calculation):
 *
 * - `loading` (initial): GET /user_filtered_config and the report by its secret, side by side
 *   (the invoked `load`). Read → `editing` with the form of a new section, or of the edited
 *   section's config. The edited section missing from the report, or not a custom section →
 *   `unavailable`; its config missing or refused by `configProblems` → `unreadable` ('Something
 *   went wrong and we could not parse configuration of this section. Please get in touch.').
 *   Failed → `loadFailed`.
 * - `loadFailed`: the message (the catalogue's 'Could not get the values and filters a section
 *   can use', or the report's); `editor.retry` → `loading`.
 * - `editing`: the form. `editor.edit` applies one change (draft.ts); `problems` follows
 *   (`configProblems`), shown at their fields once a save was asked for (`submitted`). The
 *   server's refusals at the part edited are dropped. `editor.save` with problems stays (and
 *   shows them); without → `saving`.
 *   Its `preview` region: `idle` (the draft has problems: nothing to preview), `debouncing`
 *   (600 ms after the last edit that changed the config), `loading` (POST …/sections/preview),
 *   `shown`, `failed` (`editor.retryPreview` → `loading`). An edit that leaves the config as it
 *   was (the title, spaces) leaves the preview alone. The last chart stays in `preview` while
 *   another one loads.
 * - `saving`: POST (new) or PUT (edited) the section (the invoked `save`). Saved → `saved`,
 *   telling the view (`saved`: back to the report). Refused → `editing` with the server's
 *   errors at their pointers and the rest at the top of the form ('We could not save this
 *   section, please try again' when the server said nothing usable); the form keeps everything.
 * - `saved`: final.
 *
 * The calls are actors provided by src/ (`sectionEditorActors(services)`), the way back to the
 * report the provided `saved` effect.
 */
export const sectionEditorMachine = setup({
  types: {
    context: {} as SectionEditorContext,
    events: {} as SectionEditorEvent,
    input: {} as SectionEditorInput,
  },
  actors: sectionEditorActors(servicesNotProvided),
  actions: {
    assignLoaded: assign(({ context }, { loaded }: Loaded) => {
      const section = sectionOf(context, loaded);
      const draft = startingDraft(context, loaded) ?? context.draft;
      return {
        catalogue: loaded.catalogue,
        reportId: loaded.report.id,
        resolution: section?.resolution || DEFAULT_RESOLUTION,
        draft,
        problems: draftProblems(draft, loaded.catalogue),
        loadError: null,
      };
    }),
    assignLoadFailure: assign({ loadError: (_, params: { error: unknown }) => loadFailureMessage(params.error) }),
    assignUnavailable: assign({ loadError: (_, params: { message: string }) => params.message }),
    clearLoadError: assign({ loadError: null }),
    applyEdit: assign(({ context }, { edit }: Edited) => {
      const draft = editedDraft(context, edit);
      const at = editedPointer(edit);
      return {
        draft,
        problems: draftProblems(draft, context.catalogue),
        serverErrors: context.serverErrors.filter((error) => error.pointer === null || !isUnder(error.pointer, at)),
      };
    }),
    markSubmitted: assign({ submitted: true }),
    startSave: assign({ submitted: true, serverErrors: [], formErrors: [] }),
    startPreview: assign({ previewErrors: null }),
    assignPreview: assign(({ context }, params: { preview: SectionPreview }) => ({ preview: params.preview, previewFor: requestOf(context), previewErrors: null })),
    assignPreviewFailure: assign({ previewErrors: (_, params: { error: unknown }) => previewFailureMessages(params.error) }),
    assignSaveFailure: assign((_, params: { error: unknown }) => {
      const failure = toSaveFailure(params.error);
      if (failure.kind === 'failed' || failure.errors.length === 0) return { serverErrors: [], formErrors: [CUSTOM_SAVE_FAILURE] };
      return {
        serverErrors: failure.errors.filter((error) => error.pointer !== null),
        formErrors: [...new Set(failure.errors.filter((error) => error.pointer === null).map((error) => error.message))],
      };
    }),
    assignSaved: assign({ savedId: (_, params: { id: string }) => params.id }),
    /** The section is saved (provided: back to the report). */
    saved: (_, _params: SectionSavedNotice) => {},
  },
  guards: {
    sectionMissing: ({ context }, { loaded }: Loaded) => context.sectionId !== null && sectionOf(context, loaded) === undefined,
    notCustom: ({ context }, { loaded }: Loaded) => {
      const section = sectionOf(context, loaded);
      return section !== undefined && section.definition_id !== USER_FILTERED_DEFINITION_ID;
    },
    configUnreadable: ({ context }, { loaded }: Loaded) => startingDraft(context, loaded) === null,
    draftValid: ({ context }) => context.problems.length === 0,
    editLeavesProblems: ({ context }, { edit }: Edited) => draftProblems(editedDraft(context, edit), context.catalogue).length > 0,
    /** The edit changes nothing the preview asks for (a title, spaces). */
    editKeepsPreview: ({ context }, { edit }: Edited) => previewRequestKey(editedDraft(context, edit), context.resolution, context.catalogue) === requestOf(context),
    /** The chart shown is the draft's (a refused save changed nothing). */
    previewShowsDraft: ({ context }) => context.previewFor !== null && context.previewFor === requestOf(context),
  },
  delays: {
    previewDebounce: PREVIEW_DEBOUNCE_MS,
  },
}).createMachine({
  id: 'sectionEditor',
  context: ({ input }) => initialSectionEditorContext(input),
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        id: 'load',
        src: 'load',
        input: ({ context }) => ({ secret: context.secret }),
        onDone: [
          {
            guard: { type: 'sectionMissing', params: loadedOf },
            target: 'unavailable',
            actions: [{ type: 'assignLoaded', params: loadedOf }, { type: 'assignUnavailable', params: { message: SECTION_NOT_FOUND } }],
          },
          {
            guard: { type: 'notCustom', params: loadedOf },
            target: 'unavailable',
            actions: [{ type: 'assignLoaded', params: loadedOf }, { type: 'assignUnavailable', params: { message: NOT_A_CUSTOM_SECTION } }],
          },
          { guard: { type: 'configUnreadable', params: loadedOf }, target: 'unreadable', actions: { type: 'assignLoaded', params: loadedOf } },
          // A new section's form and a readable config have no problems: the first preview follows.
          { target: 'editing.preview.debouncing', actions: { type: 'assignLoaded', params: loadedOf } },
        ],
        onError: { target: 'loadFailed', actions: { type: 'assignLoadFailure', params: ({ event }) => ({ error: event.error }) } },
      },
    },

    loadFailed: {
      on: {
        'editor.retry': { target: 'loading', actions: 'clearLoadError' },
      },
    },

    unavailable: {},

    unreadable: {},

    editing: {
      initial: 'preview',
      on: {
        'editor.edit': [
          { guard: { type: 'editLeavesProblems', params: editOf }, target: '.preview.idle', actions: { type: 'applyEdit', params: editOf } },
          { guard: { type: 'editKeepsPreview', params: editOf }, actions: { type: 'applyEdit', params: editOf } },
          // A new debounce: the timer starts again.
          { target: '.preview.debouncing', reenter: true, actions: { type: 'applyEdit', params: editOf } },
        ],
        'editor.save': [{ guard: 'draftValid', target: 'saving', actions: 'startSave' }, { actions: 'markSubmitted' }],
      },
      states: {
        preview: {
          initial: 'idle',
          states: {
            idle: {},
            debouncing: {
              after: { previewDebounce: 'loading' },
            },
            loading: {
              entry: 'startPreview',
              invoke: {
                id: 'preview',
                src: 'preview',
                input: ({ context }) => ({ reportId: context.reportId ?? '', config: configOf(context), resolution: context.resolution }),
                onDone: { target: 'shown', actions: { type: 'assignPreview', params: ({ event }) => ({ preview: event.output }) } },
                onError: { target: 'failed', actions: { type: 'assignPreviewFailure', params: ({ event }) => ({ error: event.error }) } },
              },
            },
            shown: {},
            failed: {
              on: {
                'editor.retryPreview': { target: 'loading' },
              },
            },
          },
        },
      },
    },

    saving: {
      invoke: {
        id: 'save',
        src: 'save',
        input: ({ context }) => ({ reportId: context.reportId ?? '', sectionId: context.sectionId, config: configOf(context), title: titleOf(context.draft) }),
        onDone: {
          target: 'saved',
          actions: [
            { type: 'assignSaved', params: ({ event }) => ({ id: event.output.id }) },
            { type: 'saved', params: ({ context, event }) => ({ secret: context.secret, sectionId: event.output.id }) },
          ],
        },
        onError: [
          { guard: 'previewShowsDraft', target: 'editing.preview.shown', actions: { type: 'assignSaveFailure', params: ({ event }) => ({ error: event.error }) } },
          { target: 'editing.preview.debouncing', actions: { type: 'assignSaveFailure', params: ({ event }) => ({ error: event.error }) } },
        ],
      },
    },

    saved: { type: 'final' },
  },
});

export type SectionEditorMachine = typeof sectionEditorMachine;
export type SectionEditorSnapshot = SnapshotFrom<SectionEditorMachine>;
export type SectionEditorActorRef = ActorRefFrom<SectionEditorMachine>;
