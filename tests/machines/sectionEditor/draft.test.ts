import { describe, expect, it } from 'vitest';
import {
  ARGUMENT_NOT_NUMBER,
  ARGUMENT_REQUIRED,
  COST_FIELDS_ONLY,
  FILTER_FIELD_REQUIRED,
  FILTER_VALUE_REQUIRED,
  normalizedConfig,
  SERIES_NAME_REQUIRED,
} from '../../../models/customSections';
import {
  applyEdit,
  draftFromConfig,
  draftProblems,
  editedPointer,
  fieldOfPointer,
  fieldPointers,
  isUnder,
  newDraft,
  previewRequestKey,
  readableConfig,
  requestConfig,
  titleOf,
  valueForOperator,
} from '../../../machines/sectionEditor/draft';
import type { Draft, DraftEdit } from '../../../machines/sectionEditor/types';
import { modelCatalogue, modelConfig } from './sectionEditorModel';

/** The section editor's form as data: drafts, edits, the config they stand for, where messages show. */

const edit = (draft: Draft, ...edits: DraftEdit[]) => edits.reduce((current, one) => applyEdit(current, one, modelCatalogue), draft);
const problemsOf = (draft: Draft) => draftProblems(draft, modelCatalogue).map((problem) => [problem.pointer, problem.detail]);

