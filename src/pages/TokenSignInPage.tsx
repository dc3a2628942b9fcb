import { Loader, Stack, Text, Title } from '@mantine/core';
import { useEffect } from 'react';
import { useParams } from 'wouter';
import { useAuthActor } from '../session/SessionContext';

/**
 * /sign_in_via_token/{jwt}: hands the token to the machine, which checks it (GET /users/me)
 * and goes to /settings, or to /sign_in when the link does not work.
 */
export function TokenSignInPage() {
  const { jwtToken = '' } = useParams<{ jwtToken: string }>();
  const actor = useAuthActor();

  useEffect(() => {
    const event = { type: 'auth.tokenSignIn', token: jwtToken } as const;
    if (actor.getSnapshot().can(event)) actor.send(event);
  }, [actor, jwtToken]);

  return (
    <Stack align="center" ta="center" gap="md" py="lg" aria-busy="true">
      <Loader size="lg" aria-label="Checking your sign-in link" />
      <Title order={1} fz={24}>
        Signing you in
      </Title>
      <Text c="dimmed">Checking your sign-in link…</Text>
    </Stack>
  );
}
