import type { ApiClient } from '../../api/client';
import { apiKey } from '../../api/queries';

/** A comment as `GET /comments` and `POST /comments` answer it. */
export type ReportComment = NonNullable<Awaited<ReturnType<typeof listCall>>['data']>['items'][number];

/** The spec's message for a change that did not save. */
export const COMMENT_SAVE_FAILURE = 'We could not save your changes. Please try again.';
export const COMMENTS_FETCH_FAILURE = 'We could not fetch comments';

function listCall(client: ApiClient, reportId: string, signal?: AbortSignal) {
  return client.GET('/comments', { params: { query: { commented_id: reportId } }, signal });
}

/** The cache key of a report's comments. */
export const commentsKey = (reportId: string) => apiKey('/comments', { commented_id: reportId });

export class CommentCallError extends Error {
  override name = 'CommentCallError';
}

/** The first error detail of a 422 answer (the server says what is wrong with the text). */
function detailOf(error: unknown): string | undefined {
  return (error as { errors?: { detail?: string }[] } | undefined)?.errors?.[0]?.detail;
}

/** The comment calls of one report. */
export function commentsApi(client: ApiClient, reportId: string) {
  return {
    /** Pinned first, then newest first (the server's order). */
    async list(signal?: AbortSignal): Promise<ReportComment[]> {
      const { data } = await listCall(client, reportId, signal);
      if (!data) throw new CommentCallError(COMMENTS_FETCH_FAILURE);
      return data.items;
    },
    async add(content: string): Promise<ReportComment> {
      const { data, error, response } = await client.POST('/comments', { body: { commented_id: reportId, content } });
      if (!data) throw new CommentCallError((response.status === 422 && detailOf(error)) || COMMENT_SAVE_FAILURE);
      return data;
    },
  };
}

export type CommentsApi = ReturnType<typeof commentsApi>;