describe('drafts', () => {
  it('starts a new section with one series, MRR, named after it, ready to preview', () => {
    const draft = newDraft();
    expect(draft.series).toHaveLength(1);
    expect(draft.series[0]).toMatchObject({ name: 'MRR', value: { object: 'payments', attribute: 'mrr' }, arguments: { periods_back: '0' }, reference: '', hidden: false });
    expect(problemsOf(draft)).toEqual([]);
    expect(requestConfig(draft)?.series[0]?.value).toEqual({ object: 'payments', attribute: 'mrr', label: 'MRR', arguments: { periods_back: 0 } });
  });

  it('opens a stored config as it is, and sends it back the same', () => {
    const draft = draftFromConfig(modelConfig, 'Pro MRR');
    expect(draft.title).toBe('Pro MRR');
    expect(requestConfig(draft, modelCatalogue)).toEqual(normalizedConfig(modelConfig));
    // Every item has its own key.
    const keys = [...draft.series.map((s) => s.key), ...draft.series.flatMap((s) => [...s.groups, ...s.filters].map((item) => item.key))];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('reads a stored config only when configProblems finds nothing in it', () => {
    expect(readableConfig(modelConfig)).toEqual(normalizedConfig(modelConfig));
    expect(readableConfig(undefined)).toBeNull();
    expect(readableConfig({ series: [] })).toBeNull();
  });
});

describe('edits', () => {
  it('adds, moves and removes series, keeping their keys', () => {
    let draft = edit(newDraft(), { kind: 'addSeries' }, { kind: 'seriesName', series: 1, name: 'Second' });
    const [first, second] = draft.series;
    draft = edit(draft, { kind: 'moveSeries', series: 1, by: -1 });
    expect(draft.series.map((s) => [s.key, s.name])).toEqual([
      [second?.key, 'Second'],
      [first?.key, 'MRR'],
    ]);
    // Past either end: nothing moves.
    expect(edit(draft, { kind: 'moveSeries', series: 0, by: -1 }).series).toEqual(draft.series);
    expect(edit(draft, { kind: 'moveSeries', series: 1, by: 1 }).series).toEqual(draft.series);
    draft = edit(draft, { kind: 'removeSeries', series: 0 });
    expect(draft.series.map((s) => s.key)).toEqual([first?.key]);
  });

  it('gives a series another value: its arguments start from the value’s, a typed one stays, and a name that was the old label follows', () => {
    let draft = edit(newDraft(), { kind: 'seriesArgument', series: 0, name: 'periods_back', value: '12' }, { kind: 'seriesValue', series: 0, value: { object: 'customers', attribute: 'new' } });
    expect(draft.series[0]).toMatchObject({ name: 'New customers', arguments: { periods_back: '12' } });
    draft = edit(draft, { kind: 'seriesName', series: 0, name: 'Signups' }, { kind: 'seriesValue', series: 0, value: { object: 'payments', attribute: 'arr' } });
    expect(draft.series[0]?.name).toBe('Signups');
    draft = edit(draft, { kind: 'seriesValue', series: 0, value: null });
    expect(problemsOf(draft)).toEqual([['/series/0/value', ARGUMENT_REQUIRED]]);
  });

  it('fills a filter: a field picks its first operator unless it takes the one set, and values follow the operator', () => {
    let draft = edit(newDraft(), { kind: 'addFilter', series: 0 });
    expect(problemsOf(draft)).toEqual([
      ['/series/0/filters/0/field', FILTER_FIELD_REQUIRED],
      ['/series/0/filters/0/value', FILTER_VALUE_REQUIRED],
    ]);
    draft = edit(draft, { kind: 'filterOperator', series: 0, filter: 0, operator: 'in_reporting_month' });
    // Plan takes in_reporting_month; a deal owner does not (its first: eq).
    draft = edit(draft, { kind: 'filterField', series: 0, filter: 0, field: { object: 'customer', field: 'segment', field_id: 'seg_plan' } });
    expect(draft.series[0]?.filters[0]).toMatchObject({ object: 'customer', field: 'segment', field_id: 'seg_plan', operator: 'in_reporting_month', value: [] });
    draft = edit(draft, { kind: 'filterValue', series: 0, filter: 0, value: ['Pro', 'Team'] });
    expect(edit(draft, { kind: 'filterOperator', series: 0, filter: 0, operator: 'eq' }).series[0]?.filters[0]?.value).toBe('Pro');
    const owner = edit(draft, { kind: 'filterField', series: 0, filter: 0, field: { object: 'customer', field: 'deal_owner', field_id: null } });
    expect(owner.series[0]?.filters[0]).toMatchObject({ operator: 'eq', value: '' });
    expect(problemsOf(draft)).toEqual([]);
    expect(requestConfig(draft)?.series[0]?.filters).toEqual([
      { type: 'filter', object: 'customer', field: 'segment', field_id: 'seg_plan', operator: 'in_reporting_month', value: ['Pro', 'Team'] },
    ]);
    expect(edit(draft, { kind: 'removeFilter', series: 0, filter: 0 }).series[0]?.filters).toEqual([]);
  });

  it('turns a value into the operator’s shape', () => {
    expect(valueForOperator(['a', 'b'], 'eq')).toBe('a');
    expect(valueForOperator([], 'eq')).toBe('');
    expect(valueForOperator('a', 'in')).toEqual(['a']);
    expect(valueForOperator(' ', 'in')).toEqual([]);
  });

  it('adds groups to the section or a series, and checks they belong to what the series counts', () => {
    let draft = edit(newDraft(), { kind: 'addGroup', series: null }, { kind: 'addGroup', series: 0 });
    expect(problemsOf(draft)).toEqual([
      ['/groups/0/field', FILTER_FIELD_REQUIRED],
      ['/series/0/groups/0/field', FILTER_FIELD_REQUIRED],
    ]);
    draft = edit(
      draft,
      { kind: 'groupField', series: null, group: 0, field: { object: 'customer', field: 'segment', field_id: 'seg_plan' } },
      { kind: 'groupField', series: 0, group: 0, field: { object: 'payment', field: 'product', field_id: null } },
    );
    expect(problemsOf(draft)).toEqual([]);
    const config = requestConfig(draft);
    expect(config?.groups).toEqual([{ type: 'group', object: 'customer', field: 'segment', field_id: 'seg_plan' }]);
    expect(config?.series[0]?.groups).toEqual([{ type: 'group', object: 'payment', field: 'product', field_id: null }]);
    // Costs split by a payment field: refused at the group.
    const costs = edit(draft, { kind: 'seriesValue', series: 0, value: { object: 'costs', attribute: 'value' } });
    expect(problemsOf(costs)).toContainEqual(['/series/0/groups/0/field', COST_FIELDS_ONLY]);
    expect(edit(draft, { kind: 'removeGroup', series: null, group: 0 }).groups).toEqual([]);
    // A group of a series that is not there: nothing changes.
    expect(edit(draft, { kind: 'addGroup', series: 5 })).toEqual(draft);
  });

  it('checks arguments and the reference line as typed', () => {
    const draft = edit(newDraft(), { kind: 'seriesArgument', series: 0, name: 'periods_back', value: '' }, { kind: 'seriesReference', series: 0, reference: 'lots' });
    expect(problemsOf(draft)).toEqual([
      ['/series/0/value/arguments/periods_back', ARGUMENT_REQUIRED],
      ['/series/0/reference', ARGUMENT_NOT_NUMBER],
    ]);
    expect(problemsOf(edit(draft, { kind: 'seriesArgument', series: 0, name: 'periods_back', value: 'x' }))[0]).toEqual(['/series/0/value/arguments/periods_back', ARGUMENT_NOT_NUMBER]);
    const fixed = edit(draft, { kind: 'seriesArgument', series: 0, name: 'periods_back', value: ' 12 ' }, { kind: 'seriesReference', series: 0, reference: '1500.5' });
    expect(requestConfig(fixed)?.series[0]).toMatchObject({ value: { arguments: { periods_back: 12 } }, reference: 1500.5 });
    expect(requestConfig(edit(fixed, { kind: 'seriesReference', series: 0, reference: ' ' }))?.series[0]?.reference).toBeNull();
  });

  it('asks for a name, and for a series shown', () => {
    expect(problemsOf(edit(newDraft(), { kind: 'seriesName', series: 0, name: '  ' }))).toEqual([['/series/0/name', SERIES_NAME_REQUIRED]]);
    expect(problemsOf(edit(newDraft(), { kind: 'seriesHidden', series: 0, hidden: true }))).toEqual([['/series/0/hidden', 'At least one series must be shown']]);
  });
});

describe('the preview request and the title', () => {
  it('is the same request for edits the config does not hold, none while the form has problems', () => {
    const draft = newDraft();
    const key = previewRequestKey(draft, 'month');
    expect(key).not.toBeNull();
    expect(previewRequestKey(edit(draft, { kind: 'title', title: 'Board' }), 'month')).toBe(key);
    expect(previewRequestKey(edit(draft, { kind: 'seriesName', series: 0, name: 'MRR ' }), 'month')).toBe(key);
    expect(previewRequestKey(draft, 'quarter')).not.toBe(key);
    expect(previewRequestKey(edit(draft, { kind: 'seriesName', series: 0, name: '' }), 'month')).toBeNull();
  });

  it('titles a new section as typed, else by its series', () => {
    const draft = edit(newDraft(), { kind: 'addSeries' }, { kind: 'seriesName', series: 1, name: ' ARR ' });
    expect(titleOf(draft)).toBe('MRR, ARR');
    expect(titleOf(edit(draft, { kind: 'title', title: ' Growth ' }))).toBe('Growth');
  });
});

describe('where messages show', () => {
  const draft = draftFromConfig(modelConfig);
  const pointers = fieldPointers(draft, modelCatalogue);

  it('at the field a pointer names, else the nearest field or list above it, else the top', () => {
    expect(fieldOfPointer('/series/0/filters/0/value', pointers)).toBe('/series/0/filters/0/value');
    expect(fieldOfPointer('/series/0/value/arguments/periods_back', pointers)).toBe('/series/0/value/arguments/periods_back');
    expect(fieldOfPointer('/series/0/value/attribute', pointers)).toBe('/series/0/value');
    expect(fieldOfPointer('/series/0/filters/3/value', pointers)).toBe('/series/0/filters');
    expect(fieldOfPointer('/series/0', pointers)).toBe('/series');
    expect(fieldOfPointer('/groups/0/field', pointers)).toBe('/groups');
    expect(fieldOfPointer('/title', pointers)).toBe('/title');
    expect(fieldOfPointer('', pointers)).toBeNull();
    expect(fieldOfPointer('/definition_id', pointers)).toBeNull();
  });

  it('drops the server’s messages at the part an edit changes (a renumbered list: all of it)', () => {
    expect(editedPointer({ kind: 'seriesName', series: 1, name: 'x' })).toBe('/series/1/name');
    expect(editedPointer({ kind: 'seriesValue', series: 1, value: null })).toBe('/series/1');
    expect(editedPointer({ kind: 'removeSeries', series: 1 })).toBe('/series');
    expect(editedPointer({ kind: 'groupField', series: null, group: 2, field: null })).toBe('/groups/2');
    expect(editedPointer({ kind: 'addFilter', series: 0 })).toBe('/series/0/filters');
    expect(isUnder('/series/1/value/arguments/periods_back', '/series/1')).toBe(true);
    expect(isUnder('/series/10/name', '/series/1')).toBe(false);
  });
});
