import { Avatar, Button, Group, Stack, Text } from '@mantine/core';
import { IconArrowRight, IconLogout } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { selectSignInAreaMode } from '../../machines/auth/selectors';
import { AuthCardHeader } from '../components/AuthCardHeader';
import { CardSkeleton } from '../components/PageSkeleton';
import { ServerUnavailable } from '../components/ServerUnavailable';
import { useAuthSelector, useSession } from './SessionContext';

/**
 * A sign-in area page's frame: a skeleton while the stored session is checked (never a
 * flash of the form), the server-unreachable card, a notice for a visitor who is already
 * signed in, or the page's form.
 */
export function SignInAreaGate({ children }: { children: ReactNode }) {
  const mode = useAuthSelector(selectSignInAreaMode);
  switch (mode) {
    case 'pending':
      return <CardSkeleton />;
    case 'unavailable':
      return <ServerUnavailable variant="card" />;
    case 'signedIn':
      return <SignedInNotice />;
    case 'form':
      return children;
  }
}

/** Shown instead of a sign-in area form to someone who is signed in. */
function SignedInNotice() {
  const { user, status, signOut } = useSession();
  if (!user) return <CardSkeleton />;
  const name = user.name || user.email;
  return (
    <Stack gap="lg">
      <AuthCardHeader title="You are signed in" description="Continue to Subscope, or sign out to use another account." />
      <Group gap="sm" wrap="nowrap" justify="center">
        <Avatar name={name} color="initials" radius="xl" />
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Text fw={600} truncate>
            {name}
          </Text>
          <Text size="sm" c="dimmed" truncate>
            {user.email}
          </Text>
        </Stack>
      </Group>
      <Stack gap="xs">
        <Button component={Link} href="/" rightSection={<IconArrowRight size={16} />} fullWidth>
          Continue to Subscope
        </Button>
        <Button variant="default" leftSection={<IconLogout size={16} />} onClick={signOut} loading={status === 'signingOut'} fullWidth>
          Sign out
        </Button>
      </Stack>
    </Stack>
  );
}
