import { useMemo } from 'react';
import { useApi } from '../../api/ApiContext';
import type { ApiClient } from '../../api/client';
import { apiErrorItems, apiErrorText } from '../../api/errors';
import { ApiCallError } from '../../api/queries';
import { CUSTOM_OBJECTS, FILTER_OBJECTS, FILTER_OPERATORS, POSSIBLE_VALUES_FAILURE, USER_FILTERED_DEFINITION_ID } from '../../../models/customSections';
import type { CustomArgumentSpec, CustomSectionConfig, CustomValueSpec, FilterObject, FilterOperator } from '../../../models/customSections';
import type { SectionEditorServices } from '../../../machines/sectionEditor/sectionEditorActors';
import type { CatalogueField, LoadedReport, PreviewFailure, SaveFailure, SectionCatalogue, SectionPreview, ServerError } from '../../../machines/sectionEditor/types';

/**
 * The custom section editor's calls (docs/custom-section-editor.md), typed by the generated
 * schema (src/api/schema.ts); the config and the preview's numbers are open JSON there, so each
 * answer is also checked here before the editor reads it.
 */

/** An API client's answer, as the save and preview calls read it. */
interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}
type Resolution = 'week' | 'month' | 'quarter' | 'year';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** A malformed answer: the call counts as failed. */
class MalformedAnswer extends Error {
  constructor(what: string) {
    super(`The server's answer about ${what} is not in the expected shape`);
    this.name = 'MalformedAnswer';
  }
}

function parseArgument(value: unknown): CustomArgumentSpec | null {
  if (!isRecord(value) || !isText(value.name) || !isNumber(value.min) || !isNumber(value.max) || !isNumber(value.default)) return null;
  return {
    name: value.name,
    label: isText(value.label) ? value.label : value.name,
    type: 'number',
    min: value.min,
    max: value.max,
    default: value.default,
    description: isText(value.description) ? value.description : '',
  };
}

function parseValue(value: unknown): CustomValueSpec | null {
  if (!isRecord(value) || !(CUSTOM_OBJECTS as readonly unknown[]).includes(value.object) || !isText(value.attribute) || !isText(value.label)) return null;
  const unit = value.unit === 'money' || value.unit === 'units' ? value.unit : 'count';
  const args = Array.isArray(value.arguments) ? value.arguments.map(parseArgument).filter((spec): spec is CustomArgumentSpec => spec !== null) : [];
  return { object: value.object as CustomValueSpec['object'], attribute: value.attribute, label: value.label, unit, arguments: args };
}

function parseField(value: unknown): CatalogueField | null {
  if (!isRecord(value) || !(FILTER_OBJECTS as readonly unknown[]).includes(value.object) || !isText(value.field) || !isText(value.name)) return null;
  const operators = Array.isArray(value.operators) ? value.operators.filter((op): op is FilterOperator => (FILTER_OPERATORS as readonly unknown[]).includes(op)) : [];
  return {
    object: value.object as FilterObject,
    field: value.field,
    field_id: isText(value.field_id) ? value.field_id : null,
    name: value.name,
    operators,
    groupable: value.groupable === true,
    filterable: value.filterable === true,
  };
}

/** GET /user_filtered_config's answer, without the items the editor could not use. */
export function parseCatalogue(data: unknown): SectionCatalogue {
  if (!isRecord(data) || !Array.isArray(data.values) || !Array.isArray(data.filters)) throw new MalformedAnswer('the values and filters');
  return {
    values: data.values.map(parseValue).filter((spec): spec is CustomValueSpec => spec !== null),
    filters: data.filters.map(parseField).filter((field): field is CatalogueField => field !== null),
  };
}

/** The preview's answer: the shape of a report section's numbers. */
export function parsePreview(data: unknown): SectionPreview {
  if (!isRecord(data) || !Array.isArray(data.periods) || !Array.isArray(data.segments)) throw new MalformedAnswer('the preview');
  const segments = data.segments.filter((segment) => isRecord(segment) && isText(segment.id) && Array.isArray(segment.series));
  return {
    unit: isText(data.unit) ? data.unit : null,
    currency: isText(data.currency) ? data.currency : null,
    periods: data.periods as SectionPreview['periods'],
    segments: segments.map((segment) => ({
      name: '',
      is_total: false,
      grouped_segment_names: [],
      ...(segment as Partial<SectionPreview['segments'][number]>),
    })) as SectionPreview['segments'],
  };
}

/**
 * Where an error of the API points, for the editor: '/config/series/0/name' is '/series/0/name'
 * (under the config), '/title' the title; anything else (the config as a whole, another field,
 * none) is null: the top of the form.
 */
