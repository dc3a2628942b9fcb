import type { ApiClient } from '../../api/client';

/** DELETE /business_reports/{id}: whether the server removed the report (a failed request is false). */
export async function deleteReport(client: ApiClient, id: string): Promise<boolean> {
  try {
    const { response } = await client.DELETE('/business_reports/{id}', { params: { path: { id } } });
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * POST /business_reports {title, sections: [{definition_id}]}: the new report's secret, or null
 * when the server refused it or could not be reached.
 */
export async function createReport(client: ApiClient, title: string, definitionIds: readonly string[]): Promise<string | null> {
  try {
    const { data } = await client.POST('/business_reports', {
      body: { title, sections: definitionIds.map((definition_id) => ({ definition_id })) },
    });
    return data?.secret ?? null;
  } catch {
    return null;
  }
}
