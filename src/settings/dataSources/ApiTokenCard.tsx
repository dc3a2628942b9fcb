import { ActionIcon, Card, Code, Group, Skeleton, Stack, Text, ThemeIcon, Title, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy, IconKey } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { API_TOKEN_FETCH_FAILURE_MESSAGE } from '../../../models/auth';
import { useApi } from '../../api/ApiContext';
import { ApiCallError, apiKey } from '../../api/queries';
import { toastClipboardCopy, toastError } from '../../notifications/toast';
import { toAuthUser } from '../../session/authServices';
import { useAuthActor } from '../../session/SessionContext';

type TokenState = { status: 'loading' } | { status: 'loaded'; token: string } | { status: 'failed' };

/**
 * The API card of Settings: the user's API token (GET /users/me, full-access users only) with
 * a copy action. The fresh user of that answer also refreshes the session's copy.
 */
export function ApiTokenCard() {
  const client = useApi();
  const actor = useAuthActor();
  const [copied, setCopied] = useState(false);
  const query = useQuery({
    queryKey: apiKey('/users/me'),
    queryFn: async ({ signal }) => {
      const { data, response } = await client.GET('/users/me', { signal });
      if (!data?.user.api_token) throw new ApiCallError('GET /users/me answered no API token', response.status);
      return data;
    },
    meta: { failureToast: API_TOKEN_FETCH_FAILURE_MESSAGE },
  });
  // The fresh user of the answer refreshes the session's copy.
  const me = query.data;
  useEffect(() => {
    if (me) actor.send({ type: 'auth.userUpdated', user: toAuthUser(me) });
  }, [me, actor]);
  const token = me?.user.api_token;
  const state: TokenState = token ? { status: 'loaded', token } : query.isError && !query.isFetching ? { status: 'failed' } : { status: 'loading' };

  const handleCopy = async (token: string) => {
    try {
      await navigator.clipboard.writeText(token);
    } catch {
      toastError('Your browser did not let us copy the token; select it and copy it instead');
      return;
    }
    setCopied(true);
    toastClipboardCopy('Copied');
  };

  return (
    <Card>
      <Stack gap="md">
        <Group gap="sm" wrap="nowrap">
          <ThemeIcon size={40} radius="md" variant="light" aria-hidden>
            <IconKey size={22} stroke={1.6} />
          </ThemeIcon>
          <Stack gap={0}>
            <Title order={3} fz="md">
              API
            </Title>
            <Text size="sm" c="dimmed">
              Send payments and customers from your own systems with this token.
            </Text>
          </Stack>
        </Group>
        {state.status === 'loading' ? <Skeleton height={38} radius="md" aria-label="Loading your API token" /> : null}
        {state.status === 'failed' ? (
          <Text size="sm" c="red">
            {API_TOKEN_FETCH_FAILURE_MESSAGE}
          </Text>
        ) : null}
        {state.status === 'loaded' ? (
          <Group gap="xs" wrap="nowrap">
            <Code block style={{ flex: 1, minWidth: 0, overflowX: 'auto', whiteSpace: 'nowrap' }} aria-label="API token">
              {state.token}
            </Code>
            <Tooltip label={copied ? 'Copied' : 'Copy token'}>
              <ActionIcon
                variant="default"
                size="lg"
                aria-label="Copy API token"
                onClick={() => void handleCopy(state.token)}
              >
                {copied ? <IconCheck size={18} /> : <IconCopy size={18} />}
              </ActionIcon>
            </Tooltip>
          </Group>
        ) : null}
      </Stack>
    </Card>
  );
}
