import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/ApiContext';
import type { ApiClient } from '../../api/client';
import { ApiCallError, apiKey } from '../../api/queries';

/**
 * The share dialog's calls (second spec document, sections 2 and 7): a report's share links
 * (read only, optionally pinned to one segment value) and group links (always the group's
 * newest report), listed, made and revoked by the report's owners.
 */

/** The spec's failure toasts of making a link. */
export const SHARE_URL_FAILURE = 'Something went wrong and we could not generate share url for report';
export const GROUP_URL_FAILURE = 'Something went wrong and we could not generate group url for report';
/** Ours: the spec has no message for these. */
export const SHARE_LINKS_FETCH_FAILURE = 'We could not fetch the links of this report';
export const REVOKE_FAILURE = 'Something went wrong and we could not revoke the link';

/** Where a share link and a group link open, on this site. */
export const sharedReportPath = (secret: string) => `/reports/shared/${secret}`;
export const groupReportPath = (secret: string) => `/reports/group/${secret}`;
export const absoluteUrl = (path: string) => `${window.location.origin}${path}`;

export interface ShareLink {
  id: string;
  secret: string;
  segmenter_id: string | null;
  segmenter_name: string | null;
  segment_value: string | null;
  created_at: string;
}

export interface GroupLink {
  id: string;
  secret: string;
  created_at: string;
}

export const shareLinksKey = (reportId: string) => apiKey('/business_reports/{id}/share_secrets', { id: reportId });
export const groupLinksKey = (reportId: string) => apiKey('/business_reports/{id}/group_secrets', { id: reportId });

async function listShareLinks(client: ApiClient, reportId: string, signal: AbortSignal): Promise<ShareLink[]> {
  const { data, response } = await client.GET('/business_reports/{id}/share_secrets', { params: { path: { id: reportId } }, signal });
  if (!data) throw new ApiCallError(SHARE_LINKS_FETCH_FAILURE, response.status);
  return data.items;
}

async function listGroupLinks(client: ApiClient, reportId: string, signal: AbortSignal): Promise<GroupLink[]> {
  const { data, response } = await client.GET('/business_reports/{id}/group_secrets', { params: { path: { id: reportId } }, signal });
  if (!data) throw new ApiCallError(SHARE_LINKS_FETCH_FAILURE, response.status);
  return data.items;
}

/** The report's share links and group links, newest first (`enabled` while the dialog is open). */
export function useReportLinks(reportId: string, enabled: boolean) {
  const client = useApi();
  const share = useQuery({ queryKey: shareLinksKey(reportId), queryFn: ({ signal }) => listShareLinks(client, reportId, signal), enabled });
  const group = useQuery({ queryKey: groupLinksKey(reportId), queryFn: ({ signal }) => listGroupLinks(client, reportId, signal), enabled });
  return { share, group };
}

/** A segment value a share link is pinned to. */
export interface PinnedSegment {
  segmenterId: string;
  value: string;
}

/** Makes, and revokes, the report's links; each success reads its list again. */
export function useLinkMutations(reportId: string) {
  const client = useApi();
  const queryClient = useQueryClient();
  const createShare = useMutation({
    mutationFn: async (pinned: PinnedSegment | null): Promise<ShareLink> => {
      const { data, response } = await client.POST('/business_reports/{id}/share_secret', {
        params: { path: { id: reportId } },
        body: pinned ? { segmenter_id: pinned.segmenterId, segment_value: pinned.value } : {},
      });
      if (!data) throw new ApiCallError(SHARE_URL_FAILURE, response.status);
      return data;
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: shareLinksKey(reportId) }),
  });
  const createGroup = useMutation({
    mutationFn: async (): Promise<GroupLink> => {
      const { data, response } = await client.POST('/business_reports/{id}/group_secret', { params: { path: { id: reportId } } });
      if (!data) throw new ApiCallError(GROUP_URL_FAILURE, response.status);
      return data;
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: groupLinksKey(reportId) }),
  });
  const revoke = useMutation({
    mutationFn: async (link: { kind: 'share' | 'group'; id: string }): Promise<void> => {
      const path = link.kind === 'share' ? '/business_reports/{id}/share_secrets/{secretId}' : '/business_reports/{id}/group_secrets/{secretId}';
      const { response } = await client.DELETE(path, { params: { path: { id: reportId, secretId: link.id } } });
      // Already gone is what the owner wanted.
      if (!response.ok && response.status !== 404) throw new ApiCallError(REVOKE_FAILURE, response.status);
    },
    onSettled: (_data, _error, link) => queryClient.invalidateQueries({ queryKey: link.kind === 'share' ? shareLinksKey(reportId) : groupLinksKey(reportId) }),
  });
  return { createShare, createGroup, revoke };
}
