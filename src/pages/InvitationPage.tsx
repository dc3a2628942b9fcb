import { Anchor, Button, PasswordInput, Skeleton, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconMailOff, IconUsersPlus } from '@tabler/icons-react';
import { shallowEqual } from '@xstate/react';
import { useQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import { Link, useParams } from 'wouter';
import { selectFailureMessages, selectIsSubmitting } from '../../machines/auth/selectors';
import { acceptInvitationStruct, INVITATION_NOT_FOUND_MESSAGE, PASSWORD_MIN_LENGTH, SERVER_UNAVAILABLE_MESSAGE } from '../../models/auth';
import type { AcceptInvitationValues } from '../../models/auth';
import { useApi } from '../api/ApiContext';
import { ApiCallError, apiKey, errorStatus, queryState } from '../api/queries';
import { AuthCardHeader } from '../components/AuthCardHeader';
import { FailureAlert } from '../components/FailureAlert';
import { superstructResolver } from '../forms/superstructResolver';
import { SignInAreaGate } from '../session/SignInAreaGate';
import { useAuthActor, useAuthSelector } from '../session/SessionContext';

/** GET /invitations/{token}: who is invited, to which account, by whom. */
interface Invitation {
  invitee: { email: string; name: string };
  account: { name: string };
  inviter: { name: string };
}

type InvitationState =
  | { status: 'loading' }
  | { status: 'loaded'; invitation: Invitation }
  | { status: 'notFound' }
  | { status: 'failed' };

export function InvitationPage() {
  const { token = '' } = useParams<{ token: string }>();
  return (
    <SignInAreaGate>
      <InvitationContent key={token} token={token} />
    </SignInAreaGate>
  );
}

/**
 * GET /invitations/{token} through the query cache: loading, loaded, not found (404: used,
 * expired or never sent) or failed; `reload` asks again (Try again).
 */
function useInvitation(token: string): [InvitationState, () => void] {
  const client = useApi();
  const query = useQuery({
    queryKey: apiKey('/invitations/{token}', { token }),
    queryFn: async ({ signal }): Promise<Invitation> => {
      const { data, response } = await client.GET('/invitations/{token}', { params: { path: { token } }, signal });
      if (!data) throw new ApiCallError('GET /invitations/{token} failed', response.status);
      return data;
    },
  });
  const { refetch } = query;
  const reload = useCallback(() => void refetch(), [refetch]);
  const current = queryState(query);
  if (current.status === 'loaded') return [{ status: 'loaded', invitation: current.data }, reload];
  if (current.status === 'failed') return [errorStatus(current.error) === 404 ? { status: 'notFound' } : { status: 'failed' }, reload];
  return [{ status: 'loading' }, reload];
}

function InvitationContent({ token }: { token: string }) {
  const [state, reload] = useInvitation(token);

  switch (state.status) {
    case 'loading':
      return (
        <Stack gap="md" aria-busy="true" aria-label="Loading invitation">
          <Skeleton height={28} width="70%" mx="auto" />
          <Skeleton height={14} width="85%" mx="auto" />
          <Skeleton height={36} mt="md" />
          <Skeleton height={36} />
          <Skeleton height={36} />
        </Stack>
      );
    case 'notFound':
      return (
        <Stack gap="lg">
          <AuthCardHeader title="Invitation not found" icon={IconMailOff} description={INVITATION_NOT_FOUND_MESSAGE} />
          <Text size="sm" c="dimmed" ta="center">
            Ask the colleague who invited you to send a new invitation, or sign in if you already joined.
          </Text>
          <Button component={Link} href="/sign_in" variant="default" fullWidth>
            Go to sign in
          </Button>
        </Stack>
      );
    case 'failed':
      return (
        <Stack gap="lg">
          <AuthCardHeader title="Accept invitation" icon={IconUsersPlus} />
          <FailureAlert messages={[SERVER_UNAVAILABLE_MESSAGE]} />
          <Button onClick={reload} fullWidth>
            Try again
          </Button>
        </Stack>
      );
    case 'loaded':
      return <AcceptInvitationForm token={token} invitation={state.invitation} />;
  }
}

/** PUT /invitations/{token}: name and password; success signs in and goes to /getting-started. */
function AcceptInvitationForm({ token, invitation }: { token: string; invitation: Invitation }) {
  const actor = useAuthActor();
  const submitting = useAuthSelector((snapshot) => selectIsSubmitting(snapshot, 'acceptInvitation'));
  const failure = useAuthSelector((snapshot) => selectFailureMessages(snapshot, 'acceptInvitation'), shallowEqual);
  const form = useForm<AcceptInvitationValues>({
    mode: 'uncontrolled',
    initialValues: { name: invitation.invitee.name, password: '', password_confirmation: '' },
    validate: superstructResolver(acceptInvitationStruct),
  });
  const inviter = invitation.inviter.name || 'A colleague';

  const handleSubmit = form.onSubmit(({ name, password, password_confirmation }) => {
    actor.send({
      type: 'auth.acceptInvitation',
      request: { token, name: name.trim(), password, passwordConfirmation: password_confirmation },
    });
  });

  return (
    <>
      <AuthCardHeader
        title={`Join ${invitation.account.name}`}
        icon={IconUsersPlus}
        description={`${inviter} invited you to Subscope. Choose your name and a password to accept.`}
      />
      <form onSubmit={handleSubmit} noValidate>
        <Stack gap="md">
          <FailureAlert messages={failure} />
          <TextInput label="Email" value={invitation.invitee.email} readOnly autoComplete="username" variant="filled" />
          <TextInput label="Your name" autoComplete="name" key={form.key('name')} {...form.getInputProps('name')} />
          <PasswordInput
            label="Password"
            autoComplete="new-password"
            description={`At least ${PASSWORD_MIN_LENGTH} characters`}
            key={form.key('password')}
            {...form.getInputProps('password')}
          />
          <PasswordInput
            label="Confirm password"
            autoComplete="new-password"
            key={form.key('password_confirmation')}
            {...form.getInputProps('password_confirmation')}
          />
          <Button type="submit" loading={submitting} fullWidth mt="xs">
            Accept invitation
          </Button>
          <Text size="sm" c="dimmed" ta="center">
            Already joined?{' '}
            <Anchor component={Link} href="/sign_in">
              Sign in
            </Anchor>
          </Text>
        </Stack>
      </form>
    </>
  );
}
