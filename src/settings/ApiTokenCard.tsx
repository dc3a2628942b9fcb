import { ActionIcon, Card, Code, Group, Skeleton, Stack, Text, ThemeIcon, Title, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy, IconKey } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { API_TOKEN_FETCH_FAILURE_MESSAGE } from '../../models/auth';
import { useApi } from '../api/ApiContext';
import { toastClipboardCopy, toastError } from '../notifications/toast';
import { toAuthUser } from '../session/authServices';
import { useAuthActor } from '../session/SessionContext';

type TokenState = { status: 'loading' } | { status: 'loaded'; token: string } | { status: 'failed' };

/**
 * The API card of Settings: the user's API token (GET /users/me, full-access users only) with
 * a copy action. The fresh user of that answer also refreshes the session's copy.
 */
export function ApiTokenCard() {
  const client = useApi();
  const actor = useAuthActor();
  const [state, setState] = useState<TokenState>({ status: 'loading' });
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    const controller = new AbortController();
    client
      .GET('/users/me', { signal: controller.signal })
      .then(({ data }) => {
        if (!data?.user.api_token) throw new Error('GET /users/me answered no API token');
        actor.send({ type: 'auth.userUpdated', user: toAuthUser(data) });
        setState({ status: 'loaded', token: data.user.api_token });
      })
      .catch(() => {
        if (controller.signal.aborted) return;
        setState({ status: 'failed' });
        toastError(API_TOKEN_FETCH_FAILURE_MESSAGE);
      });
    return () => controller.abort();
  }, [client, actor]);

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
            <Title order={2} fz="md">
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