export function editorPointer(pointer: string | undefined): string | null {
  if (pointer === undefined) return null;
  if (pointer.startsWith('/config/')) return pointer.slice('/config'.length);
  return pointer === '/title' ? '/title' : null;
}

/** The errors of a 400/422 body: each one's text (detail, else title, else code) at its pointer. */
export function serverErrorsOf(body: unknown): ServerError[] {
  return apiErrorItems(body).map((item) => ({ pointer: editorPointer(item.source?.pointer), message: apiErrorText(item) }));
}

const refused = (response: Response) => response.status === 400 || response.status === 422;

function saveFailureOf(answer: Answer): SaveFailure {
  return refused(answer.response) ? { kind: 'invalid', errors: serverErrorsOf(answer.error) } : { kind: 'failed' };
}

function savedId(answer: Answer, fallback: string): { id: string } {
  return { id: isRecord(answer.data) && isText(answer.data.id) ? answer.data.id : fallback };
}

/** The report as the editor reads it (its id, its sections' definitions, titles, resolutions and configs). */
function loadedReport(data: { id: string; sections: readonly { id: string; definition_id: string; title: string; resolution: string }[] }): LoadedReport {
  return {
    id: data.id,
    sections: data.sections.map((section) => ({
      id: section.id,
      definition_id: section.definition_id,
      title: section.title,
      resolution: section.resolution,
      config: (section as { config?: unknown }).config,
    })),
  };
}

/** The possible values of a field, for a filter's value picker. */
export interface PossibleValuesQuery {
  object: FilterObject;
  field: string;
  field_id: string | null;
}

/** The editor's calls over the API client: the machine's services, and the possible values of a field. */
export function createCustomSectionsApi(client: ApiClient) {
  const services: SectionEditorServices = {
    async fetchCatalogue(signal) {
      const { data, response } = await client.GET('/user_filtered_config', { signal });
      if (!response.ok) throw new ApiCallError('Could not get the values and filters a section can use', response.status);
      return parseCatalogue(data);
    },
    async fetchReport(secret, signal) {
      const { data, response } = await client.GET('/business_reports/by_secret', { params: { query: { secret } }, signal });
      if (!data) throw new ApiCallError('We could not fetch the report', response.status);
      return loadedReport(data);
    },
    async preview(reportId, config, resolution, signal) {
      const answer = await client.POST('/business_report/{reportId}/sections/preview', { params: { path: { reportId } }, body: { config, resolution: resolution as Resolution }, signal });
      if (answer.response.ok) return parsePreview(answer.data);
      throw (refused(answer.response) ? { errors: serverErrorsOf(answer.error) } : { errors: [] }) satisfies PreviewFailure;
    },
    async create(reportId, config: CustomSectionConfig, title, signal) {
      const answer = await client.POST('/business_report/{reportId}/sections', { params: { path: { reportId } }, body: { definition_id: USER_FILTERED_DEFINITION_ID, config, title }, signal });
      if (!answer.response.ok) throw saveFailureOf(answer);
      return savedId(answer, '');
    },
    async update(sectionId, config, signal) {
      const answer = await client.PUT('/business_report/sections/{id}', { params: { path: { id: sectionId } }, body: { definition_id: USER_FILTERED_DEFINITION_ID, config }, signal });
      if (!answer.response.ok) throw saveFailureOf(answer);
      return savedId(answer, sectionId);
    },
  };

  /** GET /user_filtered_config/possible_values (field_id left out when null): the values, in the server's order. */
  async function possibleValues({ object, field, field_id }: PossibleValuesQuery, signal?: AbortSignal): Promise<string[]> {
    const query = { object, field, ...(field_id === null ? {} : { field_id }) };
    const { data, response } = await client.GET('/user_filtered_config/possible_values', { params: { query }, signal });
    if (!response.ok || !isRecord(data) || !Array.isArray(data.items)) throw new ApiCallError(POSSIBLE_VALUES_FAILURE, response.status);
    return data.items.flatMap((item) => (isRecord(item) && isText(item.value) ? [item.value] : []));
  }

  return { services, possibleValues };
}

export type CustomSectionsApi = ReturnType<typeof createCustomSectionsApi>;

/** The editor's calls over the app's API client (or a test's). */
export function useCustomSectionsApi(): CustomSectionsApi {
  const client = useApi();
  return useMemo(() => createCustomSectionsApi(client), [client]);
}

/** The cache key of a field's possible values (TanStack Query). */
export function possibleValuesKey(query: PossibleValuesQuery) {
  return ['/user_filtered_config/possible_values', { object: query.object, field: query.field, field_id: query.field_id }] as const;
}
